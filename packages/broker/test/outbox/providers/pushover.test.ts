import { describe, expect, it } from "vitest";
import { PUSHOVER_API_URL, pushoverAdapter } from "../../../src/outbox/providers/pushover.js";
import { deliveryContext, expectNoSecrets, MESSAGE, samplePayload, titleOnly } from "./delivery-fixtures.js";
import { expectPost, loopbackHttpPerTest, requestsAtEachPriority } from "./loopback-http.js";

const SECRETS = { apiToken: "azGDORePK8gMaC0QOYAMyEEuzJnyUi", userKey: "uQiRzpo4DXghDmr9QzzfQu27cmVRsG" };

const form = (body: string | undefined) => Object.fromEntries(new URLSearchParams(body ?? ""));

describe("pushover adapter (https://pushover.net/api)", () => {
  const server = loopbackHttpPerTest();

  const settings = (extra: Record<string, unknown> = {}) =>
    pushoverAdapter.parseSettings({ apiUrl: `${server.origin}/1/messages.json`, ...extra });

  it("POSTs form fields token, user, title, message, priority, timestamp, url to /1/messages.json", async () => {
    const result = await pushoverAdapter.send(
      samplePayload({ priority: "high" }),
      settings({ clickUrl: "https://ci.example.com/run/7", device: "phone" }),
      SECRETS,
      deliveryContext(),
    );
    expect(result).toEqual({ ok: true, status: 200 });
    const [request] = server.requests;
    expectPost(request, "/1/messages.json", {}, "application/x-www-form-urlencoded");
    expect(form(request?.body)).toEqual({
      token: SECRETS.apiToken,
      user: SECRETS.userKey,
      title: "Build done",
      message: MESSAGE,
      priority: "1",
      timestamp: String(Date.parse("2026-03-04T10:11:12.000Z") / 1000),
      url: "https://ci.example.com/run/7",
      device: "phone",
    });
    expectNoSecrets(result, SECRETS);
  });

  it("defaults to the real API URL", () => {
    expect(pushoverAdapter.parseSettings({})).toEqual({ apiUrl: PUSHOVER_API_URL });
    expect(PUSHOVER_API_URL).toBe("https://api.pushover.net/1/messages.json");
  });

  it("maps low/normal/high/critical to -1/0/1/1 (critical is not emergency priority 2)", async () => {
    const requests = await requestsAtEachPriority(server, (payload) =>
      pushoverAdapter.send(payload, settings(), SECRETS, deliveryContext()),
    );
    expect(requests.map((request) => form(request.body).priority)).toEqual(["-1", "0", "1", "1"]);
    // Emergency priority would need retry and expire; none is ever sent.
    expect(requests.every((request) => !("retry" in form(request.body)))).toBe(true);
  });

  it("sends the title alone as the required message when the route leaves the message out (docs/outbound.md, 'Delivery rules', rule 3)", async () => {
    await pushoverAdapter.send(titleOnly(), settings(), SECRETS, deliveryContext());
    const fields = form(server.requests[0]?.body);
    expect(Object.values(fields).join("\n")).not.toContain(MESSAGE);
    expect(fields.message).toBe("Build done");
    expect(fields).not.toHaveProperty("title");
  });

  it("cuts title and message to Pushover's 250 and 1024 characters", async () => {
    await pushoverAdapter.send(
      samplePayload({ title: "😀".repeat(300), message: "😀".repeat(2000) }),
      settings(),
      SECRETS,
      deliveryContext(),
    );
    const fields = form(server.requests[0]?.body);
    expect(Array.from(fields.title ?? "")).toHaveLength(250);
    expect(Array.from(fields.message ?? "")).toHaveLength(1024);
  });

  it("treats a 4xx (invalid token or user) as final and keeps secrets out of the result", async () => {
    server.respond((_request, response) =>
      response.writeHead(400).end(`{"token":"invalid","user":"${SECRETS.userKey}","status":0}`),
    );
    const result = await pushoverAdapter.send(samplePayload(), settings(), SECRETS, deliveryContext());
    expect(result).toEqual({ ok: false, retryable: false, code: "http_400", status: 400 });
    expectNoSecrets(result, SECRETS);
  });

  it("checks settings", () => {
    expect(() => pushoverAdapter.parseSettings({ clickUrl: `https://e.com/${"a".repeat(600)}` })).toThrow(/512/);
    expect(() => pushoverAdapter.parseSettings({ device: "my phone" })).toThrow(/device/);
    expect(pushoverAdapter.secrets.required).toEqual(["apiToken", "userKey"]);
  });
});
