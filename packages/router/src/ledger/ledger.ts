import type { DatabaseSync, StatementSync } from "node:sqlite";
import { randomHex } from "@notify/contracts/ids";
import type { Usage, Wire } from "../ir.js";
import { transaction } from "../transaction.js";

export type Outcome = "ok" | "upstream_error" | "client_error" | "canceled" | "failed_over_exhausted";

/** One logical request (docs/router.md, "Ledger"). Never prompts, responses, headers, keys or provider bodies. */
export interface RequestRecord {
  id: string;
  started_at: string;
  finished_at: string | null;
  inbound_wire: Wire;
  requested_model: string | null;
  route_kind: string | null;
  route_name: string | null;
  upstream_slug: string | null;
  upstream_model: string | null;
  stream: boolean;
  status: number | null;
  outcome: Outcome | null;
  tokens: { input: number | null; cached_input: number | null; output: number | null; reasoning: number | null };
  usage_status: "reported" | "unreported";
  error_code: string | null;
  /** `tools_dropped`, `blocks_dropped` when a translated request lost them. */
  notes: string[];
}

/** One physical send (docs/router.md, "Ledger"). */
export interface AttemptRecord {
  request_id: string;
  ordinal: number;
  upstream_slug: string;
  model: string;
  upstream_wire: Wire;
  status: number | null;
  error_code: string | null;
  duration_ms: number;
  bytes_streamed: boolean;
  started_at: string;
}

interface RequestRow {
  id: string;
  started_at: string;
  finished_at: string | null;
  inbound_wire: string;
  requested_model: string | null;
  route_kind: string | null;
  route_name: string | null;
  upstream_slug: string | null;
  upstream_model: string | null;
  stream: number;
  status: number | null;
  outcome: string | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens: number | null;
  usage_status: string | null;
  error_code: string | null;
  notes: string | null;
}

const DAY_MS = 86_400_000;

/**
 * A request id (`req_` and 24 hex digits, as before): the start time in milliseconds, then 6 random bytes. Ordered
 * by time, so the attempts table's primary key (request_id, ordinal) grows at its right edge: a batch of random ids
 * dirtied about one index page per request, ordered ones a few pages per batch (figures: bench/README.md, router
 * Findings, "Request ids ordered by start time").
 */
export function requestId(nowMs: number): string {
  return `req_${Math.max(0, Math.floor(nowMs)).toString(16).padStart(12, "0").slice(-12)}${randomHex(6)}`;
}
/**
 * How long a finished request may wait for its ledger write (batched with every other one in the window). A write
 * holds the event loop, so batches are kept middling: larger ones stall arriving requests longer, smaller ones put
 * the commit's cost back on every request. The measured trade-off: bench/README.md, "The ledger's flush window".
 */
const FLUSH_DELAY_MS = 20;
/** Queued requests that trigger a write at the end of the turn without waiting for the delay. */
const FLUSH_ROWS = 64;

/** The router's ledger (tables created by the router store's migrations). */
export class Ledger {
  private readonly insertRequest: StatementSync;
  private readonly insertAttempt: StatementSync;
  private readonly recent: StatementSync;
  private readonly attemptsOf: StatementSync;
  private readonly pruneRequests: StatementSync;
  private readonly pruneAttempts: StatementSync;

  constructor(private readonly db: DatabaseSync) {
    // Positional parameters: binding 20 named values per row costs more than the insert itself.
    this.insertRequest = db.prepare(`INSERT INTO requests (id, started_at, finished_at, started_ms, inbound_wire,
      requested_model, route_kind, route_name, upstream_slug, upstream_model, stream, status, outcome, input_tokens,
      cached_input_tokens, output_tokens, reasoning_tokens, usage_status, error_code, notes)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.insertAttempt = db.prepare(`INSERT INTO attempts (request_id, ordinal, upstream_slug, model, upstream_wire,
      status, error_code, duration_ms, bytes_streamed, started_at, started_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.recent = db.prepare("SELECT * FROM requests ORDER BY seq DESC LIMIT ?");
    this.attemptsOf = db.prepare("SELECT * FROM attempts WHERE request_id = ? ORDER BY ordinal");
    this.pruneRequests = db.prepare("DELETE FROM requests WHERE started_ms < ?");
    // Two indexes per request row are all the ledger keeps (the rowid and start time; attempts by their primary
    // key), since every index is written on the request path. Attempts go with their request.
    this.pruneAttempts = db.prepare(
      "DELETE FROM attempts WHERE request_id IN (SELECT id FROM requests INDEXED BY requests_by_start WHERE started_ms < ?)",
    );
  }

  private queued: { request: RequestRecord; attempts: readonly AttemptRecord[] }[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushSoon = false;

  /**
   * Records a finished request and its attempts. Rows are queued and written together at most FLUSH_DELAY_MS
   * later, or at the end of the turn once FLUSH_ROWS are waiting (one transaction for all of them, off the request
   * path). Reads, pruning and the router's close flush first, so no read misses a finished request; a crash can
   * lose the rows of the last FLUSH_DELAY_MS (router.db runs with synchronous=OFF anyway: the ledger is a record,
   * never an acknowledgement to a client).
   */
  record(request: RequestRecord, attempts: readonly AttemptRecord[]): void {
    this.queued.push({ request, attempts });
    if (this.queued.length >= FLUSH_ROWS && !this.flushSoon) {
      this.flushSoon = true;
      setImmediate(() => this.flushQuietly());
      return;
    }
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => this.flushQuietly(), FLUSH_DELAY_MS);
    this.flushTimer.unref();
  }

  private flushQuietly(): void {
    try {
      this.flush();
    } catch {
      // The database is closed or full: these rows are lost to the ledger, never to the client.
      this.queued = [];
    }
  }

  /** Writes every queued row now, in one transaction. */
  flush(): void {
    this.flushSoon = false;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.queued;
    if (batch.length === 0) return;
    this.queued = [];
    transaction(this.db, () => {
      for (const { request, attempts } of batch) this.write(request, attempts);
    });
  }

  private write(request: RequestRecord, attempts: readonly AttemptRecord[]): void {
    this.insertRequest.run(
      request.id,
      request.started_at,
      request.finished_at,
      Date.parse(request.started_at),
      request.inbound_wire,
      request.requested_model,
      request.route_kind,
      request.route_name,
      request.upstream_slug,
      request.upstream_model,
      request.stream ? 1 : 0,
      request.status,
      request.outcome,
      request.tokens.input,
      request.tokens.cached_input,
      request.tokens.output,
      request.tokens.reasoning,
      request.usage_status,
      request.error_code,
      request.notes.length > 0 ? request.notes.join(",") : null,
    );
    for (const attempt of attempts) {
      this.insertAttempt.run(
        attempt.request_id,
        attempt.ordinal,
        attempt.upstream_slug,
        attempt.model,
        attempt.upstream_wire,
        attempt.status,
        attempt.error_code,
        attempt.duration_ms,
        attempt.bytes_streamed ? 1 : 0,
        attempt.started_at,
        Date.parse(attempt.started_at),
      );
    }
  }

  /** Newest first, each with its attempts. */
  activity(limit: number): (RequestRecord & { attempts: AttemptRecord[] })[] {
    this.flush();
    return (this.recent.all(limit) as unknown as RequestRow[]).map((row) => ({
      id: row.id,
      started_at: row.started_at,
      finished_at: row.finished_at,
      inbound_wire: row.inbound_wire as Wire,
      requested_model: row.requested_model,
      route_kind: row.route_kind,
      route_name: row.route_name,
      upstream_slug: row.upstream_slug,
      upstream_model: row.upstream_model,
      stream: row.stream === 1,
      status: row.status,
      outcome: row.outcome as Outcome | null,
      tokens: {
        input: row.input_tokens,
        cached_input: row.cached_input_tokens,
        output: row.output_tokens,
        reasoning: row.reasoning_tokens,
      },
      usage_status: (row.usage_status ?? "unreported") as RequestRecord["usage_status"],
      error_code: row.error_code,
      notes: row.notes ? row.notes.split(",") : [],
      attempts: (
        this.attemptsOf.all(row.id) as unknown as (Omit<AttemptRecord, "bytes_streamed"> & { bytes_streamed: number })[]
      ).map(
        ({ bytes_streamed, ...attempt }) => ({ ...attempt, bytes_streamed: bytes_streamed === 1 }) as AttemptRecord,
      ),
    }));
  }

  /** Drops rows older than the retention period; returns how many requests went. */
  prune(retentionDays: number, nowMs: number = Date.now()): number {
    this.flush();
    const cutoff = nowMs - retentionDays * DAY_MS;
    this.pruneAttempts.run(cutoff);
    return Number(this.pruneRequests.run(cutoff).changes);
  }
}

export function tokensOf(usage: Usage | undefined): RequestRecord["tokens"] {
  return {
    input: usage?.input ?? null,
    cached_input: usage?.cachedInput ?? null,
    output: usage?.output ?? null,
    reasoning: usage?.reasoning ?? null,
  };
}
