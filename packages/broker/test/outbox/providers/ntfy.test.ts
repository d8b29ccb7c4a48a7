import { describe, expect, it } from "vitest";
import { ntfyAdapter } from "../../../src/outbox/providers/ntfy.js";
import { deliveryContext, expectNoSecrets, MESSAGE, samplePayload, titleOnly } from "./delivery-fixtures.js";
import { expectPost, jsonBody, loopbackHttpPerTest, requestsAtEachPriority } from "./loopback-http.js";

const SECRETS = { token: "tk_ntfytestaccesstoken0123456789" };

describe("ntfy adapter (https://docs.ntfy.sh/publish/#publish-as-json)", () => {
  const server = loopbackHttpPerTest();

  const settings = (extra: Record<string, unknown> = {}) =>
    ntfyAdapter.parseSettings({ serverUrl: server.origin, topic: "agents_42", ...extra });

  it("POSTs the JSON message to the server root URL with a Bearer access token", async () => {
    const result = await ntfyAdapter.send(
      samplePayload({ priority: "high" }),
      settings({ tags: ["robot", "white_check_mark"], clickUrl: "https://ci.example.com/run/7" }),
      SECRETS,
      deliveryContext(),
    );
    expect(result).toEqual({ ok: true, status: 200 });
    const [request] = server.requests;
    // JSON publishing goes to the root URL, never /<topic> (ntfy docs, "Publish as JSON").
    expectPost(request, "/", { authorization: `Bearer ${SECRETS.token}` });
    expect(jsonBody(request)).toEqual({
      topic: "agents_42",
      title: "Build done",
      message: MESSAGE,
      priority: 4,
      tags: ["robot", "white_check_mark"],
      click: "https://ci.example.com/run/7",
    });
    expectNoSecrets(result, SECRETS);
  });

  it("sends no Authorization header without a token, and keeps a server path prefix", async () => {
    const prefixed = ntfyAdapter.parseSettings({ serverUrl: `${server.origin}/ntfy`, topic: "t" });
    await ntfyAdapter.send(samplePayload(), prefixed, {}, deliveryContext());
    expect(server.requests[0]?.url).toBe("/ntfy/");
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("maps low/normal/high/critical to ntfy priorities 2/3/4/5", async () => {
    const requests = await requestsAtEachPriority(server, (payload) =>
      ntfyAdapter.send(payload, settings(), {}, deliveryContext()),
    );
    expect(requests.map((request) => (jsonBody(request) as { priority: number }).priority)).toEqual([2, 3, 4, 5]);
  });

  it("sends the title alone as the message when the route leaves the message out (docs/outbound.md, 'Delivery rules', rule 3)", async () => {
    await ntfyAdapter.send(titleOnly(), settings(), SECRETS, deliveryContext());
    const request = server.requests[0];
    expect(request?.body).not.toContain(MESSAGE);
    // Without `message` ntfy would show "triggered", so the title is the message and no title is repeated.
    expect(jsonBody(request)).toEqual({ topic: "agents_42", message: "Build done", priority: 3 });
  });

  it("cuts the message to ntfy's 4096-byte message limit", async () => {
    await ntfyAdapter.send(samplePayload({ message: "é".repeat(4000) }), settings(), {}, deliveryContext());
    const message = (jsonBody(server.requests[0]) as { message: string }).message;
    expect(Buffer.byteLength(message, "utf8")).toBeLessThanOrEqual(4096);
    expect(message.endsWith("…")).toBe(true);
  });

  it("maps statuses through the shared policy and keeps the token out of the result", async () => {
    server.respond((_request, response) => response.writeHead(403).end(`forbidden ${SECRETS.token}`));
    const result = await ntfyAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "http_403", status: 403 });
    expectNoSecrets(result, SECRETS);
    server.respond((_request, response) => response.writeHead(429, { "retry-after": "2" }).end());
    expect(await ntfyAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext())).toMatchObject({
      retryable: true,
      code: "http_429",
      retryAfterMs: 2000,
    });
  });

  it("takes a Retry-After past the timer limit as the 10-minute cap (issue 31, item 4)", async () => {
    server.respond((_request, response) => response.writeHead(429, { "retry-after": "2147484" }).end());
    expect(await ntfyAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext())).toMatchObject({
      code: "http_429",
      retryAfterMs: 600_000,
    });
  });

  it("shows controls in the title and message as <U+XXXX> tokens (issue 31, item 2)", async () => {
    const payload = samplePayload({ title: "Build\u202E done", message: "red\u001B[31m\r\nnext\u0085" });
    await ntfyAdapter.send(payload, settings(), {}, deliveryContext());
    expect(jsonBody(server.requests[0])).toMatchObject({
      title: "Build<U+202E> done",
      message: "red<U+001B>[31m\nnext<U+0085>",
    });
  });

  it("fails final with provider_secret_invalid for a token that cannot be a header value", async () => {
    const bad = { token: "tk_abc\r\nX-Injected: 1" };
    const result = await ntfyAdapter.send(samplePayload(), settings(), bad, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "provider_secret_invalid" });
    expectNoSecrets(result, bad);
    expect(server.requests).toHaveLength(0);
  });

  it("checks settings", () => {
    expect(() => ntfyAdapter.parseSettings({ serverUrl: "https://ntfy.sh" })).toThrow(/topic/);
    expect(() => ntfyAdapter.parseSettings({ serverUrl: "https://ntfy.sh", topic: "a/b" })).toThrow(/topic/);
    expect(() => ntfyAdapter.parseSettings({ serverUrl: "https://ntfy.sh", topic: "a", tags: ["a,b"] })).toThrow(
      /tags/,
    );
    expect(ntfyAdapter.parseSettings({ serverUrl: "https://ntfy.sh", topic: "a" })).toEqual({
      serverUrl: "https://ntfy.sh/",
      topic: "a",
    });
  });
});
