import type { Change } from "../store/types.js";

export const changeKey = (change: Exclude<Change, { kind: "missed" }>): string =>
  change.kind === "answers" ? `a:${change.installationId}` : `e:${change.deviceId}`;

/**
 * Lets a held poll end early when its client goes away. A plain object instead of an AbortSignal: with 10,000
 * held polls, EventTarget's per-signal machinery is a visible share of the memory.
 */
export interface Cancellation {
  aborted: boolean;
  onAbort: (() => void) | undefined;
}

/**
 * Wakes held long-polls (`wait=N`) when the store announces a commit for their key. One map of resolver sets: a
 * held poll costs a closure and a timer, nothing per poll on the store.
 */
export class ChangeHub {
  private readonly waiting = new Map<string, Set<(changed?: boolean) => void>>();
  /** Set on shutdown: held polls return their (empty) page at once and no new poll is held. */
  closed = false;

  close(): void {
    this.closed = true;
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolvers of all) for (const resolve of resolvers) resolve();
  }

  /**
   * Every held poll reads again once, then keeps waiting (announcements may have been missed). Not a "change": a
   * poll that finds nothing goes back to its wait instead of re-checking on a short timer.
   */
  recheckAll(): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolvers of all) for (const resolve of resolvers) resolve(false);
  }

  notify(key: string): void {
    const resolvers = this.waiting.get(key);
    if (!resolvers) return;
    this.waiting.delete(key);
    for (const resolve of resolvers) resolve();
  }

  /** Resolves true on a change for `key`, false when `milliseconds` pass or the poll is cancelled. */
  next(key: string, milliseconds: number, signal?: Cancellation): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal?.aborted || milliseconds <= 0 || this.closed) return resolve(false);
      let set = this.waiting.get(key);
      if (!set) {
        set = new Set();
        this.waiting.set(key, set);
      }
      const finish = (changed: boolean) => {
        clearTimeout(timer);
        if (signal) signal.onAbort = undefined;
        const current = this.waiting.get(key);
        if (current) {
          current.delete(onChange);
          if (current.size === 0) this.waiting.delete(key);
        }
        resolve(changed);
      };
      const onChange = (changed = true) => finish(changed);
      // Whole milliseconds: Node keeps one timer list per distinct duration, so 50,000 polls held with wait=30 share
      // a handful of lists instead of each a list (and a priority-queue entry) of its own.
      const timer = setTimeout(() => finish(false), Math.ceil(milliseconds));
      set.add(onChange);
      if (signal) signal.onAbort = () => finish(false);
    });
  }

  /** Held polls by kind (keys are `a:` installation answer feeds and `e:` device envelope feeds), for metrics. */
  sizeByKind(): { answers: number; envelopes: number } {
    let answers = 0;
    let envelopes = 0;
    for (const [key, set] of this.waiting) {
      if (key.startsWith("a:")) answers += set.size;
      else envelopes += set.size;
    }
    return { answers, envelopes };
  }

  /** Held polls, for tests and the operator's view. */
  get size(): number {
    let total = 0;
    for (const set of this.waiting.values()) total += set.size;
    return total;
  }
}
