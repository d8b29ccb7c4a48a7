import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { ToastState } from "@notify/contracts/enums";

/**
 * The desktop notifications of an item (migration 12), for its delivery timeline: when the desktop service
 * accepted a toast, and when and why it closed one. Written by the presenter (presentation/presenter.ts), read by
 * attention/timeline.ts. Holds ids and times only, never a toast's text.
 */

/** The contract's toast states (issue 34: each enum once). */
export type ToastEvent = ToastState;

export interface ToastRow {
  event: ToastEvent;
  /** The desktop service's close reason (`expired`, `dismissed`, `closed`, `undefined`); null for `shown`. */
  reason: string | null;
  atMs: number;
}

export interface ToastStore {
  /** Appends one event of the toast of item `subjectId` (inside the caller's unit of work). */
  record(subjectId: string, event: ToastEvent, reason: string | null, atMs: number): void;
  /** The events of an item's notification and question (either may be absent), oldest first. */
  forItem(notificationId: string | undefined, interactionId: string | undefined): ToastRow[];
}

export class SqliteToastStore implements ToastStore {
  private readonly insert: StatementSync;
  private readonly select: StatementSync;

  constructor(db: DatabaseSync) {
    this.insert = db.prepare("INSERT INTO toast_events (subject_id, event, reason, at_ms) VALUES (?, ?, ?, ?)");
    this.select = db.prepare(
      "SELECT event, reason, at_ms FROM toast_events WHERE subject_id IN (?, ?) ORDER BY at_ms, seq",
    );
  }

  record(subjectId: string, event: ToastEvent, reason: string | null, atMs: number): void {
    this.insert.run(subjectId, event, reason, atMs);
  }

  forItem(notificationId: string | undefined, interactionId: string | undefined): ToastRow[] {
    const rows = this.select.all(notificationId ?? null, interactionId ?? null) as unknown as {
      event: string;
      reason: string | null;
      at_ms: number;
    }[];
    return rows.map((row) => ({ event: row.event as ToastEvent, reason: row.reason, atMs: row.at_ms }));
  }
}
