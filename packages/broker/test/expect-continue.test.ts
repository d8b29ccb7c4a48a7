/**
 * Issue 21, item 12: Node answers `Expect: 100-continue` with a 100 on its own, so a client was invited to send a
 * body the broker then refused with 413. Over a real socket: the oversize request gets its 413 and no 100 first.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { TOKEN, testBroker } from "./helpers.js";

/** Sends `head` (no body) and resolves with what came back once a final status head arrived (or after 3 s). */
function rawExchange(port: number, head: string, waitMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, waitMs);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      if (/HTTP\/1\.1 [2-5]\d\d [^\r]*\r\n[\s\S]*\r\n\r\n/.test(text)) done();
    });
    socket.on("error", reject);
    socket.on("close", done);
    socket.write(head);
  });
}

describe("Expect: 100-continue", () => {
  it("an oversize Content-Length gets 413 without a 100 Continue first; a fitting one is invited", async () => {
    const broker = testBroker({ maxRequestBodyBytes: 1024 });
    await broker.app.listen({ port: 0, host: "127.0.0.1" });
    const address = broker.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const head = (length: number) =>
      `POST /v1/notifications HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;
    const oversize = await rawExchange(port, head(1025));
    expect(oversize).toMatch(/^HTTP\/1\.1 413 /);
    expect(oversize).not.toContain("100 Continue");
    const fits = await rawExchange(port, head(20), 1000);
    expect(fits).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
  });
});
