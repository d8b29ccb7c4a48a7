import type { DomainBus } from "../domain/bus.js";
import type { InteractionService } from "./service.js";
import { type InteractionDto, isTerminal } from "./types.js";

/** One open long-poll: only what it takes to answer it (10,000 of these are held at once). */
interface Waiter {
  resolve: (interaction: InteractionDto | undefined) => void;
  timer: NodeJS.Timeout;
}

/**
 * Long-poll waiters, many per interaction. A terminal change on the bus wakes every waiter of that interaction
 * with the same object; a timeout answers with the current (still pending) state.
 */
export class WaitRegistry {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private closing = false;

  constructor(
    bus: DomainBus,
    private readonly interactions: InteractionService,
  ) {
    bus.on("interaction.changed", (interaction) => {
      if (isTerminal(interaction.status)) this.wake(interaction.id, interaction);
    });
  }

  /**
   * Resolves with the interaction once it is terminal, or with its current state after `timeoutMs` or when
   * `onClose` reports that the client went away (its answer is then thrown away by the caller).
   */
  wait(id: string, timeoutMs: number, onClose?: (cancel: () => void) => void): Promise<InteractionDto> {
    const current = this.interactions.get(id);
    if (isTerminal(current.status) || this.closing) return Promise.resolve(current);
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
          if (waiters.size === 0 && this.waiters.get(id) === waiters) this.waiters.delete(id);
          resolve(interaction);
        },
        timer: setTimeout(() => waiter.resolve(undefined), timeoutMs),
      };
      waiters.add(waiter);
      onClose?.(() => waiter.resolve(undefined));
    });
    return settled ?? this.interactions.get(id);
  }

  private wake(id: string, interaction: InteractionDto): void {
    const set = this.waiters.get(id);
    if (!set) return;
    for (const waiter of [...set]) waiter.resolve(interaction);
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
    for (const set of this.waiters.values()) {
      for (const waiter of [...set]) waiter.resolve(undefined);
    }
  }
}
