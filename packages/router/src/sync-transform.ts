import type { Transformer } from "node:stream/web";

/**
 * Runs a stream transformer synchronously: one call in, the chunks it enqueued out. The router's proxy pipes every
 * streamed chunk through decode and encode this way, instead of through a chain of web TransformStreams that
 * costs a promise per chunk per stage. Only for transformers that are synchronous and only call `enqueue`.
 */
export class SyncTransform<I, O> {
  private out: O[] = [];
  private readonly controller = {
    enqueue: (chunk: O): void => {
      this.out.push(chunk);
    },
    desiredSize: 1,
    error: (reason: unknown): never => {
      throw reason;
    },
    terminate: (): void => {},
  };

  constructor(private readonly transformer: Transformer<I, O>) {
    transformer.start?.(this.controller as never);
  }

  push(chunk: I): O[] {
    this.transformer.transform?.(chunk, this.controller as never);
    return this.take();
  }

  end(): O[] {
    this.transformer.flush?.(this.controller as never);
    return this.take();
  }

  private take(): O[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}
