import type { Server } from "node:http";
import type { Socket } from "node:net";

/** How long a stop waits for the aborted runs to withdraw their questions and answer Claude Code. */
const STOP_GRACE_MS = 5_000;

/**
 * The hook events the broker is running for Claude Code's `"type": "http"` hooks (POST /v1/hooks/claude-code), so a
 * broker that stops does not wait for them: a PermissionRequest waits up to its question's expiry (10 minutes), and
 * the server's close waits for every request in flight.
 */
export class HookRuns {
  private readonly runs = new Set<{ stop: AbortController; done: Promise<unknown> }>();
  private stopped = false;

  /** Runs `body` with a signal aborted by `stop()` or by `signal` (Claude Code closing the request). */
  async run<T>(signal: AbortSignal, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const stop = new AbortController();
    if (this.stopped) stop.abort(new Error("the broker is stopping"));
    const done = body(AbortSignal.any([signal, stop.signal]));
    const entry = { stop, done };
    this.runs.add(entry);
    try {
      return await done;
    } finally {
      this.runs.delete(entry);
    }
  }

  /**
   * Stops every run as if Claude Code had closed its request: each withdraws its question (the broker still
   * answers: call this before the server closes) and answers `{}`, so Claude Code asks in its own prompt.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.stopped = true;
    const pending = [...this.runs];
    for (const run of pending) run.stop.abort(new Error("the broker is stopping"));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled(pending.map((run) => run.done)), grace]);
    clearTimeout(timer);
  }
}

/**
 * Node's `closeIdleConnections` (what fastify's close calls) leaves a connection that never sent a byte open until
 * its client drops it. Node's own fetch pool opens such spare connections, and the hook route's requests to its own
 * broker go through it: a broker that ran HTTP hooks then took a minute (the pool's keep-alive) to stop. Returns a
 * function for the close that destroys every connection that has carried nothing, and from then on every new one.
 */
export function silentConnections(server: Server): () => void {
  const open = new Set<Socket>();
  let closing = false;
  server.on("connection", (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  return () => {
    closing = true;
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  };
}
