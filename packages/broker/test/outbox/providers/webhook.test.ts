import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { webhookAdapter } from "../../../src/outbox/providers/webhook.js";
import { deliveryContext, expectNoSecrets, MESSAGE, samplePayload, titleOnly } from "./delivery-fixtures.js";
import { closedPort, expectPost, jsonBody, loopbackHttpPerTest } from "./loopback-http.js";

const SECRETS = { signingSecret: "whsec-test-signing-secret-value" };

describe("webhook adapter (docs/outbound.md, webhook)", () => {
  const server = loopbackHttpPerTest();

  const settings = () => webhookAdapter.parseSettings({ url: `${server.origin}/hooks/notify?team=a` });

  it("POSTs {event, deliveryId, notification} as JSON with Idempotency-Key and an HMAC-SHA256 signature", async () => {
    const payload = samplePayload();
    const result = await webhookAdapter.send(payload, settings(), SECRETS, deliveryContext());
    expect(result).toEqual({ ok: true, status: 200 });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    const body = request?.body ?? "";
    // The signature is checked here independently of the adapter: HMAC-SHA256 over the exact body bytes.
    const signature = `sha256=${createHmac("sha256", SECRETS.signingSecret).update(body).digest("hex")}`;
    expectPost(request, "/hooks/notify?team=a", {
      "idempotency-key": "obx_00112233445566778899aabb",
      "x-notify-signature": signature,
    });
    expect(jsonBody(request)).toEqual({
      event: "notification",
      deliveryId: "obx_00112233445566778899aabb",
      notification: payload,
    });
    expectNoSecrets(result, SECRETS);
  });

  it("sends no signature header when no signing secret is set, and custom headers as given", async () => {
    const custom = webhookAdapter.parseSettings({ url: `${server.origin}/h`, headers: { "X-Team": "blue" } });
    await webhookAdapter.send(samplePayload(), custom, {}, deliveryContext());
    expect(server.requests[0]?.headers["x-notify-signature"]).toBeUndefined();
    expect(server.requests[0]?.headers["x-team"]).toBe("blue");
  });

  it("sends the title alone when the route leaves the message out (docs/outbound.md, 'Delivery rules', rule 3)", async () => {
    await webhookAdapter.send(titleOnly(), settings(), SECRETS, deliveryContext());
    const request = server.requests[0];
    expect(request?.body).not.toContain(MESSAGE);
    const body = jsonBody(request) as { notification: Record<string, unknown> };
    expect(body.notification.title).toBe("Build done");
    expect(body.notification).not.toHaveProperty("message");
  });

  it("sends text with controls as stored: a program reads it, not a person (docs/security.md)", async () => {
    const payload = samplePayload({ title: "Build\u202E done", message: "red\u001B[31m\r\n" });
    await webhookAdapter.send(payload, settings(), {}, deliveryContext());
    expect((jsonBody(server.requests[0]) as { notification: unknown }).notification).toEqual(payload);
  });

  it("does not follow redirects: a 302 is a final http_302 and the target is never asked", async () => {
    server.respond((request, response) => {
      if (request.url === "/elsewhere") {
        response.end("ok");
        return;
      }
      response.writeHead(302, { location: `${server.origin}/elsewhere` }).end();
    });
    const result = await webhookAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "http_302", status: 302 });
    expect(server.requests.map((request) => request.url)).toEqual(["/hooks/notify?team=a"]);
  });

  it("maps 5xx to retryable and 4xx to final, with Retry-After kept (docs/outbound.md, 'Delivery rules', rule 6)", async () => {
    server.respond((_request, response) => response.writeHead(503, { "retry-after": "7" }).end("busy"));
    expect(await webhookAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext())).toEqual({
      ok: false,
      retryable: true,
      code: "http_503",
      status: 503,
      retryAfterMs: 7000,
    });
    server.respond((_request, response) => response.writeHead(400).end(`bad ${SECRETS.signingSecret}`));
    const final = await webhookAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext());
    expect(final).toEqual({ ok: false, retryable: false, code: "http_400", status: 400 });
    // Response text is never read into the result, even when it echoes the secret.
    expectNoSecrets(final, SECRETS);
  });

  it("gives `timeout` when the attempt's AbortSignal fires before the answer", async () => {
    server.respond(() => {
      // Never answers.
    });
    const started = Date.now();
    const result = await webhookAdapter.send(
      samplePayload(),
      settings(),
      SECRETS,
      deliveryContext(AbortSignal.timeout(150)),
    );
    expect(result).toEqual({ ok: false, retryable: true, code: "timeout" });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("gives `connection_refused` when nothing listens", async () => {
    const port = await closedPort();
    const refused = webhookAdapter.parseSettings({ url: `http://127.0.0.1:${port}/h` });
    expect(await webhookAdapter.send(samplePayload(), refused, SECRETS, deliveryContext())).toEqual({
      ok: false,
      retryable: true,
      code: "connection_refused",
    });
  });

  it("rejects settings that would carry credentials or override adapter headers", () => {
    expect(() => webhookAdapter.parseSettings({ url: "http://user:pw@example.com/" })).toThrow(/user info/);
    expect(() => webhookAdapter.parseSettings({ url: "ftp://example.com/" })).toThrow(/http/);
    expect(() =>
      webhookAdapter.parseSettings({ url: "https://example.com/", headers: { Authorization: "Bearer x" } }),
    ).toThrow(/set by the adapter/);
    expect(() => webhookAdapter.parseSettings({ url: "https://example.com/", extra: 1 })).toThrow(/unknown/);
  });
});
