import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { migrate } from "./migrations.js";

export const DATABASE_FILE_NAME = "notify.db";

/**
 * One connection for the whole broker process. WAL with synchronous=NORMAL: a committed transaction is in the WAL
 * before the API answers, so it survives a crash or `kill -9` of the broker (not necessarily a power cut; see
 * docs/config.md).
 */
export function openDatabase(path: string): DatabaseSync {
  const db = openDatabaseFile(path);
  migrate(db);
  return db;
}

/** Opens (creating, mode 0600) a SQLite file with the broker's pragmas, without running the broker's migrations. */
export function openDatabaseFile(path: string): DatabaseSync {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Created readable by the user only (it holds nonces); SQLite gives -wal and -shm the same mode.
    closeSync(openSync(path, "a", 0o600));
  }
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA foreign_keys = ON");
  return db;
}

const pendingAfterCommit = new WeakMap<DatabaseSync, (() => void)[]>();

/**
 * Runs `work` in one IMMEDIATE transaction; nested calls join the outer one. Callbacks registered with
 * `afterCommit` during the transaction run once the outermost transaction commits, and are dropped on rollback,
 * so nobody hears of a write that did not happen.
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  if (db.isTransaction) return work();
  db.exec("BEGIN IMMEDIATE");
  pendingAfterCommit.set(db, []);
  let callbacks: (() => void)[] = [];
  try {
    const result = work();
    db.exec("COMMIT");
    callbacks = pendingAfterCommit.get(db) ?? [];
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  } finally {
    pendingAfterCommit.delete(db);
    for (const callback of callbacks) callback();
  }
}

/** Runs `callback` after the current transaction commits, or at once outside a transaction. */
export function afterCommit(db: DatabaseSync, callback: () => void): void {
  const queue = db.isTransaction ? pendingAfterCommit.get(db) : undefined;
  if (queue) queue.push(callback);
  else callback();
}
