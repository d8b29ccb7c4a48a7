import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { NotificationDto } from "../../src/notifications/types.js";
import { routeMatches } from "../../src/outbox/matching.js";
import type { OutboundRoute, ProviderProfile } from "../../src/outbox/types.js";
import { type Json, type TestBroker, testBroker } from "../helpers.js";
import { recordingServer } from "./webhook-server.js";

const UI = { "x-notify-ui": "1" };
const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});

async function server(script: (number | "hang")[] = []) {
  const created = await recordingServer(script);
  servers.push(created);
  return created;
}

/**
 * A broker whose dispatcher is driven by hand (runDue) against the manual clock. Attempts time out after 5 s (500 ms
 * was missed by a busy 2-core machine), except where a test is about the timeout.
 */
function manualBroker(attemptTimeoutMs = 5_000) {
  return testBroker({}, { dispatcher: { autoRun: false, random: () => 1, attemptTimeoutMs } });
}

async function setUp(
  broker: TestBroker,
  url: string,
  route: Record<string, unknown> = {},
  secrets?: Record<string, string>,
) {
  const provider = await broker.call(
    "POST",
    "/ui/api/outbound/providers",
    { kind: "webhook", name: "hook", settings: { url }, enabled: true, ...(secrets ? { secrets } : {}) },
    UI,
  );
  expect(provider.status).toBe(201);
  const created = await broker.call(
    "POST",
    "/ui/api/outbound/routes",
    { name: "all", provider: "hook", enabled: true, ...route },
    UI,
  );
  expect(created.status).toBe(201);
  return { provider: provider.body as Json, route: created.body as Json };
}

const notification = (extra: Partial<NotificationDto> = {}): NotificationDto => ({
  id: "ntf_1",
  agent: "Codex",
  type: "input_required",
  priority: "high",
  title: "t",
  message: "m",
  status: "active",
  createdAt: "x",
  updatedAt: "x",
  project: "Notify",
  ...extra,
});
const route = (extra: Partial<OutboundRoute> = {}): OutboundRoute => ({
  id: "r",
  name: "r",
  providerId: "p",
  enabled: true,
  minimumPriority: "low",
  includeMessage: true,
  createdAt: "x",
  updatedAt: "x",
  ...extra,
});
const provider = (enabled = true): ProviderProfile => ({
  id: "p",
  kind: "webhook",
  name: "p",
  settings: {},
  secretNames: [],
  enabled,
  createdAt: "x",
  updatedAt: "x",
});

describe("route matching (docs/outbound.md, 'Delivery rules', rule 2)", () => {
  it("needs the route and its provider enabled", () => {
    expect(routeMatches(route(), provider(), notification())).toBe(true);
    expect(routeMatches(route({ enabled: false }), provider(), notification())).toBe(false);
    expect(routeMatches(route(), provider(false), notification())).toBe(false);
    expect(routeMatches(route(), undefined, notification())).toBe(false);
  });

  it("priority >= MinimumPriority", () => {
    expect(routeMatches(route({ minimumPriority: "high" }), provider(), notification({ priority: "high" }))).toBe(true);
    expect(routeMatches(route({ minimumPriority: "high" }), provider(), notification({ priority: "critical" }))).toBe(
      true,
    );
    expect(routeMatches(route({ minimumPriority: "high" }), provider(), notification({ priority: "normal" }))).toBe(
      false,
    );
    expect(routeMatches(route({ minimumPriority: "critical" }), provider(), notification({ priority: "high" }))).toBe(
      false,
    );
  });

  it("TypeId equals the normalized type", () => {
    expect(routeMatches(route({ typeId: "input_required" }), provider(), notification())).toBe(true);
    expect(routeMatches(route({ typeId: "Input-Required" }), provider(), notification())).toBe(true);
    expect(routeMatches(route({ typeId: "error" }), provider(), notification())).toBe(false);
  });

  it("Project and Agent are trimmed and case-insensitive; unset matches anything, set needs a value", () => {
    expect(routeMatches(route({ project: " notify " }), provider(), notification())).toBe(true);
    expect(routeMatches(route({ agent: "CODEX" }), provider(), notification())).toBe(true);
    expect(routeMatches(route({ project: "other" }), provider(), notification())).toBe(false);
    expect(routeMatches(route({ agent: "claude" }), provider(), notification())).toBe(false);
    const { project: _project, ...withoutProject } = notification();
    expect(routeMatches(route({ project: "notify" }), provider(), withoutProject)).toBe(false);
  });
});

describe("outbox (docs/outbound.md, 'Delivery rules')", () => {
  it("creation enqueues one item per matching enabled route, delivers it, and never does network I/O inline", async () => {
    const broker = manualBroker();
    const hook = await server();
    await setUp(broker, hook.url, { minimumPriority: "normal" });
    const created = (await broker.call("POST", "/v1/notifications", { title: "Build done", message: "All green" }))
      .body as Json;
    await broker.call("POST", "/v1/notifications", { title: "quiet", message: "m", priority: "low" });
    expect(hook.received).toHaveLength(0); // nothing sent until the dispatcher runs
    const outbox = (await broker.call("GET", "/ui/api/outbound/outbox")).body as Json;
    expect(outbox.items).toHaveLength(1);
    expect(outbox.items[0]).toMatchObject({ notificationId: created.id, status: "Pending", attempts: 0 });
    expect(await broker.dispatcher.runDue()).toBe(1);
    expect(hook.received).toHaveLength(1);
    const sent = JSON.parse(hook.received[0]?.body ?? "{}");
    expect(sent.notification).toMatchObject({
      id: created.id,
      title: "Build done",
      message: "All green",
      priority: "normal",
    });
    expect(hook.received[0]?.headers["idempotency-key"]).toBe(outbox.items[0].idempotencyKey);
    const after = (await broker.call("GET", "/ui/api/outbound/outbox")).body as Json;
    expect(after.items[0]).toMatchObject({ status: "Delivered", attempts: 1, lastStatus: 200 });
    expect(after.counts).toEqual({ Delivered: 1 });
  });

  it("ARC events enqueue through the same path", async () => {
    const broker = manualBroker();
    const hook = await server();
    await setUp(broker, hook.url);
    const reply = await broker.call("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: "e1",
      event_type: "request.created",
      occurred_at: "2026-01-01T00:00:00Z",
      sender: { id: "codex" },
      request: { kind: "failure", message: "Tests failed" },
    });
    expect(reply.status).toBe(201);
    await broker.dispatcher.runDue();
    expect(JSON.parse(hook.received[0]?.body ?? "{}").notification).toMatchObject({
      message: "Tests failed",
      type: "error",
    });
  });

  it("a disabled provider or a non-matching route enqueues nothing and the API call still succeeds", async () => {
    const broker = manualBroker();
    const hook = await server();
    const { provider } = await setUp(broker, hook.url, { typeId: "error" });
    expect((await broker.call("POST", "/v1/notifications", { title: "t", message: "m" })).status).toBe(201);
    await broker.call("PATCH", `/ui/api/outbound/providers/${provider.id}`, { enabled: false }, UI);
    expect((await broker.call("POST", "/v1/notifications", { title: "t", message: "m", type: "error" })).status).toBe(
      201,
    );
    expect(((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).items).toHaveLength(0);
  });

  it("new provider profiles and routes start disabled", async () => {
    const broker = manualBroker();
    const hook = await server();
    const provider = (
      await broker.call(
        "POST",
        "/ui/api/outbound/providers",
        { kind: "webhook", name: "h", settings: { url: hook.url } },
        UI,
      )
    ).body as Json;
    const route = (await broker.call("POST", "/ui/api/outbound/routes", { name: "r", provider: "h" }, UI)).body as Json;
    expect(provider.enabled).toBe(false);
    expect(route.enabled).toBe(false);
    await broker.call("POST", "/v1/notifications", { title: "t", message: "m" });
    expect(((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).items).toHaveLength(0);
  });

  it("IncludeMessage false redacts the message: only the title leaves the machine", async () => {
    const broker = manualBroker();
    const hook = await server();
    await setUp(broker, hook.url, { includeMessage: false });
    await broker.call("POST", "/v1/notifications", { title: "Deploy?", message: "secret-plan-details" });
    await broker.dispatcher.runDue();
    expect(hook.received[0]?.body).not.toContain("secret-plan-details");
    expect(JSON.parse(hook.received[0]?.body ?? "{}").notification.title).toBe("Deploy?");
  });

  it("retries with jittered exponential backoff, then dead-letters after 6 attempts (injected clock)", async () => {
    const broker = manualBroker();
    const hook = await server([500, 503, 502, 500, 500, 500, 500]);
    await setUp(broker, hook.url);
    await broker.call("POST", "/v1/notifications", { title: "t", message: "m" });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      expect(await broker.dispatcher.runDue()).toBe(1);
      const item = ((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).items[0];
      expect(item.attempts).toBe(attempt);
      if (attempt < 6) {
        expect(item.status).toBe("Retry");
        expect(item.lastCode).toMatch(/^http_5\d\d$/);
        const delay = item.nextAttemptMs - broker.clock.now();
        delays.push(delay);
        // Not due before its time.
        broker.clock.advance(delay - 1);
        expect(await broker.dispatcher.runDue()).toBe(0);
        broker.clock.advance(1);
      } else {
        expect(item.status).toBe("DeadLetter");
      }
    }
    // random() = 1 gives the top of the jitter range: 2, 4, 8, 16, 32 s.
    expect(delays).toEqual([2000, 4000, 8000, 16000, 32000]);
    expect(hook.received).toHaveLength(6);
    expect(broker.lines.join("\n")).toMatch(/dead-lettered after 6 attempt\(s\): http_500 \(HTTP 500\)/);
    const dead = ((await broker.call("GET", "/ui/api/outbound/outbox?status=DeadLetter")).body as Json).items;
    expect(dead).toHaveLength(1);
    // Retry puts it back with a fresh budget.
    const retried = await broker.call("POST", `/ui/api/outbound/outbox/${dead[0].id}/retry`, undefined, UI);
    expect((retried.body as Json).status).toBe("Pending");
    hook.setScript([200]);
    await broker.dispatcher.runDue();
    expect(((await broker.call("GET", `/ui/api/outbound/outbox`)).body as Json).items[0].status).toBe("Delivered");
  });

  it("a final 4xx dead-letters at once; diagnostics are a status and a short code, never the provider's body", async () => {
    const broker = manualBroker();
    const hook = await server([400]);
    await setUp(broker, hook.url);
    await broker.call("POST", "/v1/notifications", { title: "t", message: "m" });
    await broker.dispatcher.runDue();
    const item = ((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).items[0];
    expect(item).toMatchObject({ status: "DeadLetter", attempts: 1, lastStatus: 400, lastCode: "http_400" });
    expect(JSON.stringify(item) + broker.lines.join("\n")).not.toContain("provider says");
  });

  it("an attempt that exceeds the per-attempt timeout fails with `timeout` and is retried", async () => {
    const broker = manualBroker(500);
    const hook = await server(["hang", 200]);
    await setUp(broker, hook.url);
    await broker.call("POST", "/v1/notifications", { title: "t", message: "m" });
    const started = Date.now();
    await broker.dispatcher.runDue();
    expect(Date.now() - started).toBeLessThan(3000);
    const item = ((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).items[0];
    expect(item).toMatchObject({ status: "Retry", lastCode: "timeout" });
  });

  it("connection refused is retryable with a short code", async () => {
    const broker = manualBroker();
    const hook = await server();
    const url = hook.url;
    await hook.close();
    servers.pop();
    await setUp(broker, url);
    await broker.call("POST", "/v1/notifications", { title: "t", message: "m" });
    await broker.dispatcher.runDue();
    expect(((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).items[0]).toMatchObject({
      status: "Retry",
      lastCode: "connection_refused",
    });
  });

  it("an unreadable secret gives provider_secrets_unreadable and dead-letters after bounded retries", async () => {
    const broker = manualBroker();
    const hook = await server();
    await setUp(broker, hook.url, {}, { signingSecret: "hmac-secret-value-123" });
    rmSync(join(broker.dataDir, "secret.key"));
    (broker.outbound as unknown as { sealer: { reset(): void } }).sealer.reset();
    await broker.call("POST", "/v1/notifications", { title: "t", message: "m" });
    for (let attempt = 1; attempt <= 6; attempt++) {
      await broker.dispatcher.runDue();
      broker.clock.advance(10 * 60_000);
    }
    const item = ((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).items[0];
    expect(item).toMatchObject({ status: "DeadLetter", attempts: 6, lastCode: "provider_secrets_unreadable" });
    expect(hook.received).toHaveLength(0);
  });

  it("secrets are write-only and sealed: never in responses, logs, the database or diagnostics", async () => {
    const broker = manualBroker();
    const hook = await server([500, 200]);
    const secret = "hmac-secret-value-abcdef-987";
    const { provider } = await setUp(broker, hook.url, {}, { signingSecret: secret });
    expect(provider.secretNames).toEqual(["signingSecret"]);
    const listed = await broker.call("GET", "/ui/api/outbound/providers");
    await broker.call("POST", "/v1/notifications", { title: "t", message: "m" });
    await broker.dispatcher.runDue();
    broker.clock.advance(60_000);
    await broker.dispatcher.runDue();
    const test = await broker.call("POST", `/ui/api/outbound/providers/${provider.id}/test`, undefined, UI);
    const outbox = await broker.call("GET", "/ui/api/outbound/outbox");
    for (const text of [listed.text, outbox.text, test.text, JSON.stringify(provider), broker.lines.join("\n")]) {
      expect(text).not.toContain(secret);
    }
    broker.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    for (const name of readdirSync(broker.dataDir)) {
      if (name === "secret.key") continue;
      const bytes = readFileSync(join(broker.dataDir, name));
      expect(bytes.includes(secret), name).toBe(false);
    }
    // The adapter did get it: the signature verifies.
    const { createHmac } = await import("node:crypto");
    const delivered = hook.received[1];
    expect(delivered?.headers["x-notify-signature"]).toBe(
      `sha256=${createHmac("sha256", secret)
        .update(delivered?.body ?? "")
        .digest("hex")}`,
    );
  });

  it("provider Test action sends the fixed payload through the same adapter with a fresh idempotency key", async () => {
    const broker = manualBroker();
    const hook = await server();
    const { provider } = await setUp(broker, hook.url);
    const first = await broker.call("POST", `/ui/api/outbound/providers/${provider.id}/test`, undefined, UI);
    const second = await broker.call("POST", `/ui/api/outbound/providers/${provider.id}/test`, undefined, UI);
    expect(first.body).toEqual({ ok: true, status: 200 });
    expect(second.status).toBe(200);
    expect(hook.received).toHaveLength(2);
    const bodies = hook.received.map((request) => JSON.parse(request.body));
    expect(bodies[0].notification).toMatchObject({ id: "ntf_test", title: "Notify test", test: true });
    expect(hook.received[0]?.body.length).toBeLessThan(1024);
    expect(hook.received[0]?.headers["idempotency-key"]).not.toBe(hook.received[1]?.headers["idempotency-key"]);
    expect(((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).items).toHaveLength(0);
  });
});

describe("/ui/api/outbound/kinds", () => {
  it("lists every registered provider kind with its secret names", async () => {
    const broker = manualBroker();
    const kinds = (await broker.call("GET", "/ui/api/outbound/kinds")).body as Json[];
    expect(kinds.map((kind) => kind.kind)).toEqual([
      "webhook",
      "ntfy",
      "gotify",
      "pushover",
      "slack",
      "slack_app",
      "discord",
      "telegram",
      "email",
      "relay",
      // A kind added since comes after the order the page and scripts have always seen.
      "discord_app",
    ]);
    expect(kinds[0]).toEqual({ kind: "webhook", secrets: { required: [], optional: ["signingSecret"] } });
  });
});

describe("/ui/api rules (docs/api.md, 'Web UI API: `/ui/api`')", () => {
  it("refuses a non-loopback Host and changes without X-Notify-UI: 1; needs a session or the bearer", async () => {
    const broker = manualBroker();
    // Beyond the spec: a page session or the bearer token (docs/security.md, "The web page's session").
    const anonymous = await broker.app.inject({
      method: "GET",
      url: "/ui/api/outbound/providers",
      headers: { host: "127.0.0.1:47821" },
    });
    expect(anonymous.statusCode).toBe(401);
    const authorization = `Bearer ${broker.settings.authToken}`;
    const list = await broker.app.inject({
      method: "GET",
      url: "/ui/api/outbound/providers",
      headers: { host: "127.0.0.1:47821", authorization },
    });
    expect(list.statusCode).toBe(200);
    for (const host of ["evil.example", "127.0.0.1.evil.example", "10.0.0.1:47821", "localhost.evil:80"]) {
      const reply = await broker.app.inject({
        method: "GET",
        url: "/ui/api/outbound/providers",
        headers: { host, authorization },
      });
      expect(reply.statusCode, host).toBe(403);
    }
    for (const host of ["localhost:47821", "[::1]:47821", "127.0.0.1"]) {
      const reply = await broker.app.inject({
        method: "GET",
        url: "/ui/api/outbound/providers",
        headers: { host, authorization },
      });
      expect(reply.statusCode, host).toBe(200);
    }
    const noHeader = await broker.app.inject({
      method: "POST",
      url: "/ui/api/outbound/providers",
      headers: { authorization },
      payload: { kind: "webhook", name: "x", settings: { url: "http://127.0.0.1:1/" } },
    });
    expect(noHeader.statusCode).toBe(403);
    expect(broker.outbound.listProfiles()).toHaveLength(0);
  });

  it("validates profiles and routes with clear 400s", async () => {
    const broker = manualBroker();
    const bad = async (url: string, body: unknown) => {
      const reply = await broker.call("POST", url, body, UI);
      expect(reply.status).toBe(400);
      return (reply.body as Json).error as string;
    };
    expect(await bad("/ui/api/outbound/providers", { kind: "carrier-pigeon", name: "x" })).toMatch(
      /kind must be one of/,
    );
    expect(
      await bad("/ui/api/outbound/providers", { kind: "webhook", name: "x", settings: { url: "ftp://x" } }),
    ).toMatch(/url/);
    expect(
      await bad("/ui/api/outbound/providers", { kind: "webhook", name: "x", settings: { url: "http://u:p@h/" } }),
    ).toMatch(/user info/);
    expect(
      await bad("/ui/api/outbound/providers", {
        kind: "webhook",
        name: "x",
        settings: { url: "http://h/" },
        secrets: { nope: "1" },
      }),
    ).toMatch(/unknown secret/);
    expect(await bad("/ui/api/outbound/routes", { name: "r", provider: "missing" })).toMatch(/provider must name/);
  });
});
