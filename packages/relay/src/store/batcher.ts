/**
 * Group commit for one kind of write: the items submitted while earlier batches are on their way to the database
 * travel together in the next one (one statement, one commit, one WAL flush), so throughput follows the number of
 * writers instead of being bounded by commits per second. At most `maxInFlight` batches run at once. Every item's
 * promise settles only after its batch has committed (or failed): a caller never reports what is not durable.
 *
 * When a batch fails as a whole (a deadlock with another process, a row the database refuses), each of its items is
 * tried once more alone, so one bad item fails only its own request.
 */
export interface BatcherOptions {
  maxInFlight: number;
  maxBatch: number;
}

interface Entry<In, Out> {
  item: In;
  resolve: (value: Out) => void;
  reject: (error: unknown) => void;
}

export interface BatchStats {
  /** Batches sent, and items in them (their ratio is the mean batch size). */
  batches: number;
  items: number;
}

export class Batcher<In, Out> {
  private pending: Entry<In, Out>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idleWaiters: (() => void)[] = [];
  readonly stats: BatchStats = { batches: 0, items: 0 };

  constructor(
    /** Runs a batch in one transaction; returns one outcome per item, in order. */
    private readonly runBatch: (items: In[]) => Promise<Out[]>,
    /** Runs one item in a transaction of its own (the fallback after a failed batch). */
    private readonly runOne: (item: In) => Promise<Out>,
    private readonly options: BatcherOptions,
  ) {}

  submit(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once nothing is pending or in flight (shutdown). */
  idle(): Promise<void> {
    if (this.pending.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    // The I/O phase has read every request that is ready by the time setImmediate runs: they share the batch.
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.options.maxInFlight && this.pending.length > 0) {
        this.start(this.pending.splice(0, this.options.maxBatch));
      }
    });
  }

  private start(batch: Entry<In, Out>[]): void {
    this.inFlight += 1;
    this.stats.batches += 1;
    this.stats.items += batch.length;
    this.run(batch).finally(() => {
      this.inFlight -= 1;
      this.schedule();
      if (this.inFlight === 0 && this.pending.length === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    });
  }

  private async run(batch: Entry<In, Out>[]): Promise<void> {
    let outcomes: Out[];
    try {
      outcomes = await this.runBatch(batch.map((entry) => entry.item));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      await Promise.all(
        batch.map((entry) =>
          this.runOne(entry.item).then(
            (value) => entry.resolve(value),
            (failure: unknown) => entry.reject(failure),
          ),
        ),
      );
      return;
    }
    for (const [index, entry] of batch.entries()) entry.resolve(outcomes[index] as Out);
  }
}
