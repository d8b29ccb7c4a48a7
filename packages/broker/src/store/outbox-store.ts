import type { DatabaseSync, StatementSync } from "node:sqlite";
import { isoTime } from "../domain/clock.js";
import type { Priority } from "../notifications/types.js";
import type { OutboundPayload, OutboundRoute, OutboxItem, OutboxStatus } from "../outbox/types.js";
import { transaction } from "./database.js";

// Migration 4: a rowid table appended to in creation order. Pending items are read by a rowid cursor; only Retry
// items (due later) and dead letters have an index, so enqueueing touches the table's last page and nothing else.
const ITEM_COLUMNS =
  "o.seq, n.id AS notification_id, o.route_id, o.provider_id, o.include_message, o.status, o.attempts, " +
  "o.next_attempt_ms, o.last_status, o.last_code, o.created_ms, o.updated_ms, o.delivered_ms, n.title, n.message, " +
  "n.type, n.priority, n.agent, n.project, n.key, n.created_at AS notification_created_at";
const FROM = "FROM outbox o JOIN notifications n ON n.seq = o.notification_seq";

const SELECT_PENDING = `SELECT ${ITEM_COLUMNS} ${FROM} WHERE o.seq > ? AND o.seq <= ? AND o.status = 'Pending'
  ORDER BY o.seq LIMIT ?`;
const LAST_SEQ = "SELECT max(seq) AS seq FROM outbox";
// INDEXED BY: the planner must walk the partial index in due order, never sort the backlog.
const SELECT_RETRY_DUE = `SELECT ${ITEM_COLUMNS} FROM outbox o INDEXED BY outbox_retry JOIN notifications n
  ON n.seq = o.notification_seq WHERE o.status = 'Retry' AND o.next_attempt_ms <= ? ORDER BY o.next_attempt_ms LIMIT ?`;
const NEXT_RETRY = "SELECT min(next_attempt_ms) AS next FROM outbox INDEXED BY outbox_retry WHERE status = 'Retry'";
const FIRST_PENDING = "SELECT min(seq) AS seq FROM outbox WHERE status = 'Pending'";
const RECORD = `UPDATE outbox SET status = :status, attempts = :attempts, next_attempt_ms = :next_attempt_ms,
  last_status = :last_status, last_code = :last_code, updated_ms = :updated_ms, delivered_ms = :delivered_ms
  WHERE seq = :seq`;
const SELECT_BY_SEQ = `SELECT ${ITEM_COLUMNS} ${FROM} WHERE o.seq = ?`;
const COUNT_BY_STATUS = "SELECT status, count(*) AS count FROM outbox GROUP BY status";

interface Row {
  seq: number;
  notification_id: string;
  route_id: string;
  provider_id: string;
  include_message: number;
  status: string;
  attempts: number;
  next_attempt_ms: number;
  last_status: number | null;
  last_code: string | null;
  created_ms: number;
  updated_ms: number;
  delivered_ms: number | null;
  title: string;
  message: string;
  type: string;
  priority: string;
  agent: string;
  project: string | null;
  key: string | null;
  notification_created_at: string;
}

/** An item as the dispatcher holds it: with its row, which is where its status is recorded. */
export type DueItem = OutboxItem & { seq: number };

export interface OutboxChange {
  status: OutboxStatus;
  attempts: number;
  nextAttemptMs: number;
  lastStatus: number | null;
  lastCode: string | null;
  updatedMs: number;
  deliveredMs: number | null;
}

/** A string as an SQL literal. */
function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** SQL for the durable outbox. */
export class OutboxStore {
  /** `obx_` + this database's namespace: item ids are unique across machines, so they serve as idempotency keys. */
  private readonly idPrefix: string;
  private readonly pendingStatement: StatementSync;
  private readonly retryDueStatement: StatementSync;
  private readonly nextRetryStatement: StatementSync;
  private readonly firstPendingStatement: StatementSync;
  private readonly lastSeqStatement: StatementSync;
  private readonly recordStatement: StatementSync;
  private readonly bySeqStatement: StatementSync;
  private readonly countStatement: StatementSync;
  private readonly listStatements = new Map<string, StatementSync>();
  private readonly insertByRoutes = new Map<string, StatementSync>();

  constructor(readonly db: DatabaseSync) {
    const meta = db.prepare("SELECT namespace FROM outbox_meta").get() as { namespace: string };
    this.idPrefix = `obx_${meta.namespace}`;
    this.pendingStatement = db.prepare(SELECT_PENDING);
    this.retryDueStatement = db.prepare(SELECT_RETRY_DUE);
    this.nextRetryStatement = db.prepare(NEXT_RETRY);
    this.firstPendingStatement = db.prepare(FIRST_PENDING);
    this.lastSeqStatement = db.prepare(LAST_SEQ);
    this.recordStatement = db.prepare(RECORD);
    this.bySeqStatement = db.prepare(SELECT_BY_SEQ);
    this.countStatement = db.prepare(COUNT_BY_STATUS);
  }

  /** The public id of the item stored at `seq`. */
  idOf(seq: number): string {
    return `${this.idPrefix}${seq.toString(36).padStart(6, "0")}`;
  }

  /** The row of a public id, or undefined for an id that is not of this database's form. */
  seqOf(id: string): number | undefined {
    if (!id.startsWith(this.idPrefix)) return undefined;
    const rest = id.slice(this.idPrefix.length);
    if (!/^[0-9a-z]{6,11}$/.test(rest)) return undefined;
    const seq = Number.parseInt(rest, 36);
    return Number.isSafeInteger(seq) && seq > 0 && this.idOf(seq) === id ? seq : undefined;
  }

  /**
   * The payload is built from the notification row when the item is read: what leaves is the notification as it
   * is at send time, with the message left out when the route's IncludeMessage is off.
   */
  private toItem(row: Row): OutboxItem {
    const payload: OutboundPayload = {
      id: row.notification_id,
      title: row.title,
      type: row.type,
      priority: row.priority as Priority,
      agent: row.agent,
      createdAt: row.notification_created_at,
    };
    if (row.include_message === 1) payload.message = row.message;
    if (row.project !== null) payload.project = row.project;
    if (row.key !== null) payload.key = row.key;
    const id = this.idOf(row.seq);
    const item: OutboxItem = {
      id,
      notificationId: row.notification_id,
      routeId: row.route_id,
      providerId: row.provider_id,
      status: row.status as OutboxStatus,
      attempts: row.attempts,
      nextAttemptMs: row.next_attempt_ms,
      payload,
      // Stable per item, so a provider that honours it drops a repeat after a crash.
      idempotencyKey: id,
      createdAt: isoTime(row.created_ms),
      updatedAt: isoTime(row.updated_ms),
    };
    if (row.last_status !== null) item.lastStatus = row.last_status;
    if (row.last_code !== null) item.lastCode = row.last_code;
    if (row.delivered_ms !== null) item.deliveredAt = isoTime(row.delivered_ms);
    return item;
  }

  private toItems(rows: unknown[]): OutboxItem[] {
    return (rows as Row[]).map((row) => this.toItem(row));
  }

  private toDueItems(rows: unknown[]): DueItem[] {
    return (rows as Row[]).map((row) => Object.assign(this.toItem(row), { seq: row.seq }));
  }

  /**
   * Enqueues one Pending item per route of one notification with a single INSERT. The routes are written into
   * the statement as literals (one prepared statement per set of matching routes, cached), so a create binds two
   * values instead of seven per route.
   */
  enqueueAll(
    notificationRow: number,
    routes: readonly Pick<OutboundRoute, "id" | "providerId" | "includeMessage">[],
    nowMs: number,
  ): void {
    const key = routes
      .map((route) => `${route.id}\u0000${route.providerId}\u0000${route.includeMessage}`)
      .join("\u0001");
    let statement = this.insertByRoutes.get(key);
    if (!statement) {
      const rows = routes
        .map((route) => `(${sqlText(route.id)}, ${sqlText(route.providerId)}, ${route.includeMessage ? 1 : 0})`)
        .join(", ");
      statement = this.db.prepare(`INSERT INTO outbox (notification_seq, route_id, provider_id, include_message,
        status, next_attempt_ms, created_ms, updated_ms)
        SELECT ?1, column1, column2, column3, 'Pending', ?2, ?2, ?2 FROM (VALUES ${rows})`);
      // Route sets change only when routes are edited; a bounded cache keeps old sets from piling up.
      if (this.insertByRoutes.size >= 64) this.insertByRoutes.clear();
      this.insertByRoutes.set(key, statement);
    }
    statement.run(notificationRow, nowMs);
  }

  /** Pending items in rows (afterSeq, throughSeq], in creation order (the dispatcher's cursor). */
  pendingAfter(afterSeq: number, throughSeq: number, limit: number): DueItem[] {
    return this.toDueItems(this.pendingStatement.all(afterSeq, throughSeq, limit));
  }

  /** The last row (0 for an empty outbox); O(1) on a rowid table. */
  lastSeq(): number {
    const row = this.lastSeqStatement.get() as { seq: number | null };
    return row.seq ?? 0;
  }

  /** The first Pending row, or undefined: where the dispatcher's cursor starts. A scan, run once per start. */
  firstPendingSeq(): number | undefined {
    const row = this.firstPendingStatement.get() as { seq: number | null };
    return row.seq ?? undefined;
  }

  /** Retry items due by `nowMs`, earliest first. */
  retryDue(nowMs: number, limit: number): DueItem[] {
    return this.toDueItems(this.retryDueStatement.all(nowMs, limit));
  }

  /** When the earliest Retry item falls due. */
  nextRetry(): number | undefined {
    const row = this.nextRetryStatement.get() as { next: number | null };
    return row.next ?? undefined;
  }

  record(seq: number, change: OutboxChange): void {
    this.recordStatement.run({
      seq,
      status: change.status,
      attempts: change.attempts,
      next_attempt_ms: change.nextAttemptMs,
      last_status: change.lastStatus,
      last_code: change.lastCode,
      updated_ms: change.updatedMs,
      delivered_ms: change.deliveredMs,
    });
  }

  /** `record` as its own unit of work, so it joins the broker's group commit. */
  recordInTransaction(seq: number, change: OutboxChange): void {
    transaction(this.db, () => this.record(seq, change));
  }

  byId(id: string): OutboxItem | undefined {
    const seq = this.seqOf(id);
    if (seq === undefined) return undefined;
    const row = this.bySeqStatement.get(seq) as Row | undefined;
    return row ? this.toItem(row) : undefined;
  }

  /** Newest first. Dead letters come from their own partial index; everything else is a scan (an owner's view). */
  list(filter: { status?: OutboxStatus; limit: number }): OutboxItem[] {
    const sql =
      filter.status === undefined
        ? `SELECT ${ITEM_COLUMNS} ${FROM} ORDER BY o.seq DESC LIMIT ?`
        : filter.status === "DeadLetter"
          ? `SELECT ${ITEM_COLUMNS} FROM outbox o INDEXED BY outbox_dead JOIN notifications n ON n.seq = o.notification_seq
             WHERE o.status = 'DeadLetter' ORDER BY o.seq DESC LIMIT ?`
          : `SELECT ${ITEM_COLUMNS} ${FROM} WHERE o.status = ? ORDER BY o.seq DESC LIMIT ?`;
    let statement = this.listStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.listStatements.set(sql, statement);
    }
    const rows =
      filter.status === undefined || filter.status === "DeadLetter"
        ? statement.all(filter.limit)
        : statement.all(filter.status, filter.limit);
    return this.toItems(rows);
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const row of this.countStatement.all() as unknown as { status: string; count: number }[]) {
      counts[row.status] = row.count;
    }
    return counts;
  }
}
