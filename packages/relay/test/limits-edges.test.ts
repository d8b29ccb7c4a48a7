/**
 * Issue 21, item 12: limits keyed per exact address let 100 loopback sources make 860 pairing guesses a second, and
 * `Expect: 100-continue` drew a 100 for a body the relay then refused. Over a real socket, from many source
 * addresses (127.0.0.x via undici's localAddress).
 */
import { connect } from "node:net";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { BODY_LIMIT } from "../src/http/app.js";
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
});
