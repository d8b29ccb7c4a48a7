// GET /ui/api/stream and the broker's close: a stream whose request passed the guards before the close began, but
// whose handler ran after the stream plugin's preClose had ended the open streams, was never ended, and the server
// waited for its connection forever (a broker restart in a page test hung once on a loaded machine). A real socket
// against a fastify app with the stream routes behind a guard the test holds open across the start of the close.
import { request } from "node:http";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { DomainBus } from "../../src/domain/bus.js";
import type { UnitOfWork } from "../../src/domain/unit-of-work.js";
import { uiStreamRoutes } from "../../src/http/routes/ui-stream.js";
import { UiEventLog } from "../../src/http/ui/ui-event-log.js";

const unit: UnitOfWork = {
  run: (work) => work(),
  afterCommit: (callback) => callback(),
  pendingCommit: () => undefined,
};

describe("GET /ui/api/stream while the server closes", () => {
  it("a stream that reaches its handler after the close began is ended at once, and the close completes", async () => {
    const app = Fastify({ forceCloseConnections: "idle" });
    let entered: () => void = () => {};
    const inGuard = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await app.register(
      async (scope) => {
        // The guard of the /ui/api plugin, held until the test lets it go.
        scope.addHook("onRequest", async () => {
          entered();
          await released;
        });
        await scope.register(uiStreamRoutes, { events: new UiEventLog(new DomainBus(unit)) });
      },
      { prefix: "/ui/api" },
    );
    const address = await app.listen({ port: 0, host: "127.0.0.1" });

    const ended = new Promise<string>((resolve, reject) => {
      const req = request(`${address}/ui/api/stream`, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve(body));
      });
      req.on("error", reject);
      req.end();
    });
    await inGuard;
    const closed = app.close();
    // Let the close run its preClose hooks (ending the streams open so far) before the handler runs.
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    release();
    const outcome = await Promise.race([
      closed.then(() => "closed"),
      new Promise((resolve) => setTimeout(() => resolve("close still waiting after 5 s"), 5_000)),
    ]);
    expect(outcome).toBe("closed");
    // The page's EventSource sees the end and reconnects (to the next broker): only the retry line was sent.
    expect(await ended).toBe("retry: 2000\n\n");
  });
});
