import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import type { ManualClock } from "../../src/domain/clock.js";
import { DATABASE_FILE_NAME } from "../../src/store/database.js";
import { type Json, type TestBroker, testBroker } from "../helpers.js";
import { hookServer, onCleanup, UI } from "../outbox/outbox-harness.js";

// Issue 24 items 1-3 (docs/routing.md): routing options stored on routes, the policy at enqueue, held rows released
// at their due time or on a presence change, and voided by the item's settle in the same transaction.

function broker(): TestBroker {
  return testBroker(
    {},
    {
      dispatcher: { autoRun: false, random: () => 1, attemptTimeoutMs: 2000 },
      attention: { timeZone: "UTC", startGraceMs: 3_600_000 },
    },
  );
}

const clockOf = (b: TestBroker) => (b as unknown as { clock: ManualClock }).clock;

async function hookWithRoute(b: TestBroker, url: string, route: Record<string, unknown>): Promise<Json> {
  const provider = await b.call(
    "POST",
    "/ui/api/outbound/providers",
    { kind: "webhook", name: "hook", settings: { url }, enabled: true },
    UI,
  );
  expect(provider.status).toBe(201);
  const created = await b.call("POST", "/ui/api/outbound/routes", { provider: "hook", enabled: true, ...route }, UI);
  expect(created.status).toBe(201);
  return created.body;
}

function file(b: TestBroker): DatabaseSync {
  const db = new DatabaseSync(join(b.dataDir, DATABASE_FILE_NAME), { readOnly: true });
  onCleanup(() => db.close());
  return db;
}

const routedStates = (b: TestBroker): string[] =>
  (file(b).prepare("SELECT state FROM routed_deliveries ORDER BY seq").all() as Json[]).map((row) => row.state);

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function post(b: TestBroker, body: Record<string, unknown> = {}): Promise<Json> {
  const reply = await b.call("POST", "/v1/notifications", { title: "Build", message: "m", ...body });
  expect(reply.status).toBeLessThan(300);
  return reply.body;
}

describe("route options (issue 24 item 1)", () => {
  it("are stored, read back, cleared with null, and kept across a reopen", async () => {
    const b = broker();
    const hook = await hookServer();
    const route = await hookWithRoute(b, hook.url, {
      name: "Phone",
      delay_seconds: 120,
      when: "away",
      quiet_hours: { start: "22:00", end: "07:00", allow_critical: true },
    });
    expect(route).toMatchObject({
      delay_seconds: 120,
      when: "away",
      quiet_hours: { start: "22:00", end: "07:00", allow_critical: true },
    });
    const patched: Json = await b.call(
      "PATCH",
      `/ui/api/outbound/routes/${route.id}`,
      { when: null, delay_seconds: 0 },
      UI,
    );
    expect(patched.status).toBe(200);
    expect(patched.body.when).toBeUndefined();
    expect(patched.body.delay_seconds).toBeUndefined();
    expect(patched.body.quiet_hours).toEqual({ start: "22:00", end: "07:00", allow_critical: true });
    const stored = file(b).prepare("SELECT routing FROM outbound_routes").get() as Json;
    expect(JSON.parse(stored.routing)).toEqual({ quiet_hours: { start: "22:00", end: "07:00", allow_critical: true } });
  });

  it("refuses a bad option with a message naming the field, and changes nothing", async () => {
    const b = broker();
    const hook = await hookServer();
    const route = await hookWithRoute(b, hook.url, { name: "Phone", delay_seconds: 30 });
    for (const [body, message] of [
      [{ delay_seconds: 1.5 }, "delay_seconds: must be a whole number of seconds"],
      [{ delay_seconds: 86_401 }, "delay_seconds: "],
      [{ when: "idle" }, "when: "],
      [{ quiet_hours: { start: "24:00", end: "07:00" } }, "quiet_hours.start: must be HH:MM, 00:00-23:59"],
      [{ quiet_hours: { start: "22:00", end: "07:00", days: [] } }, "quiet_hours.days: must name at least one day"],
    ] as const) {
      const reply = await b.call("PATCH", `/ui/api/outbound/routes/${route.id}`, body, UI);
      expect(reply.status).toBe(400);
      expect(JSON.stringify(reply.body)).toContain(message);
    }
    const [listed] = (await b.call("GET", "/ui/api/outbound/routes")).body as Json[];
    expect(listed.delay_seconds).toBe(30);
  });
});

describe("held deliveries (issue 24 items 2-3)", () => {
  it("a delayed route holds the item and sends it once at its due time", async () => {
    const b = broker();
    const hook = await hookServer();
    await hookWithRoute(b, hook.url, { name: "later", delay_seconds: 60 });
    const created = await post(b);
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(0);
    expect(routedStates(b)).toEqual(["held"]);
    clockOf(b).advance(59_999);
    b.attention.releaseDue();
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(0);
    clockOf(b).advance(1);
    b.attention.releaseDue();
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(1);
    expect(hook.received).toHaveLength(1);
    expect(JSON.parse(hook.received[0]?.body ?? "{}").notification.id).toBe(created.id);
    // Due again, released again: nothing more.
    clockOf(b).advance(60_000);
    b.attention.releaseDue();
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(0);
    expect(routedStates(b)).toEqual(["sent"]);
  });

  it("an item dismissed before its delay is never sent: its held row is void in the dismissing transaction", async () => {
    const b = broker();
    const hook = await hookServer();
    await hookWithRoute(b, hook.url, { name: "later", delay_seconds: 60 });
    const created = await post(b);
    await nextTurn();
    expect((await b.call("POST", `/v1/notifications/${created.id}/dismiss`)).status).toBeLessThan(300);
    await nextTurn();
    expect(routedStates(b)).toEqual(["void"]);
    clockOf(b).advance(120_000);
    b.attention.releaseDue();
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(0);
    expect(hook.received).toHaveLength(0);
  });

  it("a route without options still goes at once, through the marker", async () => {
    const b = broker();
    const hook = await hookServer();
    await hookWithRoute(b, hook.url, { name: "now" });
    await post(b);
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(1);
    expect(routedStates(b)).toEqual([]);
  });

  it("when: away holds while present and sends the moment the person goes away", async () => {
    const b = broker();
    const hook = await hookServer();
    await hookWithRoute(b, hook.url, { name: "away", when: "away" });
    b.presence.report({ name: "screensaver", state: "present", detail: "test" });
    await post(b);
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(0);
    expect(routedStates(b)).toEqual(["held"]);
    b.presence.report({ name: "screensaver", state: "away", detail: "test", locked: true });
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(1);
    const row = file(b).prepare("SELECT state, reason, presence FROM routed_deliveries").get() as Json;
    expect(row).toEqual({ state: "sent", reason: "presence", presence: "away" });
  });

  it("when: away delivers at once while away", async () => {
    const b = broker();
    const hook = await hookServer();
    await hookWithRoute(b, hook.url, { name: "away", when: "away", delay_seconds: 300 });
    b.presence.report({ name: "screensaver", state: "away", detail: "test", locked: true });
    await post(b);
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(1);
  });

  it("quiet hours hold an item until the window ends; a critical one goes through when allowed", async () => {
    const b = broker();
    const hook = await hookServer();
    // The manual clock starts at 2026-01-01T00:00Z, inside 22:00-07:00 UTC.
    await hookWithRoute(b, hook.url, {
      name: "night",
      quiet_hours: { start: "22:00", end: "07:00", allow_critical: true },
    });
    await post(b, { priority: "normal" });
    await post(b, { priority: "critical", title: "Prod down" });
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(1);
    expect(JSON.parse(hook.received[0]?.body ?? "{}").notification.title).toBe("Prod down");
    clockOf(b).advance(7 * 3_600_000);
    b.attention.releaseDue();
    await nextTurn();
    expect(await b.dispatcher.runDue()).toBe(1);
    expect(JSON.parse(hook.received[1]?.body ?? "{}").notification.title).toBe("Build");
  });
});
