import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type Json, tempDir, untilValue } from "@notify/test-kit";
import { type BrokerProcess, spawnBroker } from "@notify/test-kit/broker-process";
import { request } from "undici";
import { describe, it } from "vitest";
import { writeConfigFile } from "../../src/config/config-file.js";
import { DATABASE_FILE_NAME } from "../../src/store/database.js";
import { recordingServer } from "../outbox/webhook-server.js";

// Issue 24 item 1, "Must show": delayed deliveries are durable. A real broker process is killed by SIGKILL between
// scheduling and due time; after a restart each held item that is still open is sent once, none twice, and none
// that was settled before its due time.

const TOKEN = "held-durability-token-0123456789abcdefghij";

async function call(url: string, method: string, body?: unknown) {
  const response = await request(url, {
    method: method as "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${TOKEN}`,
      "x-notify-ui": "1",
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: (text ? JSON.parse(text) : undefined) as Json };
}

/** Runs `body` with its own clean-ups, run last first when it ends (the two tests run side by side, each with its own). */
async function withCleanups(body: (cleanups: (() => Promise<unknown>)[]) => Promise<void>): Promise<void> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    await body(cleanups);
  } finally {
    while (cleanups.length > 0) await cleanups.pop()?.();
  }
}

async function start(dataDir: string, cleanups: (() => Promise<unknown>)[]): Promise<BrokerProcess> {
  const broker = await spawnBroker(dataDir);
  cleanups.push(async () => {
    broker.child.kill("SIGKILL");
    await broker.exited;
  });
  return broker;
}

async function kill(broker: BrokerProcess): Promise<void> {
  broker.child.kill("SIGKILL");
  await broker.exited;
}

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> =>
  untilValue(what, probe, { timeoutMs: ms, everyMs: 25 });

function states(dataDir: string): Record<string, number> {
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME), { readOnly: true });
  try {
    const rows = db.prepare("SELECT state, count(*) AS n FROM routed_deliveries GROUP BY state").all() as Json[];
    return Object.fromEntries(rows.map((row) => [row.state, row.n]));
  } finally {
    db.close();
  }
}

// Each test mostly waits for a due time (its route's delay_seconds): they wait side by side. Their temp dirs are the
// test kit's, removed when the file ends, not when the first test does.
describe.concurrent("held deliveries survive SIGKILL (issue 24)", () => {
  it("fires each open item once after a restart, never twice, never for one settled before its due time", ({
    expect,
  }) =>
    withCleanups(async (cleanups) => {
      const dataDir = tempDir();
      writeConfigFile(dataDir, { authToken: TOKEN, rateLimitPerSecond: 1000 });
      const hook = await recordingServer();
      cleanups.push(() => hook.close());
      let broker = await start(dataDir, cleanups);
      const ui = `${broker.url}/ui/api/outbound`;
      expect(
        (
          await call(`${ui}/providers`, "POST", {
            kind: "webhook",
            name: "hook",
            settings: { url: hook.url },
            enabled: true,
          })
        ).status,
      ).toBe(201);
      expect(
        (await call(`${ui}/routes`, "POST", { name: "later", provider: "hook", enabled: true, delay_seconds: 4 }))
          .status,
      ).toBe(201);

      const ids: string[] = [];
      for (let index = 0; index < 20; index++) {
        const created = await call(`${broker.url}/v1/notifications`, "POST", { title: `n${index}`, message: "m" });
        expect(created.status).toBe(201);
        ids.push(created.body.id);
      }
      const createdAt = Date.now();
      // Half settle before their due time: dismissed (notifications) in their own transaction.
      const settled = ids.filter((_id, index) => index % 2 === 0);
      for (const id of settled) {
        expect((await call(`${broker.url}/v1/notifications/${id}/dismiss`, "POST")).status).toBe(200);
      }
      // Killed well before the due time: every row is held or void, nothing was sent.
      await kill(broker);
      expect(Date.now() - createdAt).toBeLessThan(4000);
      expect(states(dataDir)).toEqual({ held: 10, void: 10 });
      expect(hook.received).toHaveLength(0);

      // Back after the due time has passed: the ten open ones go at once, each once.
      await until("the due time", () => (Date.now() > createdAt + 4500 ? true : undefined));
      broker = await start(dataDir, cleanups);
      await until("10 deliveries", () => (hook.received.length >= 10 ? true : undefined));
      const sentIds = hook.received.map((received) => JSON.parse(received.body).notification.id as string);
      expect(new Set(sentIds).size).toBe(10);
      for (const id of sentIds) expect(settled).not.toContain(id);

      // Killed again and restarted: nothing is sent a second time.
      await until("the outbox delivered", async () => {
        const counts = (await call(`${broker.url}/ui/api/outbound/outbox?limit=1`, "GET")).body.counts;
        return counts.Delivered === 10 ? true : undefined;
      });
      await kill(broker);
      expect(states(dataDir)).toEqual({ sent: 10, void: 10 });
      broker = await start(dataDir, cleanups);
      const counts = (await call(`${broker.url}/ui/api/outbound/outbox?limit=1`, "GET")).body.counts;
      expect(counts).toEqual({ Delivered: 10 });
      expect(hook.received).toHaveLength(10);
    }));

  it("fires within a second of its due time while running", ({ expect }) =>
    withCleanups(async (cleanups) => {
      const dataDir = tempDir();
      writeConfigFile(dataDir, { authToken: TOKEN, rateLimitPerSecond: 1000 });
      const hook = await recordingServer();
      cleanups.push(() => hook.close());
      const broker = await start(dataDir, cleanups);
      const ui = `${broker.url}/ui/api/outbound`;
      await call(`${ui}/providers`, "POST", {
        kind: "webhook",
        name: "hook",
        settings: { url: hook.url },
        enabled: true,
      });
      await call(`${ui}/routes`, "POST", { name: "later", provider: "hook", enabled: true, delay_seconds: 2 });
      const created = await call(`${broker.url}/v1/notifications`, "POST", { title: "t", message: "m" });
      const due = Date.parse(created.body.createdAt) + 2000;
      const arrived = await until("the delivery", () => (hook.received.length > 0 ? Date.now() : undefined));
      expect(arrived).toBeGreaterThanOrEqual(due);
      expect(arrived - due).toBeLessThan(1000);
    }));
});
