import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, expect } from "vitest";
import { DATABASE_FILE_NAME } from "../../src/store/database.js";
import { MIGRATIONS } from "../../src/store/migrations.js";
import { type Json, type TestBroker, testBroker } from "../helpers.js";
import { recordingServer } from "./webhook-server.js";

/** The header every /ui/api change carries. */
export const UI = { "x-notify-ui": "1" };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** Runs `cleanup` after the current test, latest first. */
export function onCleanup(cleanup: () => Promise<void> | void): void {
  cleanups.push(cleanup);
}

/** A loopback webhook that answers by `script` (status codes, or "hang") and records what it got; closed after the test. */
export async function hookServer(script: (number | "hang")[] = []) {
  const created = await recordingServer(script);
  onCleanup(() => created.close());
  return created;
}

/** A broker whose dispatcher only runs when a test calls runDue (so nothing is sent or expanded behind its back). */
export function manualBroker(dataDir?: string): TestBroker {
  return testBroker(dataDir === undefined ? {} : { dataDir }, {
    // Attempts to the loopback hook time out after 5 s: 500 ms was missed by a busy 2-core machine (a retry, not a
    // delivery); a test that needs a hung attempt stops the dispatcher or sets its own timeout.
    dispatcher: { autoRun: false, random: () => 1, attemptTimeoutMs: 5_000 },
  });
}

/** One enabled webhook provider "hook" at `url` and these enabled routes to it (match-all gates); their ids. */
export async function hookRoutes(
  broker: TestBroker,
  url: string,
  routes: { name: string; includeMessage?: boolean }[],
): Promise<string[]> {
  const provider = await broker.call(
    "POST",
    "/ui/api/outbound/providers",
    { kind: "webhook", name: "hook", settings: { url }, enabled: true },
    UI,
  );
  expect(provider.status).toBe(201);
  const ids: string[] = [];
  for (const route of routes) {
    const created = await broker.call(
      "POST",
      "/ui/api/outbound/routes",
      { provider: "hook", enabled: true, ...route },
      UI,
    );
    expect(created.status).toBe(201);
    ids.push((created.body as Json).id);
  }
  return ids;
}

/**
 * A database file at schema `version` (its first migrations run by hand), holding two notifications:
 * `ntf_aaa` "first" (row 1) and `ntf_bbb` "second" (row 2), a second apart. Removed after the test.
 */
export function databaseAt(version: number): DatabaseSync {
  const dir = mkdtempSync(join(tmpdir(), `notify-v${version}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const db = new DatabaseSync(join(dir, DATABASE_FILE_NAME));
  onCleanup(() => db.close());
  for (const step of MIGRATIONS.slice(0, version)) step(db);
  db.exec(`PRAGMA user_version = ${version}`);
  const insertNotification = db.prepare(`INSERT INTO notifications (id, agent, type, priority, title, message,
    status, created_at, updated_at) VALUES (?, 'a', 'info', 'normal', ?, 'm', 'active', ?, ?)`);
  insertNotification.run("ntf_aaa", "first", "2026-11-01T10:00:00.000Z", "2026-11-01T10:00:00.000Z");
  insertNotification.run("ntf_bbb", "second", "2026-11-01T10:00:01.000Z", "2026-11-01T10:00:01.000Z");
  return db;
}
