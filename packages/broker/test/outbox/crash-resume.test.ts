import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { spawnBroker } from "@notify/test-kit/broker-process";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { writeConfigFile } from "../../src/config/config-file.js";
import { DATABASE_FILE_NAME } from "../../src/store/database.js";
import { type Json, tempDir } from "../helpers.js";
import { recordingServer } from "./webhook-server.js";

const TOKEN = "outbox-crash-token-0123456789abcdefghijklmn";
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function call(url: string, method: string, body?: unknown, ui = false) {
  const response = await request(url, {
    method: method as "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${TOKEN}`,
      ...(ui ? { "x-notify-ui": "1" } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Json };
}

/**
 * A spawned broker (killed by SIGKILL after the test) with one enabled webhook route to a loopback hook whose
 * first `hangs` requests never get an answer, so every attempt is in flight when the broker dies.
 */
async function brokerWithHangingHook(rateLimitPerSecond: number, hangs: number) {
  const dataDir = tempDir();
  writeConfigFile(dataDir, { authToken: TOKEN, rateLimitPerSecond });
  const hook = await recordingServer(Array.from({ length: hangs }, () => "hang" as const));
  cleanups.push(() => hook.close());
  const broker = await spawnBroker(dataDir);
  cleanups.push(async () => {
    broker.child.kill("SIGKILL");
    await broker.exited;
  });
  const ui = (path: string, body: unknown) => call(`${broker.url}/ui/api/outbound/${path}`, "POST", body, true);
  expect(
    (await ui("providers", { kind: "webhook", name: "hook", settings: { url: hook.url }, enabled: true })).status,
  ).toBe(201);
  expect((await ui("routes", { name: "all", provider: "hook", enabled: true })).status).toBe(201);
  return { dataDir, hook, broker };
}

/**
 * Starts the broker again on `dataDir` with the hook answering 200 from now on (what it received is cleared), and
 * polls the outbox (every `pollMs`) until `total` items are Delivered or `deadlineMs` has passed; the last counts.
 * The deadline is one a busy 2-core machine meets, not the time it takes on a quiet one.
 */
async function restartUntilDelivered(
  dataDir: string,
  hook: Awaited<ReturnType<typeof recordingServer>>,
  { total, deadlineMs, pollMs }: { total: number; deadlineMs: number; pollMs: number },
): Promise<Json> {
  hook.setScript([]);
  hook.received.length = 0;
  const restarted = await spawnBroker(dataDir);
  cleanups.push(async () => {
    restarted.child.kill("SIGTERM");
    await restarted.exited;
  });
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const outbox: Json = (await call(`${restarted.url}/ui/api/outbound/outbox?limit=1`, "GET", undefined, true)).body;
    if (outbox.counts.Delivered === total || Date.now() > deadline) return outbox.counts;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

describe("outbox crash-resume (issue 4)", () => {
  it("items pending when the broker is killed are delivered after restart", async () => {
    const { dataDir, hook, broker } = await brokerWithHangingHook(1000, 50);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      ids.push((await call(`${broker.url}/v1/notifications`, "POST", { title: `n${index}`, message: "m" })).body.id);
    }
    // Wait until the dispatcher has the attempts in flight.
    for (const deadline = Date.now() + 20_000; hook.received.length < 5 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(hook.received.length).toBe(5);
    broker.child.kill("SIGKILL");
    await broker.exited;

    expect(await restartUntilDelivered(dataDir, hook, { total: 5, deadlineMs: 20_000, pollMs: 50 })).toEqual({
      Delivered: 5,
    });
    const delivered = hook.received.map((received) => JSON.parse(received.body).notification.id).sort();
    expect(delivered).toEqual([...ids].sort());
    // The same idempotency key as before the crash, so a provider that honours it drops any repeat.
    expect(new Set(hook.received.map((received) => received.headers["idempotency-key"])).size).toBe(5);
  }, 60_000);

  it("markers not yet expanded when the broker is killed (SIGKILL under a burst) are all delivered after restart", async () => {
    // Every attempt hangs: the busy dispatcher's one slot stays taken, so it expands nothing more during the burst.
    const { dataDir, hook, broker } = await brokerWithHangingHook(100_000, 100);
    const total = 1500;
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < total) {
          next++;
          const reply = await call(`${broker.url}/v1/notifications`, "POST", { title: "burst", message: "m" });
          expect(reply.status).toBe(201);
          ids.push(reply.body.id);
        }
      }),
    );
    broker.child.kill("SIGKILL");
    await broker.exited;

    // What the killed broker left: committed notifications whose markers were never expanded into items.
    const db = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME));
    const unexpanded = (
      db
        .prepare(`SELECT count(*) AS n FROM notifications WHERE outbound IS NOT NULL
          AND seq > (SELECT expanded_through FROM outbox_meta)`)
        .get() as Json
    ).n as number;
    db.close();
    expect(unexpanded).toBeGreaterThan(0);

    expect(await restartUntilDelivered(dataDir, hook, { total, deadlineMs: 60_000, pollMs: 100 })).toEqual({
      Delivered: total,
    });
    // Every notification reached the provider (at least once: an attempt in flight at the kill is sent again).
    const delivered = new Set(hook.received.map((received) => JSON.parse(received.body).notification.id));
    expect([...delivered].sort()).toEqual([...ids].sort());
    expect(new Set(hook.received.map((received) => received.headers["idempotency-key"])).size).toBe(total);
  }, 120_000);
});
