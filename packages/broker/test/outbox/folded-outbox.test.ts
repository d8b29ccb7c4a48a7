import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { DATABASE_FILE_NAME, transaction } from "../../src/store/database.js";
import { MIGRATIONS, migrate } from "../../src/store/migrations.js";
import { EXPAND_CHUNK } from "../../src/store/outbox-expansion.js";
import { decodeMarker, encodeMarker } from "../../src/store/outbox-marker.js";
import { SqliteOutboxStore } from "../../src/store/outbox-store.js";
import { type Json, type TestBroker, testBroker } from "../helpers.js";
import { databaseAt, hookRoutes, hookServer, manualBroker, onCleanup } from "./outbox-harness.js";

// The folded outbox (migration 5, docs/outbound.md "Storage"): a new notification's routes are a marker in its own
// row, expanded into per-route outbox rows by the dispatcher and before every outbox read.

/** Three enabled routes to one webhook provider; the second leaves the message out. Returns route ids. */
const threeRoutes = (broker: TestBroker, url: string): Promise<string[]> =>
  hookRoutes(broker, url, [
    { name: "r0", includeMessage: true },
    { name: "r1", includeMessage: false },
    { name: "r2", includeMessage: true },
  ]);

/** A second connection to the broker's SQLite file: what is durably there, not what the broker's reads expand. */
function file(broker: TestBroker): DatabaseSync {
  const db = new DatabaseSync(join(broker.dataDir, DATABASE_FILE_NAME), { readOnly: true });
  onCleanup(() => db.close());
  return db;
}

const outboxRows = (db: DatabaseSync): number => (db.prepare("SELECT count(*) AS n FROM outbox").get() as Json).n;
const expandedThrough = (db: DatabaseSync): number =>
  (db.prepare("SELECT expanded_through FROM outbox_meta").get() as Json).expanded_through;

async function post(broker: TestBroker, body: Record<string, unknown>): Promise<Json> {
  const reply = await broker.call("POST", "/v1/notifications", { message: "m", ...body });
  expect(reply.status).toBeLessThan(300);
  return reply.body;
}

const outbox = async (broker: TestBroker, query = ""): Promise<Json> =>
  (await broker.call("GET", `/ui/api/outbound/outbox${query}`)).body;

/** One event-loop turn: the group commit of the turn's units has run. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Polls every 10 ms until `done` or 20 s (a deadline a busy 2-core machine meets; the test then asserts). */
async function settle(done: () => boolean | Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 20_000; !(await done()) && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("folded outbox (migration 5)", () => {
  it("a create with 3 matching routes shows 3 Pending items in the outbox list as soon as it returns, and they are delivered", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    const routes = await threeRoutes(broker, hook.url);
    const created = await post(broker, { title: "Build done", message: "All green" });
    // The dispatcher has not run: the list itself shows the items (the store's list, then the HTTP read).
    expect(
      broker.outbox
        .list({ status: "Pending", limit: 10 })
        .map((item) => (item as { notificationId?: string }).notificationId),
    ).toEqual([created.id, created.id, created.id]);
    const listed = await outbox(broker);
    expect(listed.counts).toEqual({ Pending: 3 });
    expect(
      listed.items.map((item: Json) => [
        (item as { notificationId?: string }).notificationId,
        item.status,
        item.attempts,
      ]),
    ).toEqual([
      [created.id, "Pending", 0],
      [created.id, "Pending", 0],
      [created.id, "Pending", 0],
    ]);
    expect(listed.items.map((item: Json) => item.routeId).sort()).toEqual([...routes].sort());
    expect(listed.items[0].createdAt).toBe(created.createdAt);
    expect(hook.received).toHaveLength(0);

    expect(await broker.dispatcher.runDue()).toBe(3);
    expect((await outbox(broker)).counts).toEqual({ Delivered: 3 });
    const sent = hook.received.map((request) => JSON.parse(request.body));
    expect(sent.map((body) => body.notification.id)).toEqual([created.id, created.id, created.id]);
    // IncludeMessage survives the marker: the second route's request has no message.
    expect(sent.map((body) => body.notification.message)).toEqual(["All green", undefined, "All green"]);
    expect(new Set(hook.received.map((request) => request.headers["idempotency-key"]))).toEqual(
      new Set(listed.items.map((item: Json) => item.id)),
    );
  });

  it("the notification's INSERT carries the marker; no outbox row exists until the marker is expanded", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    const before = await post(broker, { title: "before any route" });
    const routes = await threeRoutes(broker, hook.url);
    const providerId = broker.outbound.findProfile("hook")?.id;
    const created = await post(broker, { title: "t" });
    const db = file(broker);
    const rows = db.prepare("SELECT id, seq, outbound FROM notifications ORDER BY seq").all() as Json[];
    expect(rows.map((row) => row.id)).toEqual([before.id, created.id]);
    expect(rows[0].outbound).toBeNull();
    expect(decodeMarker(rows[1].outbound)).toEqual(
      routes.map((id, index) => ({ includeMessage: index !== 1, id, providerId })),
    );
    expect(rows[1].outbound.length).toBeLessThan(80); // 3 routes to one provider: compact
    // The create wrote no outbox row: the marker is the durable record.
    expect(outboxRows(db)).toBe(0);
    expect(expandedThrough(db)).toBeLessThan(rows[1].seq);

    expect((await outbox(broker)).counts).toEqual({ Pending: 3 });
    await nextTurn();
    expect(outboxRows(db)).toBe(3);
    expect(expandedThrough(db)).toBe(rows[1].seq);
  });

  it("a unit rolled back with its notification never gets items; the notification that reuses its row does", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    await threeRoutes(broker, hook.url);
    await post(broker, { title: "A" });
    const seqOf = (id: string) => (broker.db.prepare("SELECT seq FROM notifications WHERE id = ?").get(id) as Json).seq;
    let pumped: Promise<number> | undefined;
    let rowOfB = 0;
    expect(() =>
      transaction(broker.db, () => {
        const b = broker.notifications.create({ agent: "a", type: "info", title: "B", message: "m" });
        rowOfB = seqOf(b.notification.id);
        // A read inside the unit expands committed markers only: B's row may still roll back.
        expect(broker.outbox.list({ limit: 10 }).map((item) => item.payload.title)).toEqual(["A", "A", "A"]);
        pumped = broker.dispatcher.runDue();
        throw new Error("unit fails after its create");
      }),
    ).toThrow("unit fails");
    const c = broker.notifications.create({ agent: "a", type: "info", title: "C", message: "m" });
    expect(seqOf(c.notification.id)).toBe(rowOfB); // B's rowid, reused
    await pumped;
    await broker.dispatcher.runDue();
    const titles = hook.received.map((request) => JSON.parse(request.body).notification.title);
    expect(titles.sort()).toEqual(["A", "A", "A", "C", "C", "C"]);
    const listed = await outbox(broker);
    expect(listed.counts).toEqual({ Delivered: 6 });
    expect(listed.items.map((item: Json) => item.payload.title)).toEqual(["C", "C", "C", "A", "A", "A"]);
  });

  it.each([
    ["left as it is, as after kill -9", false],
    ["closed", true],
  ])("markers not yet expanded when the broker is %s are delivered after restart", async (_how, close) => {
    const first = manualBroker();
    const hook = await hookServer();
    await threeRoutes(first, hook.url);
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) ids.push((await post(first, { title: `n${index}` })).id);
    const db = file(first);
    expect(outboxRows(db)).toBe(0);
    if (close) await first.close();
    // Without close, no shutdown path runs: a second broker opens the same files, as a restart after a crash does.
    const restarted = testBroker({ dataDir: first.dataDir });
    await settle(() => hook.received.length >= 12);
    let counts: Json = {};
    await settle(async () => {
      counts = (await outbox(restarted)).counts;
      return counts.Delivered === 12;
    });
    expect(counts).toEqual({ Delivered: 12 });
    const delivered = hook.received.map((request) => JSON.parse(request.body).notification.id);
    expect(delivered.sort()).toEqual(ids.flatMap((id) => [id, id, id]).sort());
  });

  it("a dedup refresh by key writes its items in its own transaction, as before, expanded or not", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    await threeRoutes(broker, hook.url);
    const db = file(broker);
    const first = await post(broker, { title: "v1", key: "deploy" });
    expect((await outbox(broker)).counts).toEqual({ Pending: 3 }); // the read expands the marker
    await nextTurn();
    expect(outboxRows(db)).toBe(3);
    const through = expandedThrough(db);
    const refreshed = await post(broker, { title: "v2", key: "deploy" });
    expect(refreshed.id).toBe(first.id);
    // Written by the refresh itself: in the file before any read or dispatcher run, and no marker was added.
    expect(outboxRows(db)).toBe(6);
    expect(expandedThrough(db)).toBe(through);

    // Refreshed before its own marker was expanded: the refresh's items now, the marker's when it is expanded.
    const other = await post(broker, { title: "w1", key: "build" });
    await post(broker, { title: "w2", key: "build" });
    expect(outboxRows(db)).toBe(9);
    const listed = await outbox(broker);
    expect(listed.counts).toEqual({ Pending: 12 });
    expect(
      listed.items.filter((item: Json) => (item as { notificationId?: string }).notificationId === other.id),
    ).toHaveLength(6);

    expect(await broker.dispatcher.runDue()).toBe(12);
    const titles = hook.received.map((request) => JSON.parse(request.body).notification.title);
    expect(titles.sort()).toEqual([...Array(6).fill("v2"), ...Array(6).fill("w2")]);
  });

  it("migration 4 -> 5 starts expanding after the last notification: old notifications get no second items", () => {
    const db = databaseAt(4);
    const insertItem = db.prepare(`INSERT INTO outbox (notification_seq, route_id, provider_id, include_message,
      status, next_attempt_ms, created_ms, updated_ms) VALUES (?, ?, 'prv_1', 1, ?, 0, 0, 0)`);
    insertItem.run(1, "rte_1", "Delivered");
    insertItem.run(1, "rte_2", "DeadLetter");
    insertItem.run(2, "rte_1", "Pending");
    migrate(db);
    expect(db.prepare("PRAGMA user_version").get()).toEqual({ user_version: MIGRATIONS.length });
    expect(expandedThrough(db)).toBe(2);
    const store = new SqliteOutboxStore(db);
    expect(store.hasUnexpanded()).toBe(false);
    const oldItems = (items = store.list({ limit: 10 })) =>
      items.map((item) => [(item as { notificationId?: string }).notificationId, item.routeId, item.status]);
    const before = [
      ["ntf_bbb", "rte_1", "Pending"],
      ["ntf_aaa", "rte_2", "DeadLetter"],
      ["ntf_aaa", "rte_1", "Delivered"],
    ];
    expect(oldItems()).toEqual(before);
    expect(store.counts()).toEqual({ Delivered: 1, DeadLetter: 1, Pending: 1 });

    // A notification written after the migration with a marker gets its items, once.
    db.prepare(`INSERT INTO notifications (id, agent, type, priority, title, message, status, created_at,
      updated_at, outbound) VALUES ('ntf_ccc', 'a', 'info', 'normal', 'third', 'm', 'active', ?, ?, ?)`).run(
      "2026-11-01T10:00:02.000Z",
      "2026-11-01T10:00:02.000Z",
      encodeMarker([{ id: "rte_3", providerId: "prv_1", includeMessage: false }]),
    );
    expect(oldItems()).toEqual([["ntf_ccc", "rte_3", "Pending"], ...before]);
    expect(oldItems()).toEqual([["ntf_ccc", "rte_3", "Pending"], ...before]);
    expect(store.list({ limit: 1 })[0]).toMatchObject({ createdAt: "2026-11-01T10:00:02.000Z" });
    expect(store.list({ limit: 1 })[0]?.payload.message).toBeUndefined();
  });

  it("expands in chunks: 1,000 notifications x 3 routes give 3,000 items, each once, in creation order", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    const routes = await threeRoutes(broker, hook.url);
    const ids: string[] = [];
    for (let turn = 0; turn < 10; turn++) {
      for (let index = 0; index < 100; index++) {
        const title = `n${turn * 100 + index}`;
        ids.push(broker.notifications.create({ agent: "a", type: "info", title, message: "m" }).notification.id);
      }
      await nextTurn();
    }
    const steps: number[] = [];
    for (;;) {
      const step = broker.outbox.expand();
      steps.push(step.items);
      await nextTurn();
      if (step.done) break;
    }
    expect(EXPAND_CHUNK).toBe(256);
    expect(steps).toEqual([768, 768, 768, 696]); // 256, 256, 256 and 232 notifications
    const items = broker.outbox.list({ limit: 5000 }).reverse(); // oldest first
    expect(items).toHaveLength(3000);
    expect(items.map((item) => (item as { notificationId?: string }).notificationId)).toEqual(
      ids.flatMap((id) => [id, id, id]),
    );
    expect(items.map((item) => item.routeId)).toEqual(ids.flatMap(() => routes));
    expect(new Set(items.map((item) => item.id)).size).toBe(3000);
    expect(broker.outbox.counts()).toEqual({ Pending: 3000 });
  });

  it("an idle dispatcher expands a backlog by itself, a chunk per turn, whether or not it has free slots", async () => {
    // Every attempt hangs: the 8 slots stay full, and no outbox read happens until the end.
    const hook = await hookServer(Array.from({ length: 100 }, () => "hang" as const));
    const broker = testBroker({}, { dispatcher: { attemptTimeoutMs: 60_000 } });
    await threeRoutes(broker, hook.url);
    for (let turn = 0; turn < 6; turn++) {
      for (let index = 0; index < 100; index++) {
        broker.notifications.create({ agent: "a", type: "info", title: `n${turn}-${index}`, message: "m" });
      }
      await nextTurn();
    }
    const db = file(broker);
    const last = (db.prepare("SELECT max(seq) AS seq FROM notifications").get() as Json).seq;
    await settle(() => expandedThrough(db) >= last);
    expect(expandedThrough(db)).toBe(last);
    expect(outboxRows(db)).toBe(1800);
    expect(hook.received.length).toBeLessThanOrEqual(8);
  });

  it("passes over a marker that does not decode (a file edited by hand) and expands every marker after it", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    await threeRoutes(broker, hook.url);
    const first = broker.notifications.create({ agent: "a", type: "info", title: "first", message: "m" });
    await nextTurn();
    broker.db
      .prepare("UPDATE notifications SET outbound = ? WHERE id = ?")
      .run("9;not,a:marker", first.notification.id);
    const second = broker.notifications.create({ agent: "a", type: "info", title: "second", message: "m" });
    await nextTurn();
    const items = broker.outbox.list({ limit: 10 });
    expect(items.map((item) => (item as { notificationId?: string }).notificationId)).toEqual([
      second.notification.id,
      second.notification.id,
      second.notification.id,
    ]);
    expect(broker.outbox.skippedMarkers).toBe(1);
    expect(broker.outbox.expand().done).toBe(true);
  });

  it("an outbox read over HTTP expands a large backlog a chunk per turn: other API requests are answered meanwhile", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    await threeRoutes(broker, hook.url);
    for (let turn = 0; turn < 40; turn++) {
      for (let index = 0; index < 500; index++) {
        broker.notifications.create({ agent: "a", type: "info", title: `n${turn}-${index}`, message: "m" });
      }
      await nextTurn();
    }
    const order: string[] = [];
    const read = broker.call("GET", "/ui/api/outbound/outbox?limit=1").then((reply) => {
      order.push("outbox");
      return reply;
    });
    await nextTurn();
    const health = broker.call("GET", "/v1/health").then((reply) => {
      order.push("health");
      return reply;
    });
    const [outboxReply, healthReply] = await Promise.all([read, health]);
    expect(healthReply.status).toBe(200);
    expect((outboxReply.body as Json).counts).toEqual({ Pending: 60_000 });
    expect(order).toEqual(["health", "outbox"]);
  });
});
