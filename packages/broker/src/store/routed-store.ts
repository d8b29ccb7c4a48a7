import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Priority } from "../notifications/types.js";
import type { OutboxSubject } from "../outbox/types.js";
import type { RouteRef } from "./outbox-marker.js";

/**
 * What a route with routing options decided for an item (migrations 9 and 11, docs/routing.md): a `held` row
 * waits for its due time (or a presence change), becomes `sent` in the transaction that writes its outbox item, or
 * `void` when its item settles first (in the settling transaction) or its route goes. Rows are kept for the item's
 * timeline, which also reads what a row was held for (`held_*`, written once when it is held).
 */

export type RoutedState = "held" | "sent" | "void";

/** A held row with what the policy needs of its item, read in one join. */
export interface HeldRow {
  seq: number;
  subject: OutboxSubject;
  subjectSeq: number;
  routeId: string;
  providerId: string;
  includeMessage: boolean;
  priority: Priority;
  dueMs: number | null;
  /** The item's status now (`active`/`pending` while open), or null when the item is gone. */
  status: string | null;
  /** The item's creation (ISO), or null when the item is gone. */
  createdAt: string | null;
}

/** A row as the timeline reads it. */
export interface RoutedRow {
  routeId: string;
  providerId: string;
  state: RoutedState;
  dueMs: number | null;
  reason: string;
  presence: string | null;
  outboxSeq: number | null;
  createdMs: number;
  updatedMs: number;
  /** What the row was held for when it was held (migration 11); null for a row that went at once. */
  heldReason: string | null;
  heldDueMs: number | null;
  heldPresence: string | null;
}

export interface NewRouted {
  subject: OutboxSubject;
  subjectSeq: number;
  route: RouteRef;
  priority: Priority;
  state: RoutedState;
  dueMs: number | null;
  reason: string;
  /** The presence the decision saw: kept as `presence` on a sent row, as `held_presence` on a held one. */
  presence?: string | undefined;
  outboxSeq?: number | undefined;
  nowMs: number;
}

export interface RoutedStore {
  /** Writes one decision (inside the caller's unit of work). */
  insert(row: NewRouted): void;
  /** True when the item already has a held row for the route (a dedup refresh holds nothing twice). */
  isHeld(subject: OutboxSubject, subjectSeq: number, routeId: string): boolean;
  /** Held rows due by `nowMs`, earliest first. */
  due(nowMs: number, limit: number): HeldRow[];
  /** Held rows after `afterSeq` (any due time), in row order: a presence change walks them all. */
  heldAfter(afterSeq: number, limit: number): HeldRow[];
  /** The earliest due time of a held row. */
  nextDue(): number | undefined;
  /** How many rows are held. */
  heldCount(): number;
  reschedule(seq: number, dueMs: number | null, reason: string, nowMs: number): void;
  markSent(seq: number, outboxSeq: number, reason: string, presence: string | undefined, nowMs: number): void;
  markVoid(seq: number, reason: string, nowMs: number): void;
  /** Voids every held row of an item by its public id (its settle, inside the settling transaction). */
  voidFor(subject: OutboxSubject, id: string, reason: string, nowMs: number): number;
  /** Every decision for an item, oldest first (the timeline). */
  forSubject(subject: OutboxSubject, id: string): RoutedRow[];
}

const HELD_COLUMNS = `r.seq, r.subject, r.subject_seq, r.route_id, r.provider_id, r.include_message, r.priority,
  r.due_ms, coalesce(n.status, i.status) AS status, coalesce(n.created_at, i.created_at) AS created_at`;
const HELD_JOINS = `LEFT JOIN notifications n ON r.subject = 'notification' AND n.seq = r.subject_seq
  LEFT JOIN interactions i ON r.subject = 'interaction' AND i.seq = r.subject_seq`;
const SUBJECT_SEQ = `CASE ?1 WHEN 'notification' THEN (SELECT seq FROM notifications WHERE id = ?2)
  ELSE (SELECT seq FROM interactions WHERE id = ?2) END`;

interface HeldDbRow {
  seq: number;
  subject: string;
  subject_seq: number;
  route_id: string;
  provider_id: string;
  include_message: number;
  priority: string;
  due_ms: number | null;
  status: string | null;
  created_at: string | null;
}

function toHeld(row: HeldDbRow): HeldRow {
  return {
    seq: row.seq,
    subject: row.subject as OutboxSubject,
    subjectSeq: row.subject_seq,
    routeId: row.route_id,
    providerId: row.provider_id,
    includeMessage: row.include_message === 1,
    priority: row.priority as Priority,
    dueMs: row.due_ms,
    status: row.status,
    createdAt: row.created_at,
  };
}

export class SqliteRoutedStore implements RoutedStore {
  private readonly statements: {
    insert: StatementSync;
    isHeld: StatementSync;
    due: StatementSync;
    heldAfter: StatementSync;
    nextDue: StatementSync;
    heldCount: StatementSync;
    reschedule: StatementSync;
    markSent: StatementSync;
    markVoid: StatementSync;
    voidFor: StatementSync;
    forSubject: StatementSync;
  };

  constructor(db: DatabaseSync) {
    this.statements = {
      insert: db.prepare(`INSERT INTO routed_deliveries (subject, subject_seq, route_id, provider_id, include_message,
        priority, state, due_ms, reason, presence, outbox_seq, created_ms, updated_ms, held_reason, held_due_ms,
        held_presence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      isHeld: db.prepare(`SELECT 1 FROM routed_deliveries INDEXED BY routed_by_subject
        WHERE subject = ? AND subject_seq = ? AND route_id = ? AND state = 'held' LIMIT 1`),
      due: db.prepare(`SELECT ${HELD_COLUMNS} FROM routed_deliveries r INDEXED BY routed_due ${HELD_JOINS}
        WHERE r.state = 'held' AND r.due_ms IS NOT NULL AND r.due_ms <= ? ORDER BY r.due_ms LIMIT ?`),
      heldAfter: db.prepare(`SELECT ${HELD_COLUMNS} FROM routed_deliveries r INDEXED BY routed_held ${HELD_JOINS}
        WHERE r.state = 'held' AND r.seq > ? ORDER BY r.seq LIMIT ?`),
      nextDue: db.prepare(`SELECT min(due_ms) AS due FROM routed_deliveries INDEXED BY routed_due
        WHERE state = 'held' AND due_ms IS NOT NULL`),
      heldCount: db.prepare(
        "SELECT count(*) AS count FROM routed_deliveries INDEXED BY routed_held WHERE state = 'held'",
      ),
      reschedule: db.prepare("UPDATE routed_deliveries SET due_ms = ?, reason = ?, updated_ms = ? WHERE seq = ?"),
      markSent: db.prepare(`UPDATE routed_deliveries SET state = 'sent', due_ms = NULL, outbox_seq = ?, reason = ?,
        presence = ?, updated_ms = ? WHERE seq = ?`),
      markVoid: db.prepare(
        "UPDATE routed_deliveries SET state = 'void', due_ms = NULL, reason = ?, updated_ms = ? WHERE seq = ?",
      ),
      voidFor: db.prepare(`UPDATE routed_deliveries SET state = 'void', due_ms = NULL, reason = ?3, updated_ms = ?4
        WHERE subject = ?1 AND subject_seq = ${SUBJECT_SEQ} AND state = 'held'`),
      forSubject: db.prepare(`SELECT route_id, provider_id, state, due_ms, reason, presence, outbox_seq, created_ms,
        updated_ms, held_reason, held_due_ms, held_presence FROM routed_deliveries INDEXED BY routed_by_subject
        WHERE subject = ?1 AND subject_seq = ${SUBJECT_SEQ} ORDER BY seq`),
    };
  }

  insert(row: NewRouted): void {
    const held = row.state === "held";
    this.statements.insert.run(
      row.subject,
      row.subjectSeq,
      row.route.id,
      row.route.providerId,
      row.route.includeMessage ? 1 : 0,
      row.priority,
      row.state,
      row.dueMs,
      row.reason,
      held ? null : (row.presence ?? null),
      row.outboxSeq ?? null,
      row.nowMs,
      row.nowMs,
      held ? row.reason : null,
      held ? row.dueMs : null,
      held ? (row.presence ?? null) : null,
    );
  }

  isHeld(subject: OutboxSubject, subjectSeq: number, routeId: string): boolean {
    return this.statements.isHeld.get(subject, subjectSeq, routeId) !== undefined;
  }

  due(nowMs: number, limit: number): HeldRow[] {
    return (this.statements.due.all(nowMs, limit) as unknown as HeldDbRow[]).map(toHeld);
  }

  heldAfter(afterSeq: number, limit: number): HeldRow[] {
    return (this.statements.heldAfter.all(afterSeq, limit) as unknown as HeldDbRow[]).map(toHeld);
  }

  nextDue(): number | undefined {
    const row = this.statements.nextDue.get() as { due: number | null };
    return row.due ?? undefined;
  }

  heldCount(): number {
    return (this.statements.heldCount.get() as { count: number }).count;
  }

  reschedule(seq: number, dueMs: number | null, reason: string, nowMs: number): void {
    this.statements.reschedule.run(dueMs, reason, nowMs, seq);
  }

  markSent(seq: number, outboxSeq: number, reason: string, presence: string | undefined, nowMs: number): void {
    this.statements.markSent.run(outboxSeq, reason, presence ?? null, nowMs, seq);
  }

  markVoid(seq: number, reason: string, nowMs: number): void {
    this.statements.markVoid.run(reason, nowMs, seq);
  }

  voidFor(subject: OutboxSubject, id: string, reason: string, nowMs: number): number {
    return Number(this.statements.voidFor.run(subject, id, reason, nowMs).changes);
  }

  forSubject(subject: OutboxSubject, id: string): RoutedRow[] {
    const rows = this.statements.forSubject.all(subject, id) as unknown as {
      route_id: string;
      provider_id: string;
      state: string;
      due_ms: number | null;
      reason: string;
      presence: string | null;
      outbox_seq: number | null;
      created_ms: number;
      updated_ms: number;
      held_reason: string | null;
      held_due_ms: number | null;
      held_presence: string | null;
    }[];
    return rows.map((row) => ({
      routeId: row.route_id,
      providerId: row.provider_id,
      state: row.state as RoutedState,
      dueMs: row.due_ms,
      reason: row.reason,
      presence: row.presence,
      outboxSeq: row.outbox_seq,
      createdMs: row.created_ms,
      updatedMs: row.updated_ms,
      heldReason: row.held_reason,
      heldDueMs: row.held_due_ms,
      heldPresence: row.held_presence,
    }));
  }
}
