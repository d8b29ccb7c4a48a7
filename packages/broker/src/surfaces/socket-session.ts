import type { SurfaceLoopContext } from "./supervisor.js";

/** What a WebSocket chat loop (Slack's Socket Mode, Discord's Gateway) does with its session. */
export interface SocketSession<Ending> {
  /** Sends `payload` as JSON while the session is open. */
  send(payload: unknown): void;
  /** Runs `task` once every earlier one is done: the session's messages are handled one at a time, in order. */
  queue(task: () => unknown): void;
  /** The server's greeting came (Slack's `hello`, Discord's HELLO): the session no longer times out. */
  greeted(): void;
  /** Ends the session with `ending`; the first ending wins. */
  end(ending: Ending): void;
  readonly ended: boolean;
}

/** How one loop's session ends and what it does with the messages it gets. */
export interface SocketHandlers<Ending> {
  /** No greeting within `requestTimeoutMs`. */
  timedOut: Ending;
  /** The loop stopped. */
  aborted: Ending;
  /** The socket closed (with its close code), or failed (no code); queued after the messages before it. */
  closed(code: number | undefined): Ending;
  /** A message that parsed as JSON. */
  message(payload: unknown): void;
  /** The close code the client ends the socket with (none: the default). */
  closeCode?(ending: Ending): number | undefined;
  /** Stops what the loop started for the session (timers). */
  stop?(): void;
}

/**
 * One WebSocket session of a chat loop; resolves with why it ended. A server that takes the connection and never
 * greets is a failure (`timedOut` after `requestTimeoutMs`), not "connecting" for ever; the loop's abort ends it at
 * once, a close or an error once the messages queued before it are handled.
 */
export function socketSession<Ending>(
  url: string,
  context: SurfaceLoopContext,
  handlers: (session: SocketSession<Ending>) => SocketHandlers<Ending>,
): Promise<Ending> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    let chain: Promise<unknown> = Promise.resolve();
    let ended = false;
    let greeting: NodeJS.Timeout | undefined;
    const onAbort = () => session.end(on.aborted);
    const session: SocketSession<Ending> = {
      send(payload) {
        if (!ended && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload));
      },
      queue(task) {
        chain = chain.then(task);
      },
      greeted() {
        clearTimeout(greeting);
      },
      end(ending) {
        if (ended) return;
        ended = true;
        clearTimeout(greeting);
        on.stop?.();
        context.signal.removeEventListener("abort", onAbort);
        try {
          socket.close(on.closeCode?.(ending));
        } catch {
          // already closed
        }
        resolve(ending);
      },
      get ended() {
        return ended;
      },
    };
    const on = handlers(session);
    greeting = setTimeout(() => session.end(on.timedOut), context.timings.requestTimeoutMs);
    context.signal.addEventListener("abort", onAbort, { once: true });
    socket.addEventListener("message", (message) => {
      let payload: unknown;
      try {
        payload = JSON.parse(String(message.data));
      } catch {
        return;
      }
      on.message(payload);
    });
    socket.addEventListener("close", (event) => {
      const code = (event as CloseEvent).code;
      session.queue(() => session.end(on.closed(code)));
    });
    socket.addEventListener("error", () => session.queue(() => session.end(on.closed(undefined))));
  });
}
