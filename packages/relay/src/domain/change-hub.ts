import type { Change } from "../store/types.js";

export const changeKey = (change: Change): string =>
  change.kind === "answers" ? `a:${change.installationId}` : `e:${change.deviceId}`;

/**
 * Wakes held long-polls (`wait=N`) when the store announces a commit for their key. One map of resolver sets: a
 * held poll costs a closure and a timer, nothing per poll on the store.
 */
export class ChangeHub {
  private readonly waiting = new Map<string, Set<() => void>>();

  notify(key: string): void {
    const resolvers = this.waiting.get(key);
    if (!resolvers) return;
    this.waiting.delete(key);
    for (const resolve of resolvers) resolve();
  }

  /** Resolves true on a change for `key`, false when `milliseconds` pass or `signal` aborts. */
  next(key: string, milliseconds: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal?.aborted || milliseconds <= 0) return resolve(false);
      let set = this.waiting.get(key);
      if (!set) {
        set = new Set();
        this.waiting.set(key, set);
      }
      const finish = (changed: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const current = this.waiting.get(key);
        if (current) {
          current.delete(onChange);
          if (current.size === 0) this.waiting.delete(key);
        }
        resolve(changed);
      };
      const onChange = () => finish(true);
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), milliseconds);
      set.add(onChange);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Held polls, for tests and the operator's view. */
  get size(): number {
    let total = 0;
    for (const set of this.waiting.values()) total += set.size;
    return total;
  }
}
