/**
 * One retry policy, shared by the outbox and the router: `retry-after-ms`, then `retry-after` (seconds or an HTTP
 * date), else capped exponential backoff with jitter.
 */

export type HeaderBag = Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The server's requested delay in milliseconds, or undefined when it named none (or named nonsense). */
export function retryAfterMs(headers: HeaderBag, nowMs: number): number | undefined {
  const milliseconds = header(headers, "retry-after-ms");
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return Math.ceil(Number(milliseconds));
  const value = header(headers, "retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** 0..1; injected for tests. */
  random?: () => number;
}

/** Delay before attempt `attempt + 1` after `attempt` failures: base * 2^(attempt-1), capped, jittered to 50-100%. */
export function backoffMs(attempt: number, options: BackoffOptions): number {
  const exponential = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(exponential * (0.5 + random() * 0.5));
}

/**
 * The longest wait a server can make Notify take (10 minutes), wherever a server names a delay: `Retry-After`, a
 * body's `retry_after`, a push service's hint. A larger or nonsense value waits this long; anything past the timer
 * limit (2^31-1 ms, about 24.8 days) would otherwise fire at once and turn a 429 into a hot loop.
 */
export const MAX_SERVER_DELAY_MS = 10 * 60_000;

/** A server-named delay in milliseconds made safe to wait: finite, at least 0, at most `capMs`. */
export function cappedServerDelayMs(delayMs: number | undefined, capMs: number = MAX_SERVER_DELAY_MS): number {
  if (delayMs === undefined || Number.isNaN(delayMs)) return 0;
  return Math.min(Math.max(0, delayMs), capMs);
}

/** The longest a timer can wait: past 2^31-1 ms (about 24.8 days) setTimeout fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The one wait, in every package: resolves after `ms` (clamped to 0..MAX_TIMER_MS), or as soon as `signal` aborts,
 * before or during the wait. It never rejects: a caller that must stop checks `signal.aborted` (or
 * `signal.throwIfAborted()`) after it.
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.min(Math.max(0, Number.isNaN(ms) ? 0 : ms), MAX_TIMER_MS));
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
