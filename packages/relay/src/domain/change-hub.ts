import type { Change } from "../store/types.js";

/**
 * The feed a change is about: an installation's answers (`a:`) or receipts (`c:`), or a device's envelopes (`e:`,
 * revoked included).
 */
export const changeKey = (change: Exclude<Change, { kind: "missed" }>): string =>
  change.kind === "answers"
    ? `a:${change.installationId}`
    : change.kind === "receipts"
      ? `c:${change.installationId}`
      : `e:${change.deviceId}`;

/**
 * How a held poll's wait ended: a change for its key (read again), a re-check or timeout (`quiet`), or its reader's
 * credential revoked (end it with 401).
 */
export type Wake = "changed" | "quiet" | "revoked";

/** Revoked feed keys remembered (device ids are never reused); past this, the oldest is forgotten. */
const MAX_REVOKED = 10_000;

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
  private readonly waiting = new Map<string, Set<(wake: Wake) => void>>();
  /**
   * Feeds whose reader was revoked: a poll held for one ends at once, and so does one that authenticated just before
   * the revocation committed and starts waiting after it was announced.
   */
  private readonly revoked = new Set<string>();
  /** Set on shutdown: held polls return their (empty) page at once and no new poll is held. */
  closed = false;

  close(): void {
    this.closed = true;
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolvers of all) for (const resolve of resolvers) resolve("quiet");
  }

  /**
   * Every held poll reads again once, then keeps waiting (announcements may have been missed). Not a "change": a
   * poll that finds nothing goes back to its wait instead of re-checking on a short timer.
   */
  recheckAll(): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolvers of all) for (const resolve of resolvers) resolve("quiet");
  }

  notify(key: string, wake: Wake = "changed"): void {
    const resolvers = this.waiting.get(key);
    if (!resolvers) return;
    this.waiting.delete(key);
    for (const resolve of resolvers) resolve(wake);
  }

  /** The reader of `key` lost its credential: its held polls end now, and any it starts later at once. */
  revoke(key: string): void {
    this.revoked.add(key);
    if (this.revoked.size > MAX_REVOKED) this.revoked.delete(this.revoked.values().next().value as string);
    this.notify(key, "revoked");
  }

  /**
   * Resolves `changed` on a change for `key`, `revoked` when its reader is revoked, `quiet` when `milliseconds`
   * pass or the poll is cancelled.
   */
  next(key: string, milliseconds: number, signal?: Cancellation): Promise<Wake> {
    return new Promise((resolve) => {
      if (this.revoked.has(key)) return resolve("revoked");
      if (signal?.aborted || milliseconds <= 0 || this.closed) return resolve("quiet");
      let set = this.waiting.get(key);
      if (!set) {
        set = new Set();
        this.waiting.set(key, set);
      }
      const finish = (wake: Wake) => {
        clearTimeout(timer);
        if (signal) signal.onAbort = undefined;
        const current = this.waiting.get(key);
        if (current) {
          current.delete(finish);
          if (current.size === 0) this.waiting.delete(key);
        }
        resolve(wake);
      };
      // Whole milliseconds: Node keeps one timer list per distinct duration, so 50,000 polls held with wait=30 share
      // a handful of lists instead of each a list (and a priority-queue entry) of its own.
      const timer = setTimeout(() => finish("quiet"), Math.ceil(milliseconds));
      set.add(finish);
      if (signal) signal.onAbort = () => finish("quiet");
    });
  }

  /** Held polls by kind (keys are `a:` installation answer feeds and `e:` device envelope feeds), for metrics. */
  sizeByKind(): { answers: number; envelopes: number; receipts: number } {
    let answers = 0;
    let envelopes = 0;
    let receipts = 0;
    for (const [key, set] of this.waiting) {
      if (key.startsWith("a:")) answers += set.size;
      else if (key.startsWith("c:")) receipts += set.size;
      else envelopes += set.size;
    }
    return { answers, envelopes, receipts };
  }

  /** Held polls, for tests and the operator's view. */
  get size(): number {
    let total = 0;
    for (const set of this.waiting.values()) total += set.size;
    return total;
  }
}
