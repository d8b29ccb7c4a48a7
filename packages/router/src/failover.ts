import { retryAfterMs } from "@notify/contracts/retry";

/**
 * Statuses after which the next target is tried (docs/router.md, "Failover and cooldowns", rule 2), when no byte
 * reached the client.
 */
export const FAILOVER_STATUSES: ReadonlySet<number> = new Set([
  400, 401, 402, 403, 404, 408, 429, 500, 502, 503, 504, 529,
]);

export const MAX_COOLDOWN_MS = 10 * 60_000;

/**
 * Cooldown by cause (docs/router.md, "Failover and cooldowns"). Retry-After wins when present (capped at 10 minutes);
 * 400 cools nothing (it concerns this one request).
 */
export function cooldownMs(
  failure: { status?: number; connectionError?: boolean; headers?: Record<string, string | string[] | undefined> },
  nowMs: number,
): number {
  // A 400 concerns this one request: nothing cools, whatever Retry-After says.
  if (failure.status === 400) return 0;
  const requested = failure.headers ? retryAfterMs(failure.headers, nowMs) : undefined;
  if (requested !== undefined) return Math.min(requested, MAX_COOLDOWN_MS);
  const status = failure.status;
  if (failure.connectionError || status === undefined) return 15_000;
  if (status === 429 || status === 529) return 30_000;
  if (status === 402) return 5 * 60_000;
  if (status === 401 || status === 403 || status === 404) return 60_000;
  if (status >= 500) return 15_000;
  return 0;
}

interface Cooling {
  untilMs: number;
  /** The cooldown began with a 429 or 529. */
  rateLimited: boolean;
}

/** In-memory cooldowns per upstream slug and model. */
export class CooldownBook {
  private readonly entries = new Map<string, Cooling>();

  constructor(private readonly now: () => number = Date.now) {}

  private key(slug: string, model: string): string {
    return `${slug}\u0000${model}`;
  }

  cool(slug: string, model: string, durationMs: number, rateLimited: boolean): void {
    if (durationMs <= 0) return;
    const untilMs = this.now() + durationMs;
    const current = this.entries.get(this.key(slug, model));
    if (current && current.untilMs >= untilMs) return;
    this.entries.set(this.key(slug, model), { untilMs, rateLimited });
  }

  cooling(slug: string, model: string): Cooling | undefined {
    const entry = this.entries.get(this.key(slug, model));
    if (!entry) return undefined;
    if (entry.untilMs <= this.now()) {
      this.entries.delete(this.key(slug, model));
      return undefined;
    }
    return entry;
  }

  clear(slug: string, model: string): void {
    this.entries.delete(this.key(slug, model));
  }
}

/**
 * When every target is cooling, the answer comes at once without asking any of them: 429 rate_limited if the
 * soonest cooldown to end began with a 429/529, else 503 all_targets_unavailable; retry-after in seconds.
 */
export function allCoolingAnswer(
  coolings: readonly { untilMs: number; rateLimited: boolean }[],
  nowMs: number,
): { status: 429 | 503; code: "rate_limited" | "all_targets_unavailable"; retryAfterSeconds: number } {
  const soonest = [...coolings].sort((a, b) => a.untilMs - b.untilMs)[0] ?? { untilMs: nowMs, rateLimited: false };
  return {
    status: soonest.rateLimited ? 429 : 503,
    code: soonest.rateLimited ? "rate_limited" : "all_targets_unavailable",
    retryAfterSeconds: Math.max(1, Math.ceil((soonest.untilMs - nowMs) / 1000)),
  };
}
