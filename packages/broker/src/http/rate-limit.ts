/**
 * Fixed one-second window, one counter per token (docs/api.md, "Limits"). Protects the store from a runaway agent loop;
 * reads and PATCH are never limited.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { window: number; count: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request for `key`; false when the window is already full. */
  take(key: string): boolean {
    const window = Math.floor(this.now() / 1000);
    const entry = this.windows.get(key);
    if (!entry || entry.window !== window) {
      // One live token in practice; drop stale windows so a token rotation cannot grow the map.
      if (this.windows.size > 16) this.windows.clear();
      this.windows.set(key, { window, count: 1 });
      return true;
    }
    if (entry.count >= this.perSecond) return false;
    entry.count += 1;
    return true;
  }
}

const LIMITED_PREFIXES = ["/v1/notifications", "/v1/interactions", "/v1/events", "/v1/contexts"];

/** Every POST under /v1/notifications and /v1/interactions, and POST /v1/events and /v1/contexts. */
export function isRateLimited(method: string, path: string): boolean {
  if (method !== "POST") return false;
  return LIMITED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}
