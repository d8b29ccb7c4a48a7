/**
 * Issue 21, item 12: limits keyed per exact address let 100 loopback sources make 860 pairing guesses a second, and
 * `Expect: 100-continue` drew a 100 for a body the relay then refused. Over a real socket, from many source
 * addresses (127.0.0.x via undici's localAddress).
 */
import { connect } from "node:net";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { BODY_LIMIT } from "../src/http/app.js";
import { DRAIN_LIMIT } from "../src/http/errors.js";
import { DEFAULT_LIMITS } from "../src/http/rate-limit.js";
import { RelayHarness, x25519Jwk } from "./helpers.js";

const randomCode = () => {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let code = "";
  for (let index = 0; index < 10; index += 1) code += alphabet[Math.floor(Math.random() * 32)];
  return code;
};

/** Sends `head` (and no body) on a raw socket and resolves with everything read until the server closes or 3 s. */
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
      // A final (non-1xx) status line with its whole head: enough to judge.
      if (/HTTP\/1\.1 [2-5]\d\d [^\r]*\r\n[\s\S]*\r\n\r\n/.test(text)) done();
    });
    socket.on("error", reject);
    socket.on("close", done);
    socket.write(head);
  });
}

/**
 * Writes `head` and then `bodyBytes` of body in 8 KiB pieces a few milliseconds apart (as a proxy streams it), then
 * `after` on the same socket; resolves with everything read until the server closes or `waitMs` passes.
 */
function streamedExchange(
  port: number,
  head: string,
  bodyBytes: number,
  after: string,
  waitMs: number,
): Promise<{ text: string; closedAfterMs: number | undefined }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const started = performance.now();
    let text = "";
    let closedAfterMs: number | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs });
    }, waitMs);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closedAfterMs = performance.now() - started;
      clearTimeout(timer);
      resolve({ text, closedAfterMs });
    });
    socket.write(head);
    let sent = 0;
    const more = () => {
      if (socket.destroyed) return;
      if (sent >= bodyBytes) {
        if (after !== "") socket.write(after);
        return;
      }
      const piece = Math.min(8192, bodyBytes - sent);
      socket.write(Buffer.alloc(piece, 0x78));
      sent += piece;
      setTimeout(more, 2);
    };
    setTimeout(more, 2);
  });
}

describe("rate limits and edges", () => {
  let relay: ReturnType<typeof RelayHarness.sqlite>;
  const agents: Agent[] = [];
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.close();
    await relay.close();
  });

  it("100 source addresses guessing codes are bounded together, not 100 times over", async () => {
    relay = RelayHarness.sqlite({ limits: DEFAULT_LIMITS });
    await relay.listen();
    const address = relay.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const sources = 100;
    const perSource = DEFAULT_LIMITS.claimPerIp.burst;
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: sources }, async (_, index) => {
        const agent = new Agent({ connect: { localAddress: `127.0.0.${index + 2}` } });
        agents.push(agent);
        const seen: number[] = [];
        for (let attempt = 0; attempt < perSource; attempt += 1) {
          const response = await request(`http://127.0.0.1:${port}/v1/pairings/claim`, {
            method: "POST",
            dispatcher: agent,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ code: randomCode(), device_name: "guess", public_key: x25519Jwk() }),
          });
          await response.body.dump();
          seen.push(response.statusCode);
        }
        return seen;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const all = statuses.flat();
    // Every source stayed within its own per-address budget: what refused the rest is the shared one.
    const checked = all.filter((status) => status === 400).length;
    expect(all.every((status) => status === 400 || status === 429)).toBe(true);
    expect(checked).toBeLessThanOrEqual(
      Math.ceil(DEFAULT_LIMITS.claimAll.burst + DEFAULT_LIMITS.claimAll.perSecond * seconds) + 1,
    );
    expect(all.filter((status) => status === 429).length).toBeGreaterThan(sources * perSource - checked - 1);
    expect(checked).toBeLessThan(sources * perSource);
  }, 60_000);

  it("IPv6 clients of one /64 share a budget; IPv4-mapped addresses count as their IPv4 address", async () => {
    relay = RelayHarness.sqlite({ limits: DEFAULT_LIMITS, trustProxy: true });
    const claim = (ip: string) =>
      relay.request({
        url: "/v1/pairings/claim",
        headers: { "x-forwarded-for": ip },
        body: { code: randomCode(), device_name: "x", public_key: x25519Jwk() },
      });
    for (let index = 0; index < DEFAULT_LIMITS.claimPerIp.burst; index += 1) {
      expect((await claim(`2001:db8:5:6::${index + 1}`)).status).toBe(400);
    }
    // Another address of the same /64: the budget is spent.
    expect((await claim("2001:db8:5:6:ffff:ffff:ffff:fffe")).status).toBe(429);
    // The next /64 has its own.
    expect((await claim("2001:db8:5:7::1")).status).toBe(400);
    for (let index = 0; index < DEFAULT_LIMITS.claimPerIp.burst; index += 1) {
      expect((await claim("198.51.100.7")).status).toBe(400);
    }
    expect((await claim("::ffff:198.51.100.7")).status).toBe(429);
  });

  it("Expect: 100-continue with an oversize Content-Length gets 413 and no 100 first", async () => {
    relay = RelayHarness.sqlite();
    await relay.listen();
    const address = relay.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const head = (length: number, path = "/v1/pairings/claim") =>
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;
    const oversize = await rawExchange(port, head(BODY_LIMIT + 1));
    expect(oversize).toMatch(/^HTTP\/1\.1 413 /);
    expect(oversize).not.toContain("100 Continue");
    expect(oversize).toContain('"payload_too_large"');
    const huge = await rawExchange(port, head(50_000_000, "/v1/envelopes"));
    // A route with a token: 401 (the token is checked first), still without a 100.
    expect(huge).toMatch(/^HTTP\/1\.1 401 /);
    // A body within the limit is invited as before.
    const small = await rawExchange(port, head(10), 1000);
    expect(small).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
  });
  it("a body over the limit but under 1 MiB is read and refused on a connection that stays open (no reset for a proxy)", async () => {
    relay = RelayHarness.sqlite();
    await relay.listen();
    const address = relay.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const length = 70 * 1024;
    const head = `POST /v1/pairings/claim HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const next = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    const { text } = await streamedExchange(port, head, length, next, 20_000);
    const responses = text.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 413 /);
    expect(responses[0]).toContain('"payload_too_large"');
    expect(responses[0]?.toLowerCase()).not.toContain("connection: close");
    // The rest of the body was read and discarded: the next request on the socket is answered.
    expect(responses[1]).toMatch(/^HTTP\/1\.1 200 /);
    expect(responses[1]).toContain('"status":"ok"');
  });

  it("a larger declared body, or one that stops arriving after its 413, gets the connection closed", async () => {
    relay = RelayHarness.sqlite();
    await relay.listen();
    const address = relay.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const head = (length: number) =>
      `POST /v1/pairings/claim HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const huge = await streamedExchange(port, head(DRAIN_LIMIT + 1), 16 * 1024, "", 20_000);
    expect(huge.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(huge.text.toLowerCase()).toContain("connection: close");
    expect(huge.closedAfterMs).toBeDefined();
    // 70 KiB declared, 16 KiB sent, then nothing: the 413 comes at once, the socket is closed by the drain deadline.
    const stalled = await streamedExchange(port, head(70 * 1024), 16 * 1024, "", 30_000);
    expect(stalled.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(stalled.closedAfterMs).toBeGreaterThan(9_000);
    expect(stalled.closedAfterMs).toBeLessThan(29_000);
  }, 60_000);
});
