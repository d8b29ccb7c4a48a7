import { describe, expect, it } from "vitest";
import { transaction } from "../../src/store/database.js";
import { MIGRATIONS, migrate } from "../../src/store/migrations.js";
import { SqliteOutboxStore } from "../../src/store/outbox-store.js";
import { type Json, type TestBroker, testBroker } from "../helpers.js";
import { databaseAt, hookRoutes, hookServer, manualBroker, UI } from "./outbox-harness.js";

async function oneRoute(broker: TestBroker, url: string): Promise<void> {
  await hookRoutes(broker, url, [{ name: "all" }]);
}

const titlesSent = (received: { body: string }[]): string[] =>
  received.map((request) => JSON.parse(request.body).notification.title);

describe("outbox store (migration 4: rowid cursor)", () => {
  it("delivers in creation order, and a retried dead letter behind the cursor is sent again", async () => {
    const broker = manualBroker();
    const hook = await hookServer([400]); // the first attempt fails for good: a dead letter
    await oneRoute(broker, hook.url);
    broker.notifications.create({ agent: "a", type: "info", title: "one", message: "m" });
    await broker.dispatcher.runDue();
    for (const title of ["two", "three", "four"]) {
      broker.notifications.create({ agent: "a", type: "info", title, message: "m" });
    }
    expect(await broker.dispatcher.runDue()).toBe(3);
    expect(titlesSent(hook.received)).toEqual(["one", "two", "three", "four"]);

    const dead = (await broker.call("GET", "/ui/api/outbound/outbox?status=DeadLetter")).body as Json;
    expect(dead.items).toHaveLength(1);
    const id = dead.items[0].id as string;
    expect(id).toMatch(/^obx_[0-9a-f]{16}[0-9a-z]{6,}$/);
    expect((await broker.call("POST", `/ui/api/outbound/outbox/${id}/retry`, undefined, UI)).status).toBe(200);
    expect(await broker.dispatcher.runDue()).toBe(1);
    expect(titlesSent(hook.received)).toEqual(["one", "two", "three", "four", "one"]);
    const all = (await broker.call("GET", "/ui/api/outbound/outbox")).body as Json;
    expect(all.counts).toEqual({ Delivered: 4 });
    expect(all.items.map((item: Json) => item.payload.title)).toEqual(["four", "three", "two", "one"]); // newest first
  });

  it("reads only committed rows: an enqueue rolled back with its unit is never sent, and the rowid it freed is", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    await oneRoute(broker, hook.url);
    let pumped: Promise<number> | undefined;
    // One event-loop turn, one group-commit batch: A commits; B's unit enqueues, the dispatcher is asked to run
    // while B's row exists uncommitted, then B rolls back; C reuses B's rowid.
    broker.notifications.create({ agent: "a", type: "info", title: "A", message: "m" });
    expect(() =>
      transaction(broker.db, () => {
        broker.notifications.create({ agent: "a", type: "info", title: "B", message: "m" });
        pumped = broker.dispatcher.runDue();
        throw new Error("unit fails after its enqueue");
      }),
    ).toThrow("unit fails");
    broker.notifications.create({ agent: "a", type: "info", title: "C", message: "m" });
    await pumped;
    await broker.dispatcher.runDue();
    expect(titlesSent(hook.received).sort()).toEqual(["A", "C"]);
    const outbox = (await broker.call("GET", "/ui/api/outbound/outbox")).body as Json;
    expect(outbox.counts).toEqual({ Delivered: 2 });
  });

  it("a restarted dispatcher starts from the first Pending row, not from the end", async () => {
    const broker = manualBroker();
    const hook = await hookServer(["hang", "hang"]);
    await oneRoute(broker, hook.url);
    for (const title of ["p1", "p2", "p3"])
      broker.notifications.create({ agent: "a", type: "info", title, message: "m" });
    const running = broker.dispatcher.runDue();
    // p3 is answered and recorded; p1 and p2 hang.
    const delivered = async () => ((await broker.call("GET", "/ui/api/outbound/outbox")).body as Json).counts.Delivered;
    while (hook.received.length < 3 || (await delivered()) !== 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The stop aborts p1 and p2 unrecorded, so they stay Pending behind the cursor.
    await broker.dispatcher.stop();
    await running;
    let outbox = (await broker.call("GET", "/ui/api/outbound/outbox")).body as Json;
    expect(outbox.counts).toEqual({ Delivered: 1, Pending: 2 });
    broker.dispatcher.start();
    broker.notifications.create({ agent: "a", type: "info", title: "p4", message: "m" });
    expect(await broker.dispatcher.runDue()).toBe(3);
    outbox = (await broker.call("GET", "/ui/api/outbound/outbox")).body as Json;
    expect(outbox.counts).toEqual({ Delivered: 4 });
    expect(titlesSent(hook.received.slice(3))).toEqual(["p1", "p2", "p4"]);
  });

  it("migrates a version-3 outbox: rows keep their order, status and times, and reference the notification row", () => {
    const db = databaseAt(3);
    const insertItem = db.prepare(`INSERT INTO outbox (id, notification_id, route_id, provider_id, include_message,
      status, attempts, next_attempt_ms, last_status, last_code, created_at, updated_at, delivered_at)
      VALUES (?, ?, 'rte_1', 'prv_1', ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    insertItem.run(
      "obx_x2",
      "ntf_bbb",
      1,
      "DeadLetter",
      6,
      0,
      500,
      "http_500",
      "2026-11-01T10:00:01.250Z",
      "2026-11-01T10:05:00.000Z",
      null,
    );
    insertItem.run(
      "obx_x1",
      "ntf_aaa",
      0,
      "Delivered",
      1,
      0,
      200,
      null,
      "2026-11-01T10:00:00.500Z",
      "2026-11-01T10:00:02.000Z",
      "2026-11-01T10:00:02.000Z",
    );
    migrate(db);
    expect(db.prepare("PRAGMA user_version").get()).toEqual({ user_version: MIGRATIONS.length });
    const store = new SqliteOutboxStore(db);
    const items = store.list({ limit: 10 }).reverse(); // oldest first
    expect(
      items.map((item) => [(item as { notificationId?: string }).notificationId, item.status, item.attempts]),
    ).toEqual([
      ["ntf_aaa", "Delivered", 1],
      ["ntf_bbb", "DeadLetter", 6],
    ]);
    expect(items[0]).toMatchObject({
      createdAt: "2026-11-01T10:00:00.500Z",
      deliveredAt: "2026-11-01T10:00:02.000Z",
      lastStatus: 200,
    });
    expect(items[0]?.payload.message).toBeUndefined(); // include_message 0 kept
    expect(items[1]).toMatchObject({ lastCode: "http_500", updatedAt: "2026-11-01T10:05:00.000Z" });
    expect(items[1]?.payload).toMatchObject({ title: "second", message: "m" });
    expect(
      store
        .list({ status: "DeadLetter", limit: 10 })
        .map((item) => (item as { notificationId?: string }).notificationId),
    ).toEqual(["ntf_bbb"]);
    // Ids round-trip, and ids of another form are unknown rather than mistaken for a row.
    const id = items[1]?.id as string;
    expect((store.byId(id) as { notificationId?: string } | undefined)?.notificationId).toBe("ntf_bbb");
    expect(store.byId("obx_x2")).toBeUndefined();
    expect(store.byId(`${id}0`)).toBeUndefined();
  });
});

describe("dispatcher load policy (docs/outbound.md)", () => {
  it("under a burst of API requests it trickles one attempt at a time; with the API quiet it drains at full speed", async () => {
    let apiRequests = 0;
    const broker = testBroker({}, { dispatcher: { apiRequests: () => apiRequests } });
    const hook = await hookServer();
    await oneRoute(broker, hook.url);
    // More than 50 API requests per 100 ms sample, for as long as the burst lasts.
    const burst = setInterval(() => {
      apiRequests += 100;
    }, 5);
    try {
      apiRequests += 100;
      for (let index = 0; index < 30; index++) {
        broker.notifications.create({ agent: "a", type: "info", title: `n${index}`, message: "m" });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      // At least 20 ms apart while busy: about 10 in 200 ms (8 at once, all 30 within a few ms, when not busy).
      expect(hook.received.length).toBeGreaterThan(0);
      expect(hook.received.length).toBeLessThanOrEqual(15);
    } finally {
      clearInterval(burst);
    }
    const quietSince = performance.now();
    while (hook.received.length < 30 && performance.now() - quietSince < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(hook.received.length).toBe(30);
    // Full speed again within a sample or two, not 20 ms per item for the 15+ left.
    expect(performance.now() - quietSince).toBeLessThan(2_000);
  });
});
