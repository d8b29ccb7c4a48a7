import type { ServerResponse } from "node:http";
import type { FastifyPluginAsync } from "fastify";
import type { LoggedEvent, UiEventLog } from "../ui/ui-event-log.js";

export interface UiStreamOptions {
  events: UiEventLog;
  /** Comment line interval that keeps idle connections (and proxies) open. */
  heartbeatMs?: number;
}

const frame = (event: LoggedEvent): string => `id: ${event.id}\nevent: ${event.name}\ndata: ${event.data}\n\n`;

/**
 * GET /ui/api/stream: Server-Sent Events `created`, `changed`, `settled` (and `reset` when the page must reload
 * its snapshot). The page's EventSource reconnects by itself with `Last-Event-ID`; the first connection names
 * the snapshot's cursor as `?since=`.
 */
export const uiStreamRoutes: FastifyPluginAsync<UiStreamOptions> = async (app, { events, heartbeatMs = 25_000 }) => {
  const open = new Set<ServerResponse>();
  let closing = false;
  // Streams never go idle by themselves: end them before the server waits for its connections.
  app.addHook("preClose", (done) => {
    closing = true;
    for (const response of open) response.end();
    open.clear();
    done();
  });

  app.get("/stream", async (request, reply) => {
    const header = request.headers["last-event-id"];
    const query = (request.query as Record<string, unknown>).since;
    const lastId = typeof header === "string" ? header : typeof query === "string" ? query : undefined;
    const position = events.since(lastId);

    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      // Closing: the connection goes with the stream, so the server is not left waiting for an idle keep-alive.
      connection: closing ? "close" : "keep-alive",
      "x-content-type-options": "nosniff",
    });
    response.write("retry: 2000\n\n");
    // A stream whose request passed the guards before the close began but reached here after preClose ran would
    // never be ended, and the server would wait for its connection forever: it ends at once (the page reconnects).
    if (closing) {
      response.end();
      return;
    }
    open.add(response);
    if (position.kind === "reset") {
      response.write(`id: ${events.cursor()}\nevent: reset\ndata: {}\n\n`);
    } else {
      const backlog = events.after(position.seq);
      if (backlog.length > 0) response.write(backlog.map(frame).join(""));
    }
    // The backlog and the subscription are taken in one synchronous turn: no event falls between them.
    const unsubscribe = events.subscribe((event) => {
      response.write(frame(event));
    });
    const heartbeat = setInterval(() => response.write(": ping\n\n"), heartbeatMs);
    heartbeat.unref();
    const stop = (): void => {
      clearInterval(heartbeat);
      unsubscribe();
      open.delete(response);
    };
    response.once("close", stop);
    request.raw.once("close", stop);
  });
};
