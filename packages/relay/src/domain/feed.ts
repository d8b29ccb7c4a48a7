import type { RelayStore } from "../store/types.js";
import type { Cancellation, ChangeHub } from "./change-hub.js";
import type { Clock } from "./clock.js";
import { decodeCursor, encodeCursor, FIRST_POLL_WINDOW } from "./cursor.js";
import { RelayError } from "./errors.js";

export const PAGE_SIZE = 500;
export const MAX_WAIT_SECONDS = 30;

/** What a feed needs of a row: where it stands. */
export interface FeedRow {
  position: string;
}

export interface FeedSource<Row extends FeedRow> {
  /** The hub key that announces new rows for this reader. */
  key: string;
  fetch(after: string | null, floor: number, limit: number): Promise<Row[]>;
  ack(upTo: string, now: number): Promise<void>;
}

export interface FeedPage<Row> {
  rows: Row[];
  nextCursor: string;
}

/** A re-check after a wake-up that found nothing (PostgreSQL may still hold the row back; see docs/relay.md). */
const RECHECK_FIRST_MS = 20;
const RECHECK_MAX_MS = 1000;

/**
 * One cursor feed (answers for an installation, envelopes for a device), with the contract's rules
 * (docs/relay.md, "Cursors"): `since` empty means the last 24 hours; sending back a cursor acknowledges what it covers;
 * an empty page returns the same cursor.
 */
export class Feed {
  /** Last position acknowledged per reader in this process: a repeated cursor costs no write. */
  private readonly acked = new Map<string, string>();

  constructor(
    private readonly store: RelayStore,
    private readonly clock: Clock,
    private readonly hub: ChangeHub,
  ) {}

  async page<Row extends FeedRow>(
    source: FeedSource<Row>,
    since: string | undefined,
    waitSeconds: number,
    signal?: Cancellation,
  ): Promise<FeedPage<Row>> {
    const now = this.clock.now();
    const state =
      since === undefined || since === ""
        ? { position: null, floor: now - FIRST_POLL_WINDOW }
        : decodeCursor(since, (position) => this.store.isPosition(position));
    if (!state) throw new RelayError("invalid_cursor", "since is not a cursor from this relay");
    if (state.position !== null && this.acked.get(source.key) !== state.position) {
      await source.ack(state.position, now);
      if (this.acked.size > 50_000) this.acked.clear();
      this.acked.set(source.key, state.position);
    }
    const cursorOut = (rows: Row[]): FeedPage<Row> => {
      const last = rows.at(-1);
      const nextCursor =
        last === undefined
          ? since || encodeCursor(state)
          : encodeCursor({ position: last.position, floor: state.floor });
      return { rows, nextCursor };
    };
    let rows = await source.fetch(state.position, state.floor, PAGE_SIZE);
    if (rows.length > 0 || waitSeconds <= 0) return cursorOut(rows);

    // Real time, not the injected clock: a held request waits on real timers.
    const deadline = performance.now() + Math.min(waitSeconds, MAX_WAIT_SECONDS) * 1000;
    let recheck = 0;
    while (!signal?.aborted && !this.hub.closed) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) break;
      const wake = await this.hub.next(source.key, recheck > 0 ? Math.min(recheck, remaining) : remaining, signal);
      // The reader's token was revoked while it waited: the 401 its next request would get, now (docs/relay.md).
      if (wake === "revoked") throw new RelayError("unauthorized", "the token was revoked");
      if (signal?.aborted || this.hub.closed) break;
      rows = await source.fetch(state.position, state.floor, PAGE_SIZE);
      if (rows.length > 0) break;
      if (wake === "changed") recheck = RECHECK_FIRST_MS;
      else if (recheck > 0) recheck = Math.min(recheck * 2, RECHECK_MAX_MS);
    }
    return cursorOut(rows);
  }
}
