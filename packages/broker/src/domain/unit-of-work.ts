/**
 * The one way the domain writes atomically, injected like the Clock (the relay's `RelayStore.transaction` is the
 * model). The broker's implementation is `unitOfWork(db)` in store/database.ts, which joins the group commit:
 * every unit started in one event-loop turn commits together, each in its own savepoint.
 */
export interface UnitOfWork {
  /** Runs `work` as one atomic unit; nested calls join the outer unit. A throw rolls back this unit alone. */
  run<T>(work: () => T): T;
  /**
   * Runs `callback` once the current unit commits (dropped on rollback, so nobody hears of a write that did not
   * happen), or at once when no unit is open.
   */
  afterCommit(callback: () => void): void;
  /**
   * The commit of the open group-commit batch, when there is one: a response must not leave before it, and a
   * reader of committed rows (the dispatcher) waits for it.
   */
  pendingCommit(): Promise<void> | undefined;
}
