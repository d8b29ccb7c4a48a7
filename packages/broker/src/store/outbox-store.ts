import type { DatabaseSync, StatementSync } from "node:sqlite";
import { isoTime } from "../domain/clock.js";
import { interactionSummary, type NotificationColumns, notificationPayload } from "../outbox/payload.js";
import type { OutboxItem, OutboxItemBase, OutboxStatus, OutboxSubject } from "../outbox/types.js";
import { transaction } from "./database.js";
import { EXPAND_CHUNK, type Expansion, MarkerExpansion } from "./outbox-expansion.js";
import type { RouteRef } from "./outbox-marker.js";
import { StatementCache } from "./statement-cache.js";

// Migration 4: a rowid table appended to in creation order. Pending items are read by a rowid cursor; only Retry
// items (due later) and dead letters have an index, so enqueueing touches the table's last page and nothing else.
// Migration 5 (the folded outbox): a new notification's items are not written with it; its row carries a marker
// of its routes (`notifications.outbound`, store/outbox-marker.ts), expanded into these rows later, in notification
// order (store/outbox-expansion.ts).
// Migration 6: an item's subject is a notification or an interaction (a question for a relay route); both joins
// are by rowid, and the one that does not apply finds nothing.
const ITEM_COLUMNS =
  "o.seq, o.subject, n.id AS notification_id, o.route_id, o.provider_id, o.include_message, o.status, o.attempts, " +
  "o.next_attempt_ms, o.last_status, o.last_code, o.created_ms, o.updated_ms, o.delivered_ms, n.title, n.message, " +
  "n.type, n.priority, n.agent, n.project, n.key, n.created_at AS notification_created_at, " +
  "i.id AS interaction_id, i.kind AS interaction_kind, i.prompt AS interaction_prompt, " +
  "i.agent AS interaction_agent, i.project AS interaction_project, i.key AS interaction_key, " +
  "i.created_at AS interaction_created_at";
const JOINS =
  "LEFT JOIN notifications n ON o.subject = 'notification' AND n.seq = o.subject_seq " +
  "LEFT JOIN interactions i ON o.subject = 'interaction' AND i.seq = o.subject_seq";
const FROM = `FROM outbox o ${JOINS}`;

const SELECT_PENDING = `SELECT ${ITEM_COLUMNS} ${FROM} WHERE o.seq > ? AND o.seq <= ? AND o.status = 'Pending'
  ORDER BY o.seq LIMIT ?`;
const LAST_SEQ = "SELECT max(seq) AS seq FROM outbox";
// INDEXED BY: the planner must walk the partial index in due order, never sort the backlog.
const SELECT_RETRY_DUE = `SELECT ${ITEM_COLUMNS} FROM outbox o INDEXED BY outbox_retry ${JOINS}
  WHERE o.status = 'Retry' AND o.next_attempt_ms <= ? ORDER BY o.next_attempt_ms LIMIT ?`;
const NEXT_RETRY = "SELECT min(next_attempt_ms) AS next FROM outbox INDEXED BY outbox_retry WHERE status = 'Retry'";
const FIRST_PENDING = "SELECT min(seq) AS seq FROM outbox WHERE status = 'Pending'";
const RECORD = `UPDATE outbox SET status = :status, attempts = :attempts, next_attempt_ms = :next_attempt_ms,
  last_status = :last_status, last_code = :last_code, updated_ms = :updated_ms, delivered_ms = :delivered_ms
  WHERE seq = :seq`;
const SELECT_BY_SEQ = `SELECT ${ITEM_COLUMNS} ${FROM} WHERE o.seq = ?`;
const COUNT_BY_STATUS = "SELECT status, count(*) AS count FROM outbox GROUP BY status";
const INTERACTION_ITEMS = `SELECT o.seq, o.provider_id, o.status FROM outbox o INDEXED BY outbox_by_interaction
  WHERE o.subject = 'interaction' AND o.subject_seq = (SELECT seq FROM interactions WHERE id = ?)`;
const INSERT_INTERACTION_ITEM = `INSERT INTO outbox (subject, subject_seq, route_id, provider_id, include_message,
  status, next_attempt_ms, created_ms, updated_ms)
  SELECT 'interaction', seq, ?2, ?3, 1, 'Pending', ?4, ?4, ?4 FROM interactions WHERE id = ?1`;
// The delivery timeline's reads (attention/timeline.ts), run when a person opens an item. A notification's items have
// no index of their own (enqueueing one touches none, migration 6): a scan of the outbox. A question's use the
// interaction index.
const SUBJECT_COLUMNS =
  "o.seq, o.route_id, o.provider_id, o.status, o.attempts, o.next_attempt_ms, o.last_status, o.last_code, " +
  "o.created_ms, o.updated_ms, o.delivered_ms";
const NOTIFICATION_SUBJECT_ITEMS = `SELECT ${SUBJECT_COLUMNS} FROM outbox o
  WHERE o.subject = 'notification' AND o.subject_seq = (SELECT seq FROM notifications WHERE id = ?) ORDER BY o.seq`;
const INTERACTION_SUBJECT_ITEMS = `SELECT ${SUBJECT_COLUMNS} FROM outbox o INDEXED BY outbox_by_interaction
  WHERE o.subject = 'interaction' AND o.subject_seq = (SELECT seq FROM interactions WHERE id = ?) ORDER BY o.seq`;
const INSERT_ITEM = `INSERT INTO outbox (subject, subject_seq, route_id, provider_id, include_message, status,
  next_attempt_ms, created_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, 'Pending', ?6, ?6, ?6)`;

/** An item row: the outbox columns, the notification columns a payload is built from, the question's. */
interface Row extends Omit<NotificationColumns, "id" | "createdAt"> {
  seq: number;
  subject: string;
  notification_id: string | null;
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
  notification_created_at: string;
  interaction_id: string | null;
  interaction_kind: string | null;
  interaction_prompt: string | null;
  interaction_agent: string | null;
  interaction_project: string | null;
  interaction_key: string | null;
  interaction_created_at: string | null;
}

/** An interaction item as `itemsForInteraction` reads it (publish's idempotence). */
export interface InteractionItemRef {
  seq: number;
  providerId: string;
  status: OutboxStatus;
}

/** One outbox item of a notification or a question, as its delivery timeline shows it. */
export interface SubjectItem {
  seq: number;
  routeId: string;
  providerId: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptMs: number;
  lastStatus: number | null;
  lastCode: string | null;
  createdMs: number;
  updatedMs: number;
  deliveredMs: number | null;
}

type SubjectItemRow = Pick<
  Row,
  | "seq"
  | "route_id"
  | "provider_id"
  | "status"
  | "attempts"
  | "next_attempt_ms"
  | "last_status"
  | "last_code"
  | "created_ms"
  | "updated_ms"
  | "delivered_ms"
>;

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

/** The durable outbox as the dispatcher, the question outbox and the routes use it. */
export interface OutboxStore {
  /** The public id of the item stored at `seq`. */
  idOf(seq: number): string;
  /** The row of a public id, or undefined for an id that is not of this database's form. */
  seqOf(id: string): number | undefined;
  /** The items of one interaction (any status), by provider: what publish checks before it enqueues. */
  itemsForInteraction(interactionId: string): InteractionItemRef[];
  /** Enqueues one Pending interaction item for a route (inside the caller's unit of work). */
  enqueueInteraction(interactionId: string, route: RouteRef, nowMs: number): void;
  /** The row of a question by its public id (a routed question's held row names it). */
  interactionSeq(interactionId: string): number | undefined;
  /** One Pending item for one route and one subject row, now (a routed delivery); returns its row. */
  enqueueItem(subject: OutboxSubject, subjectSeq: number, route: RouteRef, nowMs: number): number;
  /** One Pending item per route of `marker` for one notification row, now (a dedup refresh). */
  enqueue(notificationRow: number, marker: string, nowMs: number): void;
  /** A notification row carrying a marker has committed (an after-commit callback of its create). */
  noteCommitted(notificationRow: number): void;
  /** True when committed notifications carry markers not yet expanded (or rows not yet scanned for one). */
  hasUnexpanded(): boolean;
  /** One expansion step, as its own unit of work. */
  expand(limit?: number): Expansion;
  /** Expands every committed marker. */
  expandAll(): void;
  /** Expands the markers committed by now a chunk per event-loop turn (an outbox read over HTTP). */
  caughtUp(): Promise<void>;
  /** Pending items in rows (afterSeq, throughSeq], in creation order (the dispatcher's cursor). */
  pendingAfter(afterSeq: number, throughSeq: number, limit: number): DueItem[];
  lastSeq(): number;
  firstPendingSeq(): number | undefined;
  /** Retry items due by `nowMs`, earliest first. */
  retryDue(nowMs: number, limit: number): DueItem[];
  nextRetry(): number | undefined;
  /** Records an attempt's outcome as its own unit of work (it joins the group commit). */
  recordInTransaction(seq: number, change: OutboxChange): void;
  byId(id: string): OutboxItem | undefined;
  bySeq(seq: number): OutboxItem | undefined;
  list(filter: { status?: OutboxStatus; limit: number }): OutboxItem[];
  counts(): Record<string, number>;
  /** The items of one notification or question by its public id, in creation order (its delivery timeline). */
  itemsOfSubject(subject: OutboxSubject, id: string): SubjectItem[];
  /** Markers that did not decode and were passed over (diagnostics; never their text). */
  readonly skippedMarkers: number;
}

/** SQL for the durable outbox. */
export class SqliteOutboxStore implements OutboxStore {
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
  private readonly listStatements: StatementCache;
  private readonly interactionItemsStatement: StatementSync;
  private readonly insertInteractionStatement: StatementSync;
  private readonly insertItemStatement: StatementSync;
  private readonly interactionSeqStatement: StatementSync;
  private readonly subjectItemStatements: Record<OutboxSubject, StatementSync>;
  /** The folded outbox's markers, expanded into items in notification order. */
  private readonly expansion: MarkerExpansion;

  constructor(private readonly db: DatabaseSync) {
    const meta = db.prepare("SELECT namespace, expanded_through FROM outbox_meta").get() as {
      namespace: string;
      expanded_through: number;
    };
    this.idPrefix = `obx_${meta.namespace}`;
    this.expansion = new MarkerExpansion(db, meta.expanded_through);
    this.listStatements = new StatementCache(db);
    this.interactionItemsStatement = db.prepare(INTERACTION_ITEMS);
    this.insertInteractionStatement = db.prepare(INSERT_INTERACTION_ITEM);
    this.insertItemStatement = db.prepare(INSERT_ITEM);
    this.interactionSeqStatement = db.prepare("SELECT seq FROM interactions WHERE id = ?");
    this.pendingStatement = db.prepare(SELECT_PENDING);
    this.retryDueStatement = db.prepare(SELECT_RETRY_DUE);
    this.nextRetryStatement = db.prepare(NEXT_RETRY);
    this.firstPendingStatement = db.prepare(FIRST_PENDING);
    this.lastSeqStatement = db.prepare(LAST_SEQ);
    this.recordStatement = db.prepare(RECORD);
    this.bySeqStatement = db.prepare(SELECT_BY_SEQ);
    this.countStatement = db.prepare(COUNT_BY_STATUS);
    this.subjectItemStatements = {
      notification: db.prepare(NOTIFICATION_SUBJECT_ITEMS),
      interaction: db.prepare(INTERACTION_SUBJECT_ITEMS),
    };
  }

  itemsOfSubject(subject: OutboxSubject, id: string): SubjectItem[] {
    const rows = this.subjectItemStatements[subject].all(id) as unknown as SubjectItemRow[];
    return rows.map((row) => ({
      seq: row.seq,
      routeId: row.route_id,
      providerId: row.provider_id,
      status: row.status as OutboxStatus,
      attempts: row.attempts,
      nextAttemptMs: row.next_attempt_ms,
      lastStatus: row.last_status,
      lastCode: row.last_code,
      createdMs: row.created_ms,
      updatedMs: row.updated_ms,
      deliveredMs: row.delivered_ms,
    }));
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
   * The payload is built from the notification row when the item is read (outbox/payload.ts): what leaves is the
   * notification as it is at send time, with the message left out when the route's IncludeMessage is off.
   */
  private toItem(row: Row): OutboxItem {
    if (row.subject === "interaction") {
      const payload = interactionSummary({
        id: row.interaction_id ?? "",
        kind: row.interaction_kind,
        prompt: row.interaction_prompt,
        agent: row.interaction_agent,
        project: row.interaction_project,
        key: row.interaction_key,
        createdAt: row.interaction_created_at ?? isoTime(row.created_ms),
      });
      return { ...this.itemBase(row), subject: "interaction", interactionId: row.interaction_id ?? "", payload };
    }
    const payload = notificationPayload(
      { ...row, id: row.notification_id ?? "", createdAt: row.notification_created_at },
      row.include_message === 1,
    );
    return { ...this.itemBase(row), subject: "notification", notificationId: row.notification_id ?? "", payload };
  }

  private itemBase(row: Row): OutboxItemBase {
    const id = this.idOf(row.seq);
    const item: OutboxItemBase = {
      id,
      routeId: row.route_id,
      providerId: row.provider_id,
      status: row.status as OutboxStatus,
      attempts: row.attempts,
      nextAttemptMs: row.next_attempt_ms,
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

  /** The items of one interaction (any status), by provider: what publish checks before it enqueues. */
  itemsForInteraction(interactionId: string): InteractionItemRef[] {
    const rows = this.interactionItemsStatement.all(interactionId) as unknown as {
      seq: number;
      provider_id: string;
      status: string;
    }[];
    return rows.map((row) => ({ seq: row.seq, providerId: row.provider_id, status: row.status as OutboxStatus }));
  }

  /** Enqueues one Pending interaction item for a route (inside the caller's transaction). */
  enqueueInteraction(interactionId: string, route: RouteRef, nowMs: number): void {
    this.insertInteractionStatement.run(interactionId, route.id, route.providerId, nowMs);
  }

  interactionSeq(interactionId: string): number | undefined {
    const row = this.interactionSeqStatement.get(interactionId) as { seq: number } | undefined;
    return row?.seq;
  }

  enqueueItem(subject: OutboxSubject, subjectSeq: number, route: RouteRef, nowMs: number): number {
    const result = this.insertItemStatement.run(
      subject,
      subjectSeq,
      route.id,
      route.providerId,
      route.includeMessage ? 1 : 0,
      nowMs,
    );
    return Number(result.lastInsertRowid);
  }

  private toItems(rows: unknown[]): OutboxItem[] {
    return (rows as Row[]).map((row) => this.toItem(row));
  }

  private toDueItems(rows: unknown[]): DueItem[] {
    return (rows as Row[]).map((row) => Object.assign(this.toItem(row), { seq: row.seq }));
  }

  /**
   * Enqueues one Pending item per route of `marker` for one notification, now, with a single INSERT: the dedup
   * refresh of an existing notification (its row got its marker, if any, when it was created).
   */
  enqueue(notificationRow: number, marker: string, nowMs: number): void {
    this.expansion.insertFor(marker).run(notificationRow, nowMs);
  }

  noteCommitted(notificationRow: number): void {
    this.expansion.noteCommitted(notificationRow);
  }

  hasUnexpanded(): boolean {
    return this.expansion.hasUnexpanded();
  }

  expand(limit = EXPAND_CHUNK): Expansion {
    return this.expansion.expand(limit);
  }

  expandAll(): void {
    this.expansion.expandAll();
  }

  caughtUp(): Promise<void> {
    return this.expansion.caughtUp();
  }

  get skippedMarkers(): number {
    return this.expansion.skippedMarkers;
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
    return seq === undefined ? undefined : this.bySeq(seq);
  }

  /** The item stored at `seq`. No expansion first: an id is made when its item is expanded, so it exists. */
  bySeq(seq: number): OutboxItem | undefined {
    const row = this.bySeqStatement.get(seq) as Row | undefined;
    return row ? this.toItem(row) : undefined;
  }

  /** Newest first. Dead letters come from their own partial index; everything else is a scan (an owner's view). */
  list(filter: { status?: OutboxStatus; limit: number }): OutboxItem[] {
    this.expandAll();
    const sql =
      filter.status === undefined
        ? `SELECT ${ITEM_COLUMNS} ${FROM} ORDER BY o.seq DESC LIMIT ?`
        : filter.status === "DeadLetter"
          ? `SELECT ${ITEM_COLUMNS} FROM outbox o INDEXED BY outbox_dead ${JOINS}
             WHERE o.status = 'DeadLetter' ORDER BY o.seq DESC LIMIT ?`
          : `SELECT ${ITEM_COLUMNS} ${FROM} WHERE o.status = ? ORDER BY o.seq DESC LIMIT ?`;
    const statement = this.listStatements.get(sql);
    const rows =
      filter.status === undefined || filter.status === "DeadLetter"
        ? statement.all(filter.limit)
        : statement.all(filter.status, filter.limit);
    return this.toItems(rows);
  }

  counts(): Record<string, number> {
    this.expandAll();
    const counts: Record<string, number> = {};
    for (const row of this.countStatement.all() as unknown as { status: string; count: number }[]) {
      counts[row.status] = row.count;
    }
    return counts;
  }
}
