import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";

// The built module: its checkpoint worker is a .js file next to it (the source tree has only .ts).
const { checkpointsUnderLoad } = (await import(
  new URL("../../dist/store/checkpointer.js", import.meta.url).href
)) as typeof import("../../src/store/checkpointer.js");

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(): { db: DatabaseSync; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "notify-checkpoints-"));
  dirs.push(dir);
  const path = join(dir, "test.db");
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT)");
  return { db, path };
}

const autocheckpoint = (db: DatabaseSync): number =>
  (db.prepare("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("checkpoints under load (checkpointsUnderLoad)", () => {
  it("stay SQLite's own while writes are few, and move to a worker thread past the threshold", async () => {
    const { db, path } = open();
    const watch = checkpointsUnderLoad(db, path, { thresholdPerSecond: 500, sampleMs: 100, checkpointMs: 20 });
    try {
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
      // 10 rows per 100 ms = 100/s: below the threshold.
      for (let round = 0; round < 3; round++) {
        for (let row = 0; row < 10; row++) insert.run("quiet");
        await sleep(110);
      }
      expect(autocheckpoint(db)).toBe(1000);
      // 200 rows within one sample = 2,000/s.
      for (let row = 0; row < 200; row++) insert.run("x".repeat(2000));
      await sleep(150);
      expect(autocheckpoint(db)).toBe(0);
      // Only a checkpoint moves pages from the WAL into the database file, and this connection makes none now
      // (800 KB is also far below SQLite's own 1,000-page threshold): the worker does.
      for (let row = 0; row < 200; row++) insert.run("y".repeat(2000));
      let size = 0;
      for (let tries = 0; tries < 100 && size < 700_000; tries++) {
        await sleep(20);
        size = statSync(path).size;
      }
      expect(size).toBeGreaterThanOrEqual(700_000);
    } finally {
      await watch.stop();
      db.close();
    }
  });
});
