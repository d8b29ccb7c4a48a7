import type { DomainBus } from "../domain/bus.js";
import type { InteractionService } from "./service.js";
import { type InteractionDto, isTerminal } from "./types.js";

/** One open long-poll: only what it takes to answer it (10,000 of these are held at once). */
interface Waiter {
  resolve: (interaction: InteractionDto | undefined) => void;
  timer: NodeJS.Timeout;
}

/**
 * How long an interaction whose creator opted in (`abandon=cancel`, docs/mcp.md "When the asker dies") stays pending
 * with nobody waiting on it before it is withdrawn: longer than a waiter takes to poll again (at once after a
 * timeout, at most 5 s of backoff after a failed request), short enough that a dead asker's question stops reaching
 * the phone and the chats within seconds.
 */
export const ABANDON_GRACE_MS = 10_000;

export interface WaitRegistryOptions {
  /** ABANDON_GRACE_MS unless a test says otherwise. */
  abandonGraceMs?: number;
  /** One line when an abandoned interaction is withdrawn. */
  log?: (line: string) => void;
}

/**
 * Long-poll waiters, many per interaction. A terminal change on the bus wakes every waiter of that interaction
 * with the same object; a timeout answers with the current (still pending) state.
 */
export class WaitRegistry {
  private readonly waiters = new Map<string, Set<Waiter>>();
  /**
   * The pending interactions that live only while someone waits on them (opted in with `abandon=cancel`), each with
   * its withdrawal timer while nobody does. Only those: every other interaction waits for its expiry as
   * docs/api.md, "Expiry sweeping", says.
   */
  private readonly abandonable = new Map<string, NodeJS.Timeout | undefined>();
  private readonly abandonGraceMs: number;
  private readonly log: (line: string) => void;
  private closing = false;

  constructor(
    bus: DomainBus,
    private readonly interactions: InteractionService,
    options: WaitRegistryOptions = {},
  ) {
    this.abandonGraceMs = options.abandonGraceMs ?? ABANDON_GRACE_MS;
    this.log = options.log ?? (() => {});
    bus.on("interaction.changed", (interaction) => {
      if (!isTerminal(interaction.status)) return;
      this.forget(interaction.id);
      this.wake(interaction.id, interaction);
    });
  }

  /**
   * Opts a pending interaction in to being withdrawn once nobody waits on it: from now on, whenever its last waiter
   * goes (hung up or timed out) and no new one comes within the grace, it is cancelled as `POST .../cancel` would.
   * Nobody waits yet when its creator opts in at creation, so the grace starts at once.
   */
  cancelWhenAbandoned(id: string): void {
    if (this.closing || this.abandonable.has(id)) return;
    if (isTerminal(this.interactions.get(id).status)) return;
    this.abandonable.set(id, undefined);
    if (!this.waiters.has(id)) this.armWithdrawal(id);
  }

  /**
   * Resolves with the interaction once it is terminal, or with its current state after `timeoutMs` or when
   * `onClose` reports that the client went away (its answer is then thrown away by the caller).
   */
  wait(
    id: string,
    timeoutMs: number,
    onClose?: (cancel: () => void) => void,
    options: { cancelWhenAbandoned?: boolean } = {},
  ): Promise<InteractionDto> {
    const current = this.interactions.get(id);
    if (isTerminal(current.status) || this.closing) return Promise.resolve(current);
    // Every wait renews the opt-in: after a broker restart (this map is memory only) the next wait brings it back.
    if (options.cancelWhenAbandoned && !this.abandonable.has(id)) this.abandonable.set(id, undefined);
    // Nothing of `current` is kept while waiting (10,000 waiters would hold 10,000 copies).
    return this.hold(id, timeoutMs, onClose);
  }

  private async hold(id: string, timeoutMs: number, onClose?: (cancel: () => void) => void): Promise<InteractionDto> {
    let set = this.waiters.get(id);
    if (!set) {
      set = new Set();
      this.waiters.set(id, set);
    }
    const waiters = set;
    // The state at the start is not kept: a timeout or shutdown reads the current one, a wake carries its own.
    const settled = await new Promise<InteractionDto | undefined>((resolve) => {
      const waiter: Waiter = {
        resolve: (interaction) => {
          clearTimeout(waiter.timer);
          waiters.delete(waiter);
          if (waiters.size === 0 && this.waiters.get(id) === waiters) {
            this.waiters.delete(id);
            // The last waiter went without a settlement (hung up, timed out): the grace starts.
            if (interaction === undefined) this.armWithdrawal(id);
          }
          resolve(interaction);
        },
        timer: setTimeout(() => waiter.resolve(undefined), timeoutMs),
      };
      waiters.add(waiter);
      this.disarmWithdrawal(id);
      onClose?.(() => waiter.resolve(undefined));
    });
    return settled ?? this.interactions.get(id);
  }

  private wake(id: string, interaction: InteractionDto): void {
    const set = this.waiters.get(id);
    if (!set) return;
    for (const waiter of [...set]) waiter.resolve(interaction);
  }

  private armWithdrawal(id: string): void {
    if (this.closing || !this.abandonable.has(id) || this.abandonable.get(id) !== undefined) return;
    const timer = setTimeout(() => this.withdrawAbandoned(id), this.abandonGraceMs);
    timer.unref();
    this.abandonable.set(id, timer);
  }

  private disarmWithdrawal(id: string): void {
    const timer = this.abandonable.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.abandonable.set(id, undefined);
  }

  private withdrawAbandoned(id: string): void {
    this.abandonable.set(id, undefined);
    if (this.closing || this.waiters.has(id)) return;
    try {
      // The cancel path: every surface (page, phone, chats, desktop) settles it as cancelled; a settlement that
      // raced the timer stays as it is.
      const settled = this.interactions.cancel(id);
      this.forget(id);
      if (settled.status === "cancelled") {
        this.log(`withdrew interaction ${id}: nobody waited for it for ${Math.round(this.abandonGraceMs / 1000)} s`);
      }
    } catch {
      // Gone (purged) or the database is closing: nothing left to withdraw.
      this.forget(id);
    }
  }

  private forget(id: string): void {
    const timer = this.abandonable.get(id);
    if (timer !== undefined) clearTimeout(timer);
    this.abandonable.delete(id);
  }

  /** Number of open long-polls. */
  size(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  /** Shutdown: every open long-poll is answered with the interaction's current state; new waits return at once. */
  releaseAll(): void {
    this.closing = true;
    // A broker going down withdraws nothing: its waiters leave because it does, not because the askers died.
    for (const timer of this.abandonable.values()) if (timer !== undefined) clearTimeout(timer);
    this.abandonable.clear();
    for (const set of this.waiters.values()) {
      for (const waiter of [...set]) waiter.resolve(undefined);
    }
  }
}
