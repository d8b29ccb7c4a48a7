import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../src/http/rate-limit.js";
import { envelopeFor, RelayHarness, x25519Jwk } from "./helpers.js";

describe("HTTP edges", () => {
  let relay: ReturnType<typeof RelayHarness.sqlite>;
  afterEach(async () => relay.close());

  it("security headers on every response, errors included", async () => {
    relay = RelayHarness.sqlite();
    for (const url of ["/healthz", "/v1/device", "/nope"]) {
      const reply = await relay.request({ url });
      expect(reply.headers["x-content-type-options"]).toBe("nosniff");
      expect(reply.headers["x-frame-options"]).toBe("DENY");
      expect(reply.headers["referrer-policy"]).toBe("no-referrer");
      expect(reply.headers["content-security-policy"]).toContain("default-src 'none'");
      expect(reply.headers["cache-control"]).toBe("no-store");
      expect(reply.headers["strict-transport-security"]).toBe("max-age=31536000");
    }
    expect((await relay.request({ url: "/nope" })).status).toBe(404);
  });

  it("429 with Retry-After once a device posts past its answer limit; other devices are unaffected", async () => {
    relay = RelayHarness.sqlite({ limits: DEFAULT_LIMITS });
    const installation = await relay.enroll();
    const device = await relay.pair(installation);
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let index = 0; index < DEFAULT_LIMITS.answerPost.burst + 1; index += 1) {
      const reply = await relay.postAnswer(device, relay.answer(device, installation));
      statuses.push(reply.status);
      if (reply.status === 429) {
        retryAfter = reply.headers["retry-after"];
        expect(reply.json().error.code).toBe("rate_limited");
      }
    }
    expect(statuses.filter((status) => status === 201)).toHaveLength(DEFAULT_LIMITS.answerPost.burst);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    const other = await relay.pair(installation);
    expect((await relay.postAnswer(other, relay.answer(other, installation))).status).toBe(201);
  });

  it("pairing code guessing is bounded per client address, with Retry-After", async () => {
    relay = RelayHarness.sqlite({ limits: DEFAULT_LIMITS });
    const statuses: number[] = [];
    for (let index = 0; index < DEFAULT_LIMITS.claimPerIp.burst + 1; index += 1) {
      const reply = await relay.request({
        url: "/v1/pairings/claim",
        body: { code: `AAAAAAAAA${index}`, device_name: "x", public_key: x25519Jwk() },
      });
      statuses.push(reply.status);
      if (reply.status === 429) expect(Number(reply.headers["retry-after"])).toBeGreaterThan(1);
    }
    expect(statuses.slice(0, -1).every((status) => status === 400)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it("--trust-proxy: the client address comes from X-Forwarded-For, so limits key on the real client", async () => {
    relay = RelayHarness.sqlite({ limits: DEFAULT_LIMITS, trustProxy: true });
    const claim = (ip: string, code: string) =>
      relay.request({
        url: "/v1/pairings/claim",
        headers: { "x-forwarded-for": ip },
        body: { code, device_name: "x", public_key: x25519Jwk() },
      });
    for (let index = 0; index < DEFAULT_LIMITS.claimPerIp.burst; index += 1) {
      expect((await claim("203.0.113.1", `CCCCCCCCC${index}`)).status).toBe(400);
    }
    expect((await claim("203.0.113.1", "CCCCCCCCCX")).status).toBe(429);
    // Another client behind the same proxy has its own budget...
    expect((await claim("203.0.113.2", "DDDDDDDDDD")).status).toBe(400);
    // ...but one code has a budget of its own across addresses (bounds guessing from many).
    for (let index = 3; index < 3 + DEFAULT_LIMITS.claimPerCode.burst - 1; index += 1) {
      await claim(`203.0.113.${index}`, "DDDDDDDDDD");
    }
    expect((await claim("203.0.113.200", "DDDDDDDDDD")).status).toBe(429);
  });

  it("no token, nonce, pairing code or answer text in any log line", async () => {
    const lines: string[] = [];
    const logger = {
      info: (m: string) => lines.push(m),
      warn: (m: string) => lines.push(m),
      error: (m: string) => lines.push(m),
    };
    relay = RelayHarness.sqlite({ logger });
    await relay.listen();
    const installation = await relay.enroll("laptop");
    const pairing = await relay.pairCode(installation);
    const claimed = await relay.request({
      url: "/v1/pairings/claim",
      body: { code: pairing.code, device_name: "p", public_key: x25519Jwk() },
    });
    const device = claimed.json();
    await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]));
    const body = relay.answer(device, installation, {
      nonce: "secret-nonce-value",
      choice_id: undefined,
      text: "secret answer text",
    });
    delete body.choice_id;
    await relay.postAnswer(device, body);
    await relay.postAnswer(device, "{broken");
    await relay.poll(installation);
    await relay.request({ url: `/v1/envelopes?since=garbage`, headers: { authorization: `Bearer ${device.token}` } });
    await relay.postAnswer({ ...device, token: "nrd_not-a-real-token" }, body);
    const log = lines.join("\n");
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(log).not.toContain("nrd_not-a-real-token");
    for (const secret of [installation.token, device.token, pairing.code, "secret-nonce-value", "secret answer text"]) {
      expect(log).not.toContain(secret);
    }
  });
});
