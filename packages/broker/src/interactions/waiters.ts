import type { DomainBus } from "../domain/bus.js";
import type { InteractionService } from "./service.js";
import { type InteractionDto, isTerminal } from "./types.js";

interface Waiter {
  resolve: (interaction: InteractionDto) => void;
  timer: NodeJS.Timeout;
  /** The state when the wait began; the answer of last resort. */
  initial: InteractionDto;
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

  /** Resolves with the interaction once it is terminal, or with its current state after `timeoutMs`. */
  async wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<InteractionDto> {
    const current = this.interactions.get(id);
    if (isTerminal(current.status) || this.closing) return current;
    return new Promise<InteractionDto>((resolve) => {
      let set = this.waiters.get(id);
      if (!set) {
        set = new Set();
        this.waiters.set(id, set);
      }
      const waiters = set;
      const finish = (interaction: InteractionDto): void => {
        clearTimeout(waiter.timer);
        waiters.delete(waiter);
        if (waiters.size === 0 && this.waiters.get(id) === waiters) this.waiters.delete(id);
        signal?.removeEventListener("abort", onAbort);
        resolve(interaction);
      };
      const onAbort = (): void => finish(current);
      const waiter: Waiter = {
        initial: current,
        resolve: finish,
        timer: setTimeout(() => {
          try {
            finish(this.interactions.get(id));
          } catch {
            finish(current);
          }
        }, timeoutMs),
      };
      waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
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
    for (const [id, set] of this.waiters) {
      let current: InteractionDto | undefined;
      try {
        current = this.interactions.find(id);
      } catch {
        current = undefined;
      }
      for (const waiter of [...set]) waiter.resolve(current ?? waiter.initial);
    }
  }
}
