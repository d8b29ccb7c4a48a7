import { closeSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import { ensurePrivateDir } from "../fs/private-files.js";
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
    ensurePrivateDir(dirname(path));
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

interface Batch {
  /** Runs after COMMIT: bus events, dispatcher kicks. */
  callbacks: (() => void)[];
  committed: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
  depth: number;
}

const grouped = new WeakSet<DatabaseSync>();
const openBatches = new WeakMap<DatabaseSync, Batch>();

/**
 * Group commit: every unit of work that starts in one event-loop turn joins one transaction, committed in a
 * `setImmediate` at the end of the turn. Each unit runs in its own SAVEPOINT, so a failing unit rolls back alone.
 * Responses wait for `commitBarrier` before they are sent (http/app.ts), so a 201 still means committed; what is
 * saved is one WAL commit per turn instead of one per request.
 */
export function enableGroupCommit(db: DatabaseSync): void {
  grouped.add(db);
}

/** The commit of the open batch, when there is one; a response must not leave before it. */
export function commitBarrier(db: DatabaseSync): Promise<void> | undefined {
  return openBatches.get(db)?.committed;
}

function commitBatch(db: DatabaseSync): void {
  const batch = openBatches.get(db);
  if (!batch) return;
  openBatches.delete(db);
  try {
    db.exec("COMMIT");
  } catch (error) {
    try {
      if (db.isTransaction) db.exec("ROLLBACK");
    } catch {
      // nothing more to undo
    }
    batch.reject(error);
    return;
  }
  batch.resolve();
  for (const callback of batch.callbacks) callback();
}

/** Commits the open batch now (shutdown, before the connection closes). */
export function flushBatch(db: DatabaseSync): void {
  commitBatch(db);
}

interface SavepointStatements {
  begin: StatementSync;
  release: StatementSync;
  rollback: StatementSync;
}
const savepoints = new WeakMap<DatabaseSync, SavepointStatements[]>();

/** Prepared once per nesting depth: a unit per request makes exec's parse of these statements a hot path. */
function savepointStatements(db: DatabaseSync, depth: number): SavepointStatements {
  let list = savepoints.get(db);
  if (!list) {
    list = [];
    savepoints.set(db, list);
  }
  let statements = list[depth];
  if (!statements) {
    statements = {
      begin: db.prepare(`SAVEPOINT unit_${depth}`),
      release: db.prepare(`RELEASE unit_${depth}`),
      rollback: db.prepare(`ROLLBACK TO unit_${depth}`),
    };
    list[depth] = statements;
  }
  return statements;
}

function groupedUnit<T>(db: DatabaseSync, work: () => T): T {
  let batch = openBatches.get(db);
  if (!batch) {
    db.exec("BEGIN IMMEDIATE");
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const committed = new Promise<void>((onResolve, onReject) => {
      resolve = onResolve;
      reject = onReject;
    });
    // A rejected barrier nobody awaits must not crash the process; awaiting responses still see the rejection.
    committed.catch(() => {});
    batch = { callbacks: [], committed, resolve, reject, depth: 0 };
    openBatches.set(db, batch);
    setImmediate(() => commitBatch(db));
  }
  const savepoint = savepointStatements(db, batch.depth);
  const callbacksBefore = batch.callbacks.length;
  batch.depth++;
  savepoint.begin.run();
  try {
    const result = work();
    savepoint.release.run();
    return result;
  } catch (error) {
    savepoint.rollback.run();
    savepoint.release.run();
    batch.callbacks.length = callbacksBefore;
    throw error;
  } finally {
    batch.depth--;
  }
}

/**
 * Runs `work` as one atomic unit. With group commit on (the broker's store) it joins the turn's batch in a
 * savepoint; otherwise it is one IMMEDIATE transaction. Nested calls join the outer unit. Callbacks registered
 * with `afterCommit` run once the write is committed and are dropped on rollback, so nobody hears of a write that
 * did not happen.
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  if (grouped.has(db)) return groupedUnit(db, work);
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

/** Runs `callback` after the current write commits, or at once when nothing is pending. */
export function afterCommit(db: DatabaseSync, callback: () => void): void {
  const batch = openBatches.get(db);
  if (batch) {
    batch.callbacks.push(callback);
    return;
  }
  const queue = db.isTransaction ? pendingAfterCommit.get(db) : undefined;
  if (queue) queue.push(callback);
  else callback();
}

/** The broker's UnitOfWork over one connection (group commit when `enableGroupCommit` was called for it). */
export function unitOfWork(db: DatabaseSync): UnitOfWork {
  return {
    run: (work) => transaction(db, work),
    afterCommit: (callback) => afterCommit(db, callback),
    pendingCommit: () => commitBarrier(db),
  };
}
