import type { DatabaseSync, StatementSync } from "node:sqlite";
import { afterCommit, transaction } from "./database.js";
import { decodeMarker } from "./outbox-marker.js";

const LAST_NOTIFICATION = "SELECT max(seq) AS seq FROM notifications";
const EXPANDED_THROUGH = "SELECT expanded_through FROM outbox_meta";
const SET_EXPANDED_THROUGH = "UPDATE outbox_meta SET expanded_through = ?";
// A range scan over the notifications' rowids: the markers not yet expanded, oldest first.
const SELECT_MARKERS = `SELECT seq, outbound, created_at FROM notifications
  WHERE seq > ? AND seq <= ? AND outbound IS NOT NULL ORDER BY seq LIMIT ?`;

/** Notifications whose markers one expansion step turns into items (at most 3 x this many rows per route set). */
export const EXPAND_CHUNK = 256;
/** Notification rows one expansion step scans at most, so rows without a marker never make a step long. */
const EXPAND_SPAN = 4096;

/** One expansion step: the items it wrote, and whether every committed marker is now expanded. */
export interface Expansion {
  items: number;
  done: boolean;
}

/** A string as an SQL literal. */
function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * The expansion cursor of the folded outbox (migration 5): `outbox_meta.expanded_through` is the last notification
 * row whose marker has become outbox items. Markers are expanded in notification order, only once committed.
 */
export class MarkerExpansion {
  private readonly insertByMarker = new Map<string, StatementSync>();
  private readonly lastNotificationStatement: StatementSync;
  private readonly expandedThroughStatement: StatementSync;
  private readonly setExpandedThroughStatement: StatementSync;
  private readonly markersStatement: StatementSync;
  /**
   * The last notification row known committed. Only committed rows are expanded: a row of the open group-commit
   * batch could still roll back and its rowid be reused by another notification. With no transaction open every
   * row is committed; inside one, this is what commits reported last (`noteCommitted`).
   */
  private committedThrough = 0;
  /**
   * `expanded_through` as last committed: a lower bound of the stored value (an expansion of the open batch may be
   * ahead), so `committedThrough <= expandedHint` means nothing is left to expand. The expansion itself always
   * reads the stored value, in its own transaction.
   */
  private expandedHint: number;
  /** Markers that did not decode and were passed over (diagnostics; never their text). */
  skippedMarkers = 0;

  constructor(
    private readonly db: DatabaseSync,
    expandedThrough: number,
  ) {
    this.expandedHint = expandedThrough;
    this.lastNotificationStatement = db.prepare(LAST_NOTIFICATION);
    this.expandedThroughStatement = db.prepare(EXPANDED_THROUGH);
    this.setExpandedThroughStatement = db.prepare(SET_EXPANDED_THROUGH);
    this.markersStatement = db.prepare(SELECT_MARKERS);
  }

  /**
   * The INSERT of one Pending item per route of a marker, for one notification row and one time. The routes are
   * written into the statement as literals (one prepared statement per marker, cached), so a run binds two values
   * instead of seven per route.
   */
  insertFor(marker: string): StatementSync {
    let statement = this.insertByMarker.get(marker);
    if (!statement) {
      const rows = decodeMarker(marker)
        .map((route) => `(${sqlText(route.id)}, ${sqlText(route.providerId)}, ${route.includeMessage ? 1 : 0})`)
        .join(", ");
      statement = this.db.prepare(`INSERT INTO outbox (subject_seq, route_id, provider_id, include_message,
        status, next_attempt_ms, created_ms, updated_ms)
        SELECT ?1, column1, column2, column3, 'Pending', ?2, ?2, ?2 FROM (VALUES ${rows})`);
      // Route sets change only when routes are edited; a bounded cache keeps old sets from piling up.
      if (this.insertByMarker.size >= 64) this.insertByMarker.clear();
      this.insertByMarker.set(marker, statement);
    }
    return statement;
  }

  /** A notification row carrying a marker has committed (an after-commit callback of its create). */
  noteCommitted(notificationRow: number): void {
    if (notificationRow > this.committedThrough) this.committedThrough = notificationRow;
  }

  private committedSeq(): number {
    if (!this.db.isTransaction) {
      const row = this.lastNotificationStatement.get() as { seq: number | null };
      this.noteCommitted(row.seq ?? 0);
    }
    return this.committedThrough;
  }

  /** True when committed notifications carry markers not yet expanded (or rows not yet scanned for one). */
  hasUnexpanded(): boolean {
    return this.committedSeq() > this.expandedHint;
  }

  /**
   * One expansion step, as one unit of work (it joins the group commit): the markers of at most `limit`
   * committed notifications after `expanded_through`, oldest first, become one Pending item per route, and
   * `expanded_through` advances in the same transaction, so a crash keeps both or neither, and a second run never
   * expands a marker twice. The cursor moves to the last notification expanded when `limit` were, else to the end
   * of the rows scanned. Items take their notification's creation time (created, updated and due), so an item
   * reads as if it had been written with its notification.
   */
  expand(limit = EXPAND_CHUNK): Expansion {
    const through = this.committedSeq();
    if (through <= this.expandedHint) return { items: 0, done: true };
    return transaction(this.db, (): Expansion => {
      const from = (this.expandedThroughStatement.get() as { expanded_through: number }).expanded_through;
      if (from >= through) {
        // Expanded earlier in the open batch.
        afterCommit(this.db, () => {
          if (from > this.expandedHint) this.expandedHint = from;
        });
        return { items: 0, done: true };
      }
      const end = Math.min(through, from + EXPAND_SPAN);
      const markers = this.markersStatement.all(from, end, limit) as unknown as {
        seq: number;
        outbound: string;
        created_at: string;
      }[];
      let items = 0;
      for (const marker of markers) {
        let insert: StatementSync;
        try {
          insert = this.insertFor(marker.outbound);
        } catch {
          // Only the encoder writes markers; one that does not decode (a file edited by hand) is skipped, so it can
          // never stop the expansion of every marker after it.
          this.skippedMarkers++;
          continue;
        }
        items += Number(insert.run(marker.seq, Date.parse(marker.created_at)).changes);
      }
      const cursor = markers.length === limit ? (markers.at(-1)?.seq ?? end) : end;
      this.setExpandedThroughStatement.run(cursor);
      afterCommit(this.db, () => {
        if (cursor > this.expandedHint) this.expandedHint = cursor;
      });
      return { items, done: cursor >= through };
    });
  }

  /** Expands every committed marker: what an outbox read does first, so it shows every item of a created notification. */
  expandAll(): void {
    while (!this.expand().done);
  }

  /**
   * Expands the markers committed by now a chunk per event-loop turn, for a read over HTTP: after a long busy spell
   * the backlog of markers can be large (bench/README.md, Outbound: the folded outbox, has the cost per
   * notification), and expanding it in one go would hold every API request for that long. The read's own
   * `expandAll` then finds at most what was created meanwhile.
   */
  async caughtUp(): Promise<void> {
    const target = this.committedSeq();
    while (this.expandedHint < target) {
      const step = this.expand();
      await new Promise((resolve) => setImmediate(resolve));
      if (step.done) break;
    }
  }
}
