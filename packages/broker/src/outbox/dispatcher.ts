import { performance } from "node:perf_hooks";
import { backoffMs } from "@notify/contracts/retry";
import { type Clock, isoTime } from "../domain/clock.js";
import type { Logger } from "../log/logger.js";
import { SecretsUnreadableError } from "../secrets/sealer.js";
import type { OutboxStore } from "../store/outbox-store.js";
import type { OutboundService } from "./outbound-service.js";
import type { DeliveryResult, OutboxItem, OutboxStatus } from "./types.js";

export interface DispatcherOptions {
  /** Spec 1: at most 6 attempts, then DeadLetter. */
  maxAttempts?: number;
  /** Spec 1: 15 s per attempt by default. */
  attemptTimeoutMs?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** A provider's Retry-After is honoured up to this. */
  maxRetryAfterMs?: number;
  concurrency?: number;
  random?: () => number;
  /** False in tests that drive `runDue()` by hand with a manual clock. */
  autoRun?: boolean;
}

/** How many due items one query reads ahead. */
const READ_AHEAD = 64;

const DEFAULTS = {
  maxAttempts: 6,
  attemptTimeoutMs: 15_000,
  baseBackoffMs: 2_000,
  maxBackoffMs: 5 * 60_000,
  maxRetryAfterMs: 10 * 60_000,
  concurrency: 8,
};

/**
 * Delivers outbox items: at most `maxAttempts` attempts with jittered exponential backoff, a per-attempt timeout,
 * statuses Pending -> (Retry ->)* Delivered | DeadLetter. An item is marked only after its attempt ends, so a
 * crash mid-attempt leaves it Pending and it is sent again after restart (at-least-once; the idempotency key lets
 * a provider drop the repeat). Diagnostics are a status and a short code, never exception or response text.
 */
export class Dispatcher {
  private readonly options: Required<Omit<DispatcherOptions, "random" | "autoRun">>;
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
    private readonly logger: Logger,
    options: DispatcherOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...definedOnly(options) };
    this.random = options.random ?? Math.random;
    this.autoRun = options.autoRun ?? true;
    outbound.onEnqueued(() => this.kick());
  }

  /** True while the event loop is nearly saturated (API traffic): deliveries then take one slot and wait turns. */
  private busy = false;
  private loadTimer: NodeJS.Timeout | undefined;

  /**
   * Deliveries never slow the API that creates them (spec 1, Outbound delivery): the event loop's utilization is
   * sampled every 100 ms, and above 85% the dispatcher drops to one attempt at a time with a pause between them.
   * The durable outbox absorbs the backlog and drains it at full speed once the load falls.
   */
  private watchLoad(): void {
    let last = performance.eventLoopUtilization();
    this.loadTimer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      const wasBusy = this.busy;
      this.busy = performance.eventLoopUtilization(now, last).utilization > 0.85;
      last = now;
      // Load fell: fill the slots held back meanwhile.
      if (wasBusy && !this.busy) this.pump();
    }, 100);
    this.loadTimer.unref();
  }

  start(): void {
    if (this.autoRun && !this.loadTimer) this.watchLoad();
    this.stopped = false;
    if (this.stopController.signal.aborted) this.stopController = new AbortController();
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
  private readAhead: OutboxItem[] = [];

  /** Starts due items in the free slots; when idle, arms one timer for the next due item. */
  private pump(): number {
    if (this.stopped) return 0;
    const free = (this.busy ? 1 : this.options.concurrency) - this.inFlight.size;
    let started = 0;
    while (started < free) {
      if (this.readAhead.length === 0) {
        try {
          this.readAhead = this.outbox
            .due(this.clock.now(), READ_AHEAD + this.inFlight.size)
            .filter((item) => !this.inFlight.has(item.id));
        } catch {
          return started; // database closed during shutdown
        }
        if (this.readAhead.length === 0) break;
      }
      const item = this.readAhead.shift() as OutboxItem;
      started++;
      const attempt = this.attempt(item).finally(() => {
        this.inFlight.delete(item.id);
        if (!this.autoRun) return;
        if (this.busy) setTimeout(() => this.pump(), 10).unref();
        else this.pump();
      });
      this.inFlight.set(item.id, attempt);
    }
    if (this.autoRun && this.inFlight.size === 0) this.scheduleNext();
    return started;
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    let next: number | undefined;
    try {
      next = this.outbox.nextDue();
    } catch {
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (next === undefined) return;
    const delay = Math.min(Math.max(0, next - this.clock.now()), 2 ** 31 - 1);
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
      if (this.inFlight.size === 0) return attempted;
      await Promise.all(this.inFlight.values());
    }
  }

  private async attempt(item: OutboxItem): Promise<void> {
    const result = await this.deliver(item);
    if (!this.stopped) this.record(item, result);
  }

  private async deliver(item: OutboxItem): Promise<DeliveryResult> {
    const profile = this.outbound.profile(item.providerId);
    if (!profile) return { ok: false, retryable: false, code: "provider_missing" };
    if (!profile.enabled) return { ok: false, retryable: false, code: "provider_disabled" };
    const adapter = this.outbound.adapterFor(profile.kind);
    if (!adapter) return { ok: false, retryable: false, code: "provider_kind_unknown" };
    let secrets: Record<string, string>;
    try {
      secrets = this.outbound.openSecrets(profile.id);
    } catch (error) {
      // Spec 1, rule 5: retried within the bound (a restored key file heals it), then DeadLetter.
      if (error instanceof SecretsUnreadableError) return { ok: false, retryable: true, code: error.code };
      return { ok: false, retryable: true, code: "provider_secrets_unreadable" };
    }
    try {
      return await adapter.send(item.payload, profile.settings, secrets, {
        idempotencyKey: item.idempotencyKey,
        signal: AbortSignal.any([AbortSignal.timeout(this.options.attemptTimeoutMs), this.stopController.signal]),
      });
    } catch {
      return { ok: false, retryable: true, code: "adapter_error" };
    }
  }

  private record(item: OutboxItem, result: DeliveryResult): void {
    const nowMs = this.clock.now();
    const attempts = item.attempts + 1;
    const now = isoTime(nowMs);
    let status: OutboxStatus;
    let nextAttemptMs = nowMs;
    if (result.ok) {
      status = "Delivered";
    } else if (!result.retryable || attempts >= this.options.maxAttempts) {
      status = "DeadLetter";
    } else {
      status = "Retry";
      const backoff = backoffMs(attempts, {
        baseMs: this.options.baseBackoffMs,
        maxMs: this.options.maxBackoffMs,
        random: this.random,
      });
      const requested =
        result.retryAfterMs === undefined ? 0 : Math.min(result.retryAfterMs, this.options.maxRetryAfterMs);
      nextAttemptMs = nowMs + Math.max(backoff, requested);
    }
    try {
      this.outbox.recordInTransaction(item.id, {
        status,
        attempts,
        nextAttemptMs,
        lastStatus: result.status ?? null,
        lastCode: result.ok ? null : result.code,
        updatedAt: now,
        deliveredAt: result.ok ? now : null,
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
    const item = this.outbox.byId(id);
    if (!item || item.status === "Delivered") return item;
    this.outbox.record(id, {
      status: "Pending",
      attempts: 0,
      nextAttemptMs: this.clock.now(),
      lastStatus: item.lastStatus ?? null,
      lastCode: item.lastCode ?? null,
      updatedAt: isoTime(this.clock.now()),
      deliveredAt: null,
    });
    this.kick();
    return this.outbox.byId(id);
  }

  async stop(): Promise<void> {
    if (this.loadTimer) clearInterval(this.loadTimer);
    this.loadTimer = undefined;
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
