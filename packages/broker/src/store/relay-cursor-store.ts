import type { DatabaseSync, StatementSync } from "node:sqlite";
import { transaction } from "./database.js";

const SELECT = "SELECT cursor, stopped, stopped_for FROM relay_cursors WHERE provider_id = ?";
const SAVE_CURSOR = `INSERT INTO relay_cursors (provider_id, cursor, updated_ms) VALUES (?1, ?2, ?3)
  ON CONFLICT (provider_id) DO UPDATE SET cursor = ?2, updated_ms = ?3`;
const SAVE_STOP = `INSERT INTO relay_cursors (provider_id, stopped, stopped_for, updated_ms) VALUES (?1, ?2, ?3, ?4)
  ON CONFLICT (provider_id) DO UPDATE SET stopped = ?2, stopped_for = ?3, updated_ms = ?4`;

export interface RelayPollState {
  /** The last cursor acknowledged after its answers were settled; undefined before the first page. */
  cursor: string | undefined;
  /** The HTTP status (401/403) that stopped the poll, and the profile version it applied to. */
  stopped: { status: number; profileVersion: string } | undefined;
}

/** SQL for the relay poll's durable state (migration 7). */
export class RelayCursorStore {
  private readonly selectStatement: StatementSync;
  private readonly saveCursorStatement: StatementSync;
  private readonly saveStopStatement: StatementSync;

  constructor(readonly db: DatabaseSync) {
    this.selectStatement = db.prepare(SELECT);
    this.saveCursorStatement = db.prepare(SAVE_CURSOR);
    this.saveStopStatement = db.prepare(SAVE_STOP);
  }

  get(providerId: string): RelayPollState {
    const row = this.selectStatement.get(providerId) as
      | { cursor: string | null; stopped: number | null; stopped_for: string | null }
      | undefined;
    return {
      cursor: row?.cursor ?? undefined,
      stopped: row?.stopped == null ? undefined : { status: row.stopped, profileVersion: row.stopped_for ?? "" },
    };
  }

  saveCursor(providerId: string, cursor: string, nowMs: number): void {
    transaction(this.db, () => this.saveCursorStatement.run(providerId, cursor, nowMs));
  }

  /** Records (or clears, with null) the status that stopped the poll; the cursor is left as it is. */
  saveStop(providerId: string, stop: { status: number; profileVersion: string } | null, nowMs: number): void {
    transaction(this.db, () =>
      this.saveStopStatement.run(providerId, stop?.status ?? null, stop?.profileVersion ?? null, nowMs),
    );
  }
}
