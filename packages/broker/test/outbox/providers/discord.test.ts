import { beforeEach, describe, expect, it } from "vitest";
import { discordAdapter } from "../../../src/outbox/providers/discord.js";
import { deliveryContext, expectNoSecrets, MESSAGE, samplePayload, titleOnly } from "./delivery-fixtures.js";
import { expectPost, jsonBody, loopbackHttpPerTest, requestsAtEachPriority } from "./loopback-http.js";

const HOOK_PATH = "/api/webhooks/123456789012345678/discordWebhookTokenValue_abc-DEF";

describe("discord adapter (https://discord.com/developers/docs/resources/webhook#execute-webhook)", () => {
  const server = loopbackHttpPerTest();
  let secrets: { webhookUrl: string };
  beforeEach(() => {
    secrets = { webhookUrl: `${server.origin}${HOOK_PATH}` };
  });

  it("POSTs {embeds: [{title, description, color, timestamp}], allowed_mentions} to the secret webhook URL", async () => {
    server.respond((_request, response) => response.writeHead(204).end());
    const result = await discordAdapter.send(samplePayload({ priority: "critical" }), {}, secrets, deliveryContext());
    expect(result).toEqual({ ok: true, status: 204 });
    const [request] = server.requests;
    expectPost(request, HOOK_PATH);
    expect(jsonBody(request)).toEqual({
      embeds: [{ title: "Build done", description: MESSAGE, color: 0xe74c3c, timestamp: "2026-03-04T10:11:12.000Z" }],
      // Agent text can never ping @everyone, a role or a user.
      allowed_mentions: { parse: [] },
    });
    expectNoSecrets(result, { path: HOOK_PATH });
  });

  it("adds ?wait=true when `wait` is set, keeping a thread_id already in the URL", async () => {
    const threaded = { webhookUrl: `${server.origin}${HOOK_PATH}?thread_id=99` };
    await discordAdapter.send(
      samplePayload(),
      discordAdapter.parseSettings({ wait: true }),
      threaded,
      deliveryContext(),
    );
    expect(server.requests[0]?.url).toBe(`${HOOK_PATH}?thread_id=99&wait=true`);
  });

  it("colours embeds by priority", async () => {
    const requests = await requestsAtEachPriority(server, (payload) =>
      discordAdapter.send(payload, {}, secrets, deliveryContext()),
    );
    expect(requests.map((request) => (jsonBody(request) as { embeds: { color: number }[] }).embeds[0]?.color)).toEqual([
      0x95a5a6, 0x3498db, 0xe67e22, 0xe74c3c,
    ]);
  });

  it("sends the title alone, with no description, when the route leaves the message out (docs/outbound.md, 'Delivery rules', rule 3)", async () => {
    await discordAdapter.send(titleOnly(), {}, secrets, deliveryContext());
    expect(server.requests[0]?.body).not.toContain(MESSAGE);
    expect((jsonBody(server.requests[0]) as { embeds: object[] }).embeds[0]).toEqual({
      title: "Build done",
      color: 0x3498db,
      timestamp: "2026-03-04T10:11:12.000Z",
    });
  });

  it("cuts the embed title to 256 and the description to 4096 characters", async () => {
    await discordAdapter.send(
      samplePayload({ title: "t".repeat(300), message: "m".repeat(5000) }),
      {},
      secrets,
      deliveryContext(),
    );
    const embed = (jsonBody(server.requests[0]) as { embeds: { title: string; description: string }[] }).embeds[0];
    expect(embed?.title).toHaveLength(256);
    expect(embed?.description).toHaveLength(4096);
  });

  it("honours a 429's retry_after from the JSON body (seconds, fractional)", async () => {
    server.respond((_request, response) =>
      response
        .writeHead(429, { "content-type": "application/json" })
        .end(JSON.stringify({ message: "You are being rate limited.", retry_after: 1.5, global: false })),
    );
    expect(await discordAdapter.send(samplePayload(), {}, secrets, deliveryContext())).toEqual({
      ok: false,
      retryable: true,
      code: "http_429",
      status: 429,
      retryAfterMs: 1500,
    });
  });

  it("falls back to the Retry-After header when the 429 body has no retry_after", async () => {
    server.respond((_request, response) => response.writeHead(429, { "retry-after": "3" }).end("not json"));
    expect(await discordAdapter.send(samplePayload(), {}, secrets, deliveryContext())).toMatchObject({
      code: "http_429",
      retryAfterMs: 3000,
    });
  });

  it("fails final with provider_secret_invalid for a bad webhook URL, and 404 (deleted webhook) is final", async () => {
    const bad = { webhookUrl: "discord.com/api/webhooks/1/secret-token" };
    const invalidResult = await discordAdapter.send(samplePayload(), {}, bad, deliveryContext());
    expect(invalidResult).toEqual({ ok: false, retryable: false, code: "provider_secret_invalid" });
    expectNoSecrets(invalidResult, bad);
    server.respond((_request, response) => response.writeHead(404).end('{"message":"Unknown Webhook","code":10015}'));
    expect(await discordAdapter.send(samplePayload(), {}, secrets, deliveryContext())).toEqual({
      ok: false,
      retryable: false,
      code: "http_404",
      status: 404,
    });
  });

  it("checks settings", () => {
    expect(discordAdapter.parseSettings({})).toEqual({});
    expect(() => discordAdapter.parseSettings({ wait: "yes" })).toThrow(/wait/);
  });
});
