import { performance } from "node:perf_hooks";

/** Event-loop utilization above which, with API traffic present, deliveries drop to a trickle. */
const BUSY_UTILIZATION = 0.5;
/** API requests within one 100 ms sample that make the dispatcher busy at once (a burst, > 500 requests/s). */
const BURST_REQUESTS = 50;
/** While busy: one attempt at a time, started at least this far apart (at most 50 attempts/s). */
const BUSY_SPACING_MS = 20;

/**
 * Deliveries never slow the API that creates them (docs/outbound.md, "Delivery rules"): every 100 ms the event loop's
 * utilization and the API requests of the interval are sampled; when API requests arrived and the loop was over
 * half busy, or more than BURST_REQUESTS arrive within one sample, the dispatcher drops to one attempt at a time
 * with a pause between them. The durable outbox absorbs the backlog and drains it at full speed once the API is
 * quiet (the dispatcher's own load alone never counts as busy).
 */
export class LoadGovernor {
  /** True while the event loop is nearly saturated (API traffic): deliveries then take one slot and wait turns. */
  busy = false;
  /** While busy, no attempt starts before this (performance.now() time). */
  private holdUntil = 0;
  /** The API request count at the last load sample. */
  private sampleRequests = 0;
  private timer: NodeJS.Timeout | undefined;

  /**
   * `apiRequests`: API requests received so far (the broker counts its HTTP server's requests); without it any
   * load counts. `onEased` runs when load falls, to fill the slots held back meanwhile.
   */
  constructor(
    private readonly apiRequests: (() => number) | undefined,
    private readonly onEased: () => void,
  ) {}

  get watching(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    let last = performance.eventLoopUtilization();
    this.sampleRequests = this.apiRequests?.() ?? 0;
    this.timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      const requests = this.apiRequests?.() ?? 0;
      const arrived = requests - this.sampleRequests;
      const apiTraffic = this.apiRequests === undefined || arrived > 0;
      const wasBusy = this.busy;
      // A burst keeps the dispatcher busy for the next sample too, however idle the loop looks.
      this.busy =
        this.burst(requests) ||
        (apiTraffic && performance.eventLoopUtilization(now, last).utilization > BUSY_UTILIZATION);
      last = now;
      this.sampleRequests = requests;
      if (wasBusy && !this.busy) this.onEased();
    }, 100);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A burst of API requests makes the dispatcher busy at once, without waiting for the next sample. */
  check(): void {
    if (!this.busy && this.apiRequests !== undefined && this.timer !== undefined) {
      this.busy = this.burst(this.apiRequests());
    }
  }

  /** More than BURST_REQUESTS API requests since the last load sample, `requests` being the count now. */
  private burst(requests: number): boolean {
    return requests - this.sampleRequests > BURST_REQUESTS;
  }

  /** While busy: how long until the next attempt may start (0: now). */
  waitMs(): number {
    return Math.max(0, this.holdUntil - performance.now());
  }

  /** An attempt started: while busy, the next one waits its turn. */
  started(): void {
    if (this.busy) this.holdUntil = performance.now() + BUSY_SPACING_MS;
  }
}
