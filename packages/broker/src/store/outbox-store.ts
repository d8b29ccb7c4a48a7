import { randomBytes } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Priority } from "../notifications/types.js";
import type { OutboundPayload, OutboxItem, OutboxStatus } from "../outbox/types.js";
import { transaction } from "./database.js";

const ITEM_COLUMNS =
  "o.id, o.notification_id, o.route_id, o.provider_id, o.include_message, o.status, o.attempts, o.next_attempt_ms, " +
  "o.last_status, o.last_code, o.created_at, o.updated_at, o.delivered_at, n.title, n.message, n.type, n.priority, " +
  "n.agent, n.project, n.key, n.created_at AS notification_created_at";
const FROM = "FROM outbox o JOIN notifications n ON n.id = o.notification_id";

// INDEXED BY: the planner must walk the partial index in due order, never sort the backlog.
const SELECT_DUE = `SELECT ${ITEM_COLUMNS} FROM outbox o INDEXED BY outbox_due JOIN notifications n
  ON n.id = o.notification_id WHERE o.status IN ('Pending', 'Retry') AND o.next_attempt_ms <= ?
  ORDER BY o.next_attempt_ms LIMIT ?`;
const NEXT_DUE =
  "SELECT min(next_attempt_ms) AS next FROM outbox INDEXED BY outbox_due WHERE status IN ('Pending', 'Retry')";
const RECORD = `UPDATE outbox SET status = :status, attempts = :attempts, next_attempt_ms = :next_attempt_ms,
  last_status = :last_status, last_code = :last_code, updated_at = :updated_at, delivered_at = :delivered_at
  WHERE id = :id`;
const SELECT_BY_ID = `SELECT ${ITEM_COLUMNS} ${FROM} WHERE o.id = ?`;
const COUNT_BY_STATUS = "SELECT status, count(*) AS count FROM outbox GROUP BY status";

interface Row {
  id: string;
  notification_id: string;
  route_id: string;
  provider_id: string;
  include_message: number;
  status: string;
  attempts: number;
  next_attempt_ms: number;
  last_status: number | null;
  last_code: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  title: string;
  message: string;
  type: string;
  priority: string;
  agent: string;
  project: string | null;
  key: string | null;
  notification_created_at: string;
}

/**
 * The payload is built from the notification row when the item is read: what leaves is the notification as it is
 * at send time, with the message left out when the route's IncludeMessage is off.
 */
function toItem(row: Row): OutboxItem {
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
  const item: OutboxItem = {
    id: row.id,
    notificationId: row.notification_id,
    routeId: row.route_id,
    providerId: row.provider_id,
    status: row.status as OutboxStatus,
    attempts: row.attempts,
    nextAttemptMs: row.next_attempt_ms,
    payload,
    // Stable per item, so a provider that honours it drops a repeat after a crash.
    idempotencyKey: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.last_status !== null) item.lastStatus = row.last_status;
  if (row.last_code !== null) item.lastCode = row.last_code;
  if (row.delivered_at !== null) item.deliveredAt = row.delivered_at;
  return item;
}

/** Item ids: a random per-process prefix and a counter, unique across restarts without a random draw per item. */
const ID_PREFIX = `obx_${randomBytes(8).toString("hex")}`;
let idCounter = 0;
export function newOutboxId(): string {
  idCounter += 1;
  return `${ID_PREFIX}${idCounter.toString(36).padStart(6, "0")}`;
}

/** SQL for the durable outbox. */
export class OutboxStore {
  private readonly dueStatement: StatementSync;
  private readonly nextDueStatement: StatementSync;
  private readonly recordStatement: StatementSync;
  private readonly byIdStatement: StatementSync;
  private readonly countStatement: StatementSync;
  private readonly listStatements = new Map<string, StatementSync>();

  constructor(readonly db: DatabaseSync) {
    this.dueStatement = db.prepare(SELECT_DUE);
    this.nextDueStatement = db.prepare(NEXT_DUE);
    this.recordStatement = db.prepare(RECORD);
    this.byIdStatement = db.prepare(SELECT_BY_ID);
    this.countStatement = db.prepare(COUNT_BY_STATUS);
  }

  private readonly insertMany = new Map<number, StatementSync>();

  /** Enqueues one item per route of one notification with a single multi-row INSERT. */
  enqueueAll(
    notificationId: string,
    items: readonly { id: string; routeId: string; providerId: string; includeMessage: boolean }[],
    nextAttemptMs: number,
    createdAt: string,
  ): void {
    let statement = this.insertMany.get(items.length);
    if (!statement) {
      const rows = Array.from({ length: items.length }, () => "(?, ?, ?, ?, ?, 'Pending', 0, ?, ?, ?)").join(", ");
      statement = this.db.prepare(`INSERT INTO outbox (id, notification_id, route_id, provider_id, include_message,
        status, attempts, next_attempt_ms, created_at, updated_at) VALUES ${rows}`);
      this.insertMany.set(items.length, statement);
    }
    const values: (string | number)[] = [];
    for (const item of items) {
      values.push(item.id, notificationId, item.routeId, item.providerId, item.includeMessage ? 1 : 0);
      values.push(nextAttemptMs, createdAt, createdAt);
    }
    statement.run(...values);
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

  /** Newest first. Dead letters come from their own partial index; everything else is a scan (an owner's view). */
  list(filter: { status?: OutboxStatus; limit: number }): OutboxItem[] {
    const sql =
      filter.status === undefined
        ? `SELECT ${ITEM_COLUMNS} ${FROM} ORDER BY o.created_at DESC, o.id DESC LIMIT ?`
        : filter.status === "DeadLetter"
          ? `SELECT ${ITEM_COLUMNS} FROM outbox o INDEXED BY outbox_dead JOIN notifications n ON n.id = o.notification_id
             WHERE o.status = 'DeadLetter' ORDER BY o.created_at DESC, o.id DESC LIMIT ?`
          : `SELECT ${ITEM_COLUMNS} ${FROM} WHERE o.status = ? ORDER BY o.created_at DESC, o.id DESC LIMIT ?`;
    let statement = this.listStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.listStatements.set(sql, statement);
    }
    const rows =
      filter.status === undefined || filter.status === "DeadLetter"
        ? statement.all(filter.limit)
        : statement.all(filter.status, filter.limit);
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
