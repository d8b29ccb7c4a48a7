import { beforeEach, describe, expect, it } from "vitest";
import { slackAdapter } from "../../../src/outbox/providers/slack.js";
import { deliveryContext, expectNoSecrets, MESSAGE, samplePayload, titleOnly } from "./delivery-fixtures.js";
import { expectPost, jsonBody, loopbackHttpPerTest } from "./loopback-http.js";

const HOOK_PATH = "/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX";

describe("slack adapter (https://api.slack.com/messaging/webhooks)", () => {
  const server = loopbackHttpPerTest();
  let secrets: { webhookUrl: string };
  beforeEach(() => {
    secrets = { webhookUrl: `${server.origin}${HOOK_PATH}` };
  });

  it("POSTs {text, blocks} as JSON to the secret webhook URL", async () => {
    const result = await slackAdapter.send(samplePayload(), {}, secrets, deliveryContext());
    expect(result).toEqual({ ok: true, status: 200 });
    const [request] = server.requests;
    expectPost(request, HOOK_PATH);
    expect(jsonBody(request)).toEqual({
      text: `Build done\n${MESSAGE}`,
      blocks: [
        { type: "header", text: { type: "plain_text", text: "Build done" } },
        { type: "section", text: { type: "plain_text", text: MESSAGE } },
      ],
    });
    // The URL is the credential: no part of it may reach the result.
    expectNoSecrets(result, { path: HOOK_PATH });
  });

  it("escapes &, < and > in the mrkdwn text, and leaves the plain_text blocks as they are", async () => {
    await slackAdapter.send(
      samplePayload({ title: "a < b & c", message: "<!channel> x > y" }),
      {},
      secrets,
      deliveryContext(),
    );
    const body = jsonBody(server.requests[0]) as { text: string; blocks: { text: { text: string } }[] };
    expect(body.text).toBe("a &lt; b &amp; c\n&lt;!channel&gt; x &gt; y");
    expect(body.blocks[1]?.text.text).toBe("<!channel> x > y");
  });

  it("sends the title alone when the route leaves the message out (docs/outbound.md, 'Delivery rules', rule 3)", async () => {
    await slackAdapter.send(titleOnly(), {}, secrets, deliveryContext());
    expect(server.requests[0]?.body).not.toContain(MESSAGE);
    expect(jsonBody(server.requests[0])).toEqual({ text: "Build done" });
  });

  it("cuts the header to 150 and the section to 3000 characters (Block Kit limits)", async () => {
    await slackAdapter.send(
      samplePayload({ title: "t".repeat(200), message: "m".repeat(4000) }),
      {},
      secrets,
      deliveryContext(),
    );
    const body = jsonBody(server.requests[0]) as { text: string; blocks: { text: { text: string } }[] };
    expect(body.blocks[0]?.text.text).toHaveLength(150);
    expect(body.blocks[1]?.text.text).toHaveLength(3000);
    expect(body.text.length).toBeLessThanOrEqual(3000);
  });

  it("fails final with provider_secret_invalid for a webhook URL that is not http(s), naming nothing", async () => {
    const bad = { webhookUrl: "not a url hooks.slack.com/services/SECRET" };
    const result = await slackAdapter.send(samplePayload(), {}, bad, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "provider_secret_invalid" });
    expectNoSecrets(result, bad);
  });

  it("maps Slack's errors: 404 no_service is final, 429 retried after Retry-After", async () => {
    server.respond((_request, response) => response.writeHead(404).end("no_service"));
    const missing = await slackAdapter.send(samplePayload(), {}, secrets, deliveryContext());
    expect(missing).toEqual({ ok: false, retryable: false, code: "http_404", status: 404 });
    expectNoSecrets(missing, { path: HOOK_PATH });
    server.respond((_request, response) => response.writeHead(429, { "retry-after": "30" }).end());
    expect(await slackAdapter.send(samplePayload(), {}, secrets, deliveryContext())).toEqual({
      ok: false,
      retryable: true,
      code: "http_429",
      status: 429,
      retryAfterMs: 30_000,
    });
  });

  it("takes no settings; the URL is a secret", () => {
    expect(slackAdapter.parseSettings(undefined)).toEqual({});
    expect(() => slackAdapter.parseSettings({ webhookUrl: "https://hooks.slack.com/x" })).toThrow(/unknown/);
    expect(slackAdapter.secrets).toEqual({ required: ["webhookUrl"], optional: [] });
  });
});
