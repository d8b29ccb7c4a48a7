import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type {
  InsertAnswerResult,
  InsertEnvelopeResult,
  NewAnswer,
  NewEnvelope,
  RelayStore,
  StoreTx,
} from "./store/types.js";

/**
 * Prometheus metrics for operators (docs/relay.md, "Running at scale"). One registry per relay (tests run several in
 * one process). Labels have bounded values only: route patterns, never URLs; no ids, tokens or endpoints.
 */
export type PushOutcome = "delivered" | "gone" | "retried" | "failed" | "refused" | "dropped";

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface MetricsSources {
  heldPolls?: () => { answers: number; envelopes: number; receipts?: number };
  pool?: () => PoolStats | undefined;
  pushQueue?: () => number;
  batches?: () => { kind: "answers" | "envelopes"; batches: number; items: number }[];
}

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class RelayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly requestSeconds: Histogram<"method" | "route">;
  private readonly dbSeconds: Histogram<"operation">;
  private readonly push: Counter<"outcome">;
  private readonly stored: Counter<"kind">;
  private sources: MetricsSources = {};

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics !== false) {
      // Process metrics (RSS, open file descriptors and their limit, event loop lag, GC) under the same prefix.
      collectDefaultMetrics({ register: this.registry, prefix: "notify_relay_" });
    }
    this.requests = new Counter({
      name: "notify_relay_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: "notify_relay_http_request_duration_seconds",
      help: "Time from request to response (held polls count their wait)",
      labelNames: ["method", "route"],
      buckets: SECONDS,
      registers,
    });
    this.dbSeconds = new Histogram({
      name: "notify_relay_db_duration_seconds",
      help: "Database work by operation: read, transaction, store_answer and store_envelope (batched, to commit)",
      labelNames: ["operation"],
      buckets: SECONDS,
      registers,
    });
    this.push = new Counter({
      name: "notify_relay_push_sends_total",
      help: "Web Push wake-ups by outcome: delivered, gone (404/410, subscription dropped), retried (429/5xx/network), failed (gave up), refused (endpoint not allowed), dropped (queue full)",
      labelNames: ["outcome"],
      registers,
    });
    this.stored = new Counter({
      name: "notify_relay_stored_total",
      help: "Answers and envelopes stored (committed), by kind",
      labelNames: ["kind"],
      registers,
    });
    const sources = () => this.sources;
    new Gauge({
      name: "notify_relay_held_polls",
      help: "Long-polls this process holds now, by kind (answers and receipts: brokers, envelopes: phones)",
      labelNames: ["kind"],
      registers,
      collect() {
        const held = sources().heldPolls?.() ?? { answers: 0, envelopes: 0 };
        this.set({ kind: "answers" }, held.answers);
        this.set({ kind: "envelopes" }, held.envelopes);
        this.set({ kind: "receipts" }, held.receipts ?? 0);
      },
    });
    new Gauge({
      name: "notify_relay_db_pool_connections",
      help: "PostgreSQL pool: connections by state (total, idle, max) and requests waiting for one (waiting)",
      labelNames: ["state"],
      registers,
      collect() {
        const pool = sources().pool?.();
        if (!pool) return;
        for (const state of ["total", "idle", "waiting", "max"] as const) this.set({ state }, pool[state]);
      },
    });
    new Gauge({
      name: "notify_relay_push_queue_length",
      help: "Web Push wake-ups waiting to be sent (retries waiting for their backoff included)",
      registers,
      collect() {
        this.set(sources().pushQueue?.() ?? 0);
      },
    });
    new Gauge({
      name: "notify_relay_db_batches",
      help: "Group commit (PostgreSQL): batches sent and the writes in them since start; writes/batches is the mean batch size",
      labelNames: ["kind", "count"],
      registers,
      collect() {
        for (const batch of sources().batches?.() ?? []) {
          this.set({ kind: batch.kind, count: "batches" }, batch.batches);
          this.set({ kind: batch.kind, count: "writes" }, batch.items);
        }
      },
    });
  }

  /** What the gauges read at scrape time (set once the app and the sender exist). */
  watch(sources: MetricsSources): void {
    this.sources = { ...this.sources, ...sources };
  }

  request(method: string, route: string, status: number, milliseconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.requestSeconds.observe({ method, route }, milliseconds / 1000);
  }

  pushOutcome(outcome: PushOutcome): void {
    this.push.inc({ outcome });
  }

  /** The store, timed: every read, transaction and batched write lands in notify_relay_db_duration_seconds. */
  instrument(store: RelayStore): RelayStore {
    const timed = <T>(operation: string, run: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      const done = () => this.dbSeconds.observe({ operation }, (performance.now() - started) / 1000);
      return run().then(
        (value) => {
          done();
          return value;
        },
        (error: unknown) => {
          done();
          throw error;
        },
      );
    };
    const stored = this.stored;
    return {
      backend: store.backend,
      isPosition: (position) => store.isPosition(position),
      onChange: (listener) => store.onChange(listener),
      reachable: () => store.reachable(),
      close: () => store.close(),
      transaction: <T>(work: (tx: StoreTx) => Promise<T>) => timed("transaction", () => store.transaction(work)),
      read: <T>(work: (tx: StoreTx) => Promise<T>) => timed("read", () => store.read(work)),
      storeAnswer: (answer: NewAnswer) =>
        timed("store_answer", () => store.storeAnswer(answer)).then((result: InsertAnswerResult) => {
          if (result.created) stored.inc({ kind: "answers" });
          return result;
        }),
      storeEnvelope: (envelope: NewEnvelope) =>
        timed("store_envelope", () => store.storeEnvelope(envelope)).then((result: InsertEnvelopeResult) => {
          if (result.created) stored.inc({ kind: "envelopes" });
          return result;
        }),
    };
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
