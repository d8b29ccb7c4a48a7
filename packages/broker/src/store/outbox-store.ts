import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { OutboundPayload, OutboxItem, OutboxStatus } from "../outbox/types.js";
import { transaction } from "./database.js";

const COLUMNS =
  "id, notification_id, route_id, provider_id, status, attempts, next_attempt_ms, payload, idempotency_key, " +
  "last_status, last_code, created_at, updated_at, delivered_at";
const INSERT = `INSERT INTO outbox (${COLUMNS}) VALUES (:id, :notification_id, :route_id, :provider_id, 'Pending', 0,
  :next_attempt_ms, :payload, :idempotency_key, NULL, NULL, :created_at, :created_at, NULL)`;
// INDEXED BY: without statistics the planner picks outbox_by_status and sorts the whole backlog on every pump.
const SELECT_DUE = `SELECT ${COLUMNS} FROM outbox INDEXED BY outbox_due
  WHERE status IN ('Pending', 'Retry') AND next_attempt_ms <= ?
  ORDER BY next_attempt_ms, seq LIMIT ?`;
const NEXT_DUE =
  "SELECT min(next_attempt_ms) AS next FROM outbox INDEXED BY outbox_due WHERE status IN ('Pending', 'Retry')";
const RECORD = `UPDATE outbox SET status = :status, attempts = :attempts, next_attempt_ms = :next_attempt_ms,
  last_status = :last_status, last_code = :last_code, updated_at = :updated_at, delivered_at = :delivered_at
  WHERE id = :id`;
const SELECT_BY_ID = `SELECT ${COLUMNS} FROM outbox WHERE id = ?`;
const COUNT_BY_STATUS = "SELECT status, count(*) AS count FROM outbox GROUP BY status";

interface Row {
  id: string;
  notification_id: string;
  route_id: string;
  provider_id: string;
  status: string;
  attempts: number;
  next_attempt_ms: number;
  payload: string;
  idempotency_key: string;
  last_status: number | null;
  last_code: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

function toItem(row: Row): OutboxItem {
  const item: OutboxItem = {
    id: row.id,
    notificationId: row.notification_id,
    routeId: row.route_id,
    providerId: row.provider_id,
    status: row.status as OutboxStatus,
    attempts: row.attempts,
    nextAttemptMs: row.next_attempt_ms,
    payload: JSON.parse(row.payload) as OutboundPayload,
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.last_status !== null) item.lastStatus = row.last_status;
  if (row.last_code !== null) item.lastCode = row.last_code;
  if (row.delivered_at !== null) item.deliveredAt = row.delivered_at;
  return item;
}

/** SQL for the durable outbox. */
export class OutboxStore {
  private readonly insertStatement: StatementSync;
  private readonly dueStatement: StatementSync;
  private readonly nextDueStatement: StatementSync;
  private readonly recordStatement: StatementSync;
  private readonly byIdStatement: StatementSync;
  private readonly countStatement: StatementSync;
  private readonly listStatements = new Map<string, StatementSync>();

  constructor(readonly db: DatabaseSync) {
    this.insertStatement = db.prepare(INSERT);
    this.dueStatement = db.prepare(SELECT_DUE);
    this.nextDueStatement = db.prepare(NEXT_DUE);
    this.recordStatement = db.prepare(RECORD);
    this.byIdStatement = db.prepare(SELECT_BY_ID);
    this.countStatement = db.prepare(COUNT_BY_STATUS);
  }

  enqueue(item: {
    id: string;
    notificationId: string;
    routeId: string;
    providerId: string;
    payload: OutboundPayload;
    idempotencyKey: string;
    nextAttemptMs: number;
    createdAt: string;
  }): void {
    this.insertStatement.run({
      id: item.id,
      notification_id: item.notificationId,
      route_id: item.routeId,
      provider_id: item.providerId,
      next_attempt_ms: item.nextAttemptMs,
      payload: JSON.stringify(item.payload),
      idempotency_key: item.idempotencyKey,
      created_at: item.createdAt,
    });
  }

  due(nowMs: number, limit: number): OutboxItem[] {
    return (this.dueStatement.all(nowMs, limit) as unknown as Row[]).map(toItem);
  }

  nextDue(): number | undefined {
    const row = this.nextDueStatement.get() as { next: number | null };
    return row.next ?? undefined;
  }

  record(
    id: string,
    change: {
      status: OutboxStatus;
      attempts: number;
      nextAttemptMs: number;
      lastStatus: number | null;
      lastCode: string | null;
      updatedAt: string;
      deliveredAt: string | null;
    },
  ): void {
    this.recordStatement.run({
      id,
      status: change.status,
      attempts: change.attempts,
      next_attempt_ms: change.nextAttemptMs,
      last_status: change.lastStatus,
      last_code: change.lastCode,
      updated_at: change.updatedAt,
      delivered_at: change.deliveredAt,
    });
  }

  /** `record` as its own unit of work, so it joins the broker's group commit. */
  recordInTransaction(id: string, change: Parameters<OutboxStore["record"]>[1]): void {
    transaction(this.db, () => this.record(id, change));
  }

  byId(id: string): OutboxItem | undefined {
    const row = this.byIdStatement.get(id) as Row | undefined;
    return row ? toItem(row) : undefined;
  }

  list(filter: { status?: OutboxStatus; limit: number }): OutboxItem[] {
    const sql =
      filter.status === undefined
        ? `SELECT ${COLUMNS} FROM outbox ORDER BY seq DESC LIMIT ?`
        : `SELECT ${COLUMNS} FROM outbox WHERE status = ? ORDER BY seq DESC LIMIT ?`;
    let statement = this.listStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.listStatements.set(sql, statement);
    }
    const rows = filter.status === undefined ? statement.all(filter.limit) : statement.all(filter.status, filter.limit);
    return (rows as unknown as Row[]).map(toItem);
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const row of this.countStatement.all() as unknown as { status: string; count: number }[]) {
      counts[row.status] = row.count;
    }
    return counts;
  }
}
