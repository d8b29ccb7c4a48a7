import { MAX_SERVER_DELAY_MS, MAX_TIMER_MS } from "@notify/contracts/retry";
import type { Clock } from "../domain/clock.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { Logger } from "../log/logger.js";
import { SecretsUnreadableError } from "../secrets/sealer.js";
import { EXPAND_CHUNK } from "../store/outbox-expansion.js";
import type { DueItem, OutboxStore } from "../store/outbox-store.js";
import { LessNoise, type NoiseOutcome } from "./less-noise.js";
import { LoadGovernor } from "./load-governor.js";
import type { OutboundService } from "./outbound-service.js";
import { decideRetry } from "./retry-decision.js";
import type { OutboxItem } from "./types.js";

export interface DispatcherOptions {
  /** At most 6 attempts, then DeadLetter (docs/outbound.md, "Delivery rules", rule 6). */
  maxAttempts?: number;
  /** 15 s per attempt by default (docs/outbound.md, "Delivery rules", rule 6). */
  attemptTimeoutMs?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** A provider's Retry-After is honoured up to this. */
  maxRetryAfterMs?: number;
  concurrency?: number;
  random?: () => number;
  /** False in tests that drive `runDue()` by hand with a manual clock. */
  autoRun?: boolean;
  /**
   * API requests received so far (the broker counts its HTTP server's requests). Deliveries yield only while
   * there is API traffic; without this signal any load counts.
   */
  apiRequests?: () => number;
}

/** How many due items one query reads ahead. */
const READ_AHEAD = 64;

const DEFAULTS = {
  maxAttempts: 6,
  attemptTimeoutMs: 15_000,
  baseBackoffMs: 2_000,
  maxBackoffMs: 5 * 60_000,
  maxRetryAfterMs: MAX_SERVER_DELAY_MS,
  concurrency: 8,
};

/**
 * Delivers outbox items: at most `maxAttempts` attempts with jittered exponential backoff, a per-attempt timeout,
 * statuses Pending -> (Retry ->)* Delivered | DeadLetter. An item is marked only after its attempt ends, so a
 * crash mid-attempt leaves it Pending and it is sent again after restart (at-least-once; the idempotency key lets
 * a provider drop the repeat). Diagnostics are a status and a short code, never exception or response text.
 */
export class Dispatcher {
  private readonly options: Required<Omit<DispatcherOptions, "random" | "autoRun" | "apiRequests">>;
  private readonly random: () => number;
  private readonly autoRun: boolean;
  /** Attempts under way, by item id; at most `concurrency`. A slow provider holds one slot, not the queue. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Aborts in-flight attempts at shutdown; their items stay due and are sent again after restart. */
  private stopController = new AbortController();

  constructor(
    private readonly outbox: OutboxStore,
    private readonly outbound: OutboundService,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    private readonly logger: Logger,
    options: DispatcherOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...definedOnly(options) };
    this.random = options.random ?? Math.random;
    this.autoRun = options.autoRun ?? true;
    // Load fell: fill the slots held back meanwhile.
    this.load = new LoadGovernor(options.apiRequests, () => this.pump());
    outbound.onEnqueued(() => this.kick());
    this.noise = new LessNoise(outbound, clock, logger, () => this.stopController.signal);
    outbound.onSettled((ids, state) => this.noise.settle(ids, state));
  }

  /** Digests and replaced "finished" messages (outbox/less-noise.ts, docs/outbound.md "Less noise"). */
  readonly noise: LessNoise;

  /** Deliveries yield to API traffic (outbox/load-governor.ts). */
  private readonly load: LoadGovernor;
  /** While busy, brings the pump back when the next attempt may start. */
  private busyTimer: NodeJS.Timeout | undefined;

  start(): void {
    if (this.autoRun) this.load.start();
    this.stopped = false;
    if (this.stopController.signal.aborted) this.stopController = new AbortController();
    // Items left Pending by a stop (aborted attempts) are below the cursor: find the cursor again.
    this.cursor = undefined;
    this.readAhead = [];
    this.kick();
  }

  private kickScheduled = false;

  /** Something may be due: fill free slots at the end of this turn (many enqueues in one turn, one pump). */
  kick(): void {
    if (!this.autoRun || this.stopped || this.kickScheduled) return;
    this.kickScheduled = true;
    setImmediate(() => {
      this.kickScheduled = false;
      this.pump();
    });
  }

  /**
   * Due items read ahead of the free slots, so a completed attempt takes the next item from memory instead of
   * querying again. Refilled only when empty; an item read here and not yet started stays Pending in the store.
   */
  private readAhead: DueItem[] = [];

  /**
   * The last outbox row whose Pending item has been read. Pending items are appended in row order and read by a
   * range scan after this cursor (no index to keep up on enqueue). Undefined until the first read after start.
   */
  private cursor: number | undefined;

  /**
   * Reads Retry items that are due, then Pending items after the cursor. Only committed rows are read: a row of
   * the open group-commit batch could still roll back and its rowid be reused, which the cursor would skip. The
   * enqueue's after-commit kick brings the dispatcher back. When the Pending rows run short, markers of new
   * notifications are expanded into items (the folded outbox): when busy only as many notifications as the
   * read-ahead lacks, else a chunk; the items are read by the next refill, after the expansion commits.
   */
  private refill(limit: number): boolean {
    if (this.unit.pendingCommit() !== undefined) {
      this.unit.afterCommit(() => this.kick());
      return false;
    }
    const items = this.outbox.retryDue(this.clock.now(), limit).filter((item) => !this.inFlight.has(item.id));
    if (items.length < limit) {
      if (this.cursor === undefined) {
        const first = this.outbox.firstPendingSeq();
        this.cursor = first === undefined ? this.outbox.lastSeq() : first - 1;
      }
      const last = this.outbox.lastSeq();
      const want = limit - items.length;
      const pending = this.outbox.pendingAfter(this.cursor, last, want);
      // Fewer than asked: the scan reached the last row, so nothing Pending is left before it.
      this.cursor = pending.length < want ? last : (pending.at(-1) as DueItem).seq;
      for (const item of pending) if (!this.inFlight.has(item.id)) items.push(item);
      if (pending.length < want) this.expand(this.load.busy ? want - pending.length : EXPAND_CHUNK);
    }
    this.readAhead = items;
    return items.length > 0;
  }

  /**
   * One expansion step of at most `notifications` markers, as its own unit; after it commits, the kick reads
   * its items and, while markers are left, takes the next step (one step per turn: the API is never held for
   * more than a chunk). Only with no batch open, so every row it reads is committed; that batch's commit kicks.
   */
  private expand(notifications: number): void {
    if (this.unit.pendingCommit() !== undefined || !this.outbox.hasUnexpanded()) return;
    this.outbox.expand(notifications);
    this.unit.afterCommit(() => this.kick());
  }

  /** Starts due items in the free slots; when idle, arms one timer for the next due item. */
  private pump(): number {
    if (this.stopped) return 0;
    this.load.check();
    const busy = this.load.busy;
    let free = (busy ? 1 : this.options.concurrency) - this.inFlight.size;
    if (busy && free > 0) {
      // Kicks from new enqueues must not bypass the spacing: the trickle is paced by the clock, not by events.
      const wait = this.load.waitMs();
      if (wait > 0) {
        this.busyTimer ??= setTimeout(() => {
          this.busyTimer = undefined;
          this.pump();
        }, wait).unref();
        return 0;
      }
      free = 1;
    }
    let started = 0;
    while (started < free) {
      if (this.readAhead.length === 0) {
        try {
          if (!this.refill(READ_AHEAD)) break;
        } catch {
          return started; // database closed during shutdown
        }
      }
      const item = this.readAhead.shift() as DueItem;
      started++;
      this.load.started();
      const attempt = this.attempt(item).finally(() => {
        this.inFlight.delete(item.id);
        if (!this.autoRun) return;
        this.pump();
      });
      this.inFlight.set(item.id, attempt);
    }
    // Idle: markers are expanded ahead of need, a chunk per turn until none is left, so that a backlog left by
    // busy times (or a restart) never waits for an outbox read to expand it all at once.
    if (this.autoRun && !this.load.busy) {
      try {
        this.expand(EXPAND_CHUNK);
      } catch {
        return started; // database closed during shutdown
      }
    }
    if (this.autoRun && this.inFlight.size === 0 && this.unit.pendingCommit() === undefined) this.scheduleNext();
    return started;
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    let next: number | undefined;
    try {
      next = this.outbox.nextRetry();
    } catch {
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (next === undefined) return;
    const delay = Math.min(Math.max(0, next - this.clock.now()), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, delay);
    this.timer.unref();
  }

  /** Attempts every item due now and waits for them (tests drive this with a manual clock). Returns attempts. */
  async runDue(): Promise<number> {
    let attempted = 0;
    for (;;) {
      attempted += this.pump();
      if (this.inFlight.size === 0) {
        const barrier = this.unit.pendingCommit();
        if (barrier === undefined) return attempted;
        await barrier;
        continue;
      }
      await Promise.all(this.inFlight.values());
    }
  }

  private async attempt(item: DueItem): Promise<void> {
    const result = await this.deliver(item);
    if (!this.stopped) this.record(item, result);
  }

  private async deliver(item: OutboxItem): Promise<NoiseOutcome> {
    const profile = this.outbound.profile(item.providerId);
    if (!profile) return { ok: false, retryable: false, code: "provider_missing" };
    if (!profile.enabled) return { ok: false, retryable: false, code: "provider_disabled" };
    const adapter = this.outbound.adapterFor(profile.kind);
    if (!adapter) return { ok: false, retryable: false, code: "provider_kind_unknown" };
    let secrets: Record<string, string>;
    try {
      secrets = this.outbound.openSecrets(profile.id);
    } catch (error) {
      // docs/outbound.md, "Delivery rules", rule 5: retried within the bound (a restored key file heals it), then
      // DeadLetter.
      if (error instanceof SecretsUnreadableError) return { ok: false, retryable: true, code: error.code };
      return { ok: false, retryable: true, code: "provider_secrets_unreadable" };
    }
    const context = {
      idempotencyKey: item.idempotencyKey,
      signal: AbortSignal.any([AbortSignal.timeout(this.options.attemptTimeoutMs), this.stopController.signal]),
    };
    try {
      if (item.subject === "interaction") {
        if (!adapter.sendInteraction) return { ok: false, retryable: false, code: "provider_kind_unsupported" };
        const interaction = this.outbound.interaction(item.interactionId);
        if (!interaction) return { ok: false, retryable: false, code: "interaction_missing" };
        return await adapter.sendInteraction(interaction, profile.settings, secrets, context);
      }
      const payload = this.outbound.payloadFor(item);
      const route = this.outbound.findRoute(item.routeId);
      if (route !== undefined && this.noise.takes(route, profile, adapter, payload)) {
        return await this.noise.deliver({ route, profile, adapter, payload, secrets, context });
      }
      return await adapter.send(payload, profile.settings, secrets, context);
    } catch {
      return { ok: false, retryable: true, code: "adapter_error" };
    }
  }

  private record(item: DueItem, outcome: NoiseOutcome): void {
    const nowMs = this.clock.now();
    if ("deferUntilMs" in outcome) {
      // A digest window's item waits for the window's end: no attempt is counted (outbox/digest.ts).
      try {
        this.outbox.recordInTransaction(item.seq, {
          status: "Retry",
          attempts: item.attempts,
          nextAttemptMs: outcome.deferUntilMs,
          lastStatus: null,
          lastCode: "digest_window",
          updatedMs: nowMs,
          deliveredMs: null,
        });
      } catch {
        // database closed during shutdown; the item stays due and is sent again after restart
      }
      return;
    }
    const result = outcome;
    const attempts = item.attempts + 1;
    const { status, nextAttemptMs } = decideRetry(result, attempts, nowMs, this.options, this.random);
    try {
      this.outbox.recordInTransaction(item.seq, {
        status,
        attempts,
        nextAttemptMs,
        lastStatus: result.status ?? null,
        lastCode: result.ok ? null : result.code,
        updatedMs: nowMs,
        deliveredMs: result.ok ? nowMs : null,
      });
    } catch {
      return; // database closed during shutdown; the item stays due and is sent again after restart
    }
    if (status === "DeadLetter" && !result.ok) {
      const profile = this.outbound.profile(item.providerId);
      this.logger.warn(
        `outbox ${item.id} to ${profile?.kind ?? "?"} provider ${profile?.name ?? item.providerId} dead-lettered after ${attempts} attempt(s): ${result.code}${result.status ? ` (HTTP ${result.status})` : ""}`,
      );
    }
  }

  /** Puts a dead-lettered (or retrying) item back to Pending with a fresh attempt budget. */
  retry(id: string): OutboxItem | undefined {
    const seq = this.outbox.seqOf(id);
    if (seq === undefined) return undefined;
    const item = this.outbox.bySeq(seq);
    if (!item || item.status === "Delivered") return item;
    this.outbox.recordInTransaction(seq, {
      status: "Pending",
      attempts: 0,
      nextAttemptMs: this.clock.now(),
      lastStatus: item.lastStatus ?? null,
      lastCode: item.lastCode ?? null,
      updatedMs: this.clock.now(),
      deliveredMs: null,
    });
    // The item is Pending again behind the cursor: read from it again (items in flight are skipped by id).
    if (this.cursor !== undefined && seq <= this.cursor) this.cursor = seq - 1;
    this.readAhead = [];
    this.kick();
    return this.outbox.bySeq(seq);
  }

  async stop(): Promise<void> {
    this.load.stop();
    if (this.busyTimer) clearTimeout(this.busyTimer);
    this.busyTimer = undefined;
    this.stopped = true;
    this.stopController.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.allSettled(this.inFlight.values());
  }
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
