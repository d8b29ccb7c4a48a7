import { describe, expect, it } from "vitest";
import { gotifyAdapter } from "../../../src/outbox/providers/gotify.js";
import { deliveryContext, expectNoSecrets, MESSAGE, samplePayload, titleOnly } from "./delivery-fixtures.js";
import { expectPost, jsonBody, loopbackHttpPerTest, requestsAtEachPriority } from "./loopback-http.js";

const SECRETS = { appToken: "AgotifyAppToken.123" };

describe("gotify adapter (https://gotify.net/api-docs, POST /message)", () => {
  const server = loopbackHttpPerTest();

  const settings = (extra: Record<string, unknown> = {}) =>
    gotifyAdapter.parseSettings({ serverUrl: server.origin, ...extra });

  it("POSTs {title, message, priority, extras} to /message with the app token in X-Gotify-Key", async () => {
    const result = await gotifyAdapter.send(
      samplePayload({ priority: "critical" }),
      settings({ clickUrl: "https://ci.example.com/run/7" }),
      SECRETS,
      deliveryContext(),
    );
    expect(result).toEqual({ ok: true, status: 200 });
    const [request] = server.requests;
    // The token goes in a header, never in `?token=`, so it stays out of access logs.
    expectPost(request, "/message", { "x-gotify-key": SECRETS.appToken });
    expect(jsonBody(request)).toEqual({
      title: "Build done",
      message: MESSAGE,
      priority: 10,
      extras: { "client::notification": { click: { url: "https://ci.example.com/run/7" } } },
    });
    expectNoSecrets(result, SECRETS);
  });

  it("keeps a path prefix (Gotify behind a reverse proxy) and sends no extras without a clickUrl", async () => {
    await gotifyAdapter.send(
      samplePayload(),
      settings({ serverUrl: `${server.origin}/gotify` }),
      SECRETS,
      deliveryContext(),
    );
    expect(server.requests[0]?.url).toBe("/gotify/message");
    expect(jsonBody(server.requests[0])).not.toHaveProperty("extras");
  });

  it("maps low/normal/high/critical to Gotify priorities 2/5/8/10", async () => {
    const requests = await requestsAtEachPriority(server, (payload) =>
      gotifyAdapter.send(payload, settings(), SECRETS, deliveryContext()),
    );
    expect(requests.map((request) => (jsonBody(request) as { priority: number }).priority)).toEqual([2, 5, 8, 10]);
  });

  it("sends the title alone as the required message when the route leaves the message out (docs/outbound.md, 'Delivery rules', rule 3)", async () => {
    await gotifyAdapter.send(titleOnly(), settings(), SECRETS, deliveryContext());
    expect(server.requests[0]?.body).not.toContain(MESSAGE);
    expect(jsonBody(server.requests[0])).toEqual({ message: "Build done", priority: 5 });
  });

  it("bounds the message and title", async () => {
    await gotifyAdapter.send(
      samplePayload({ title: "t".repeat(500), message: "m".repeat(10_000) }),
      settings(),
      SECRETS,
      deliveryContext(),
    );
    const body = jsonBody(server.requests[0]) as { title: string; message: string };
    expect(body.title.length).toBe(200);
    expect(body.message.length).toBe(4000);
  });

  it("gives a final http_401 for a wrong token without echoing it", async () => {
    server.respond((_request, response) => response.writeHead(401).end(`{"error":"${SECRETS.appToken}"}`));
    const result = await gotifyAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "http_401", status: 401 });
    expectNoSecrets(result, SECRETS);
  });

  it("fails final with provider_secret_invalid for a token that cannot be a header value", async () => {
    const bad = { appToken: "tok\r\nX-Injected: 1" };
    const result = await gotifyAdapter.send(samplePayload(), settings(), bad, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "provider_secret_invalid" });
    expectNoSecrets(result, bad);
    expect(server.requests).toHaveLength(0);
  });

  it("checks settings", () => {
    expect(() => gotifyAdapter.parseSettings({})).toThrow(/serverUrl/);
    expect(() => gotifyAdapter.parseSettings({ serverUrl: "https://g.example.com", token: "x" })).toThrow(/unknown/);
    expect(gotifyAdapter.secrets).toEqual({ required: ["appToken"], optional: [] });
  });
});
