import type { ServerResponse } from "node:http";
import type { Readable } from "node:stream";

// Upstream body plumbing: every upstream body is read from its own 'data' events (no async iterator, web stream or
// promise per chunk), which is what keeps a proxied request cheap.

/** Resolves when the response can take more bytes, or will never need to (closed, or the client is gone). */
export function drained(response: ServerResponse, gone: AbortSignal): Promise<void> {
  if (response.destroyed || gone.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      response.off("drain", done);
      response.off("close", done);
      gone.removeEventListener("abort", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
    gone.addEventListener("abort", done);
  });
}

/**
 * A streamed response written in at most one socket write per turn of the event loop. The chunks handed over in one
 * turn (one upstream read often carries a whole fast reply) are queued and written as one at the end of the turn
 * (setImmediate), or together with the response's end. On loopback a socket write runs the receiving side's TCP path
 * too, so writes per request are a large part of what a proxied stream costs; a chunk waits at most until the
 * turn's I/O callbacks are done. The bytes the client reads are the same, in the same order.
 */
export class TurnWriter {
  private pending: (Buffer | string)[] = [];
  private scheduled = false;
  private readonly flushNow = (): void => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly response: ServerResponse) {}

  /** Queues a chunk; false when the client cannot take more now (wait for `drained`). */
  write(chunk: Buffer | string): boolean {
    this.pending.push(chunk);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
    return !this.response.writableNeedDrain;
  }

  /** Writes what is queued now; dropped when the response is already closed or ended. */
  flush(): void {
    const pending = this.pending;
    if (pending.length === 0) return;
    this.pending = [];
    const response = this.response;
    if (response.destroyed || response.writableEnded) return;
    if (pending.length === 1) {
      response.write(pending[0] as Buffer | string);
      return;
    }
    let allText = true;
    for (const chunk of pending) if (typeof chunk !== "string") allText = false;
    response.write(
      allText
        ? (pending as string[]).join("")
        : Buffer.concat(pending.map((chunk) => (typeof chunk === "string" ? Buffer.from(chunk) : chunk))),
    );
  }

  /** Writes what is queued and ends the response: one socket write for both. */
  end(): void {
    this.flush();
    this.response.end();
  }
}

/** An upstream body destroyed without 'end' and without an error: cut short (read as a socket failure). */
export function closedEarly(): Error {
  return Object.assign(new Error("upstream body closed before its end"), { code: "UND_ERR_SOCKET" });
}

interface BodyListeners {
  data(chunk: Buffer): void;
  end(): void;
  close(): void;
  error(error: unknown): void;
}

/** Listens to an upstream body's data, end, close and error; returns what takes all four listeners off again. */
function watchBody(body: Readable, on: BodyListeners): () => void {
  body.on("data", on.data);
  body.on("end", on.end);
  body.on("close", on.close);
  body.on("error", on.error);
  return () => {
    body.off("data", on.data);
    body.off("end", on.end);
    body.off("close", on.close);
    body.off("error", on.error);
  };
}

/**
 * Waits for the first chunk of an upstream body (undefined when it ended with no byte) and leaves the body paused
 * after it. Throws when the body fails before its first byte.
 */
export function firstChunk(body: Readable): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const ended = (): void => {
      unwatch();
      resolve(undefined);
    };
    const unwatch = watchBody(body, {
      data: (chunk) => {
        unwatch();
        body.pause();
        resolve(chunk);
      },
      end: ended,
      close: ended,
      error: (error) => {
        unwatch();
        reject(error);
      },
    });
  });
}

/**
 * Relays a paused upstream body chunk by chunk to `onChunk` from its own 'data' events (no async iterator, web
 * stream or promise per chunk). `onChunk` returns false when the client cannot take more: the body pauses until
 * the response drains. Resolves with "end" when the body ended, "gone" when the client left, or rejects with the
 * body's error.
 */
export function relay(
  body: Readable,
  response: ServerResponse,
  gone: AbortSignal,
  onChunk: (chunk: Buffer) => boolean,
): Promise<"end" | "gone"> {
  return new Promise((resolve, reject) => {
    if (gone.aborted || response.destroyed) {
      resolve("gone");
      return;
    }
    let settled = false;
    const settle = (): void => {
      settled = true;
      unwatch();
      response.off("drain", onDrain);
      response.off("close", onGone);
      gone.removeEventListener("abort", onGone);
    };
    const onGone = (): void => {
      if (settled) return;
      settle();
      resolve("gone");
    };
    const onDrain = (): void => {
      if (!settled) body.resume();
    };
    const unwatch = watchBody(body, {
      data: (chunk) => {
        if (gone.aborted || response.destroyed) {
          onGone();
          return;
        }
        if (!onChunk(chunk)) body.pause();
      },
      end: () => {
        if (settled) return;
        settle();
        resolve("end");
      },
      close: () => {
        if (settled) return;
        settle();
        reject(closedEarly());
      },
      error: (error) => {
        if (settled) return;
        settle();
        reject(error);
      },
    });
    response.on("drain", onDrain);
    response.on("close", onGone);
    gone.addEventListener("abort", onGone);
    body.resume();
  });
}

/**
 * Reads a whole upstream body, keeping at most `limit` bytes, from its own 'data' events (one promise, no async
 * iterator). Rejects with the body's error, or when it closes before its end.
 */
export function readBoundedBytes(body: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const unwatch = watchBody(body, {
      data: (chunk) => {
        if (size < limit) chunks.push(size + chunk.length <= limit ? chunk : chunk.subarray(0, limit - size));
        size += chunk.length;
      },
      end: () => {
        unwatch();
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
      },
      close: () => {
        unwatch();
        reject(closedEarly());
      },
      error: (error) => {
        unwatch();
        reject(error);
      },
    });
  });
}

/** `readBoundedBytes` as UTF-8 text. */
export async function readBounded(body: Readable, limit: number): Promise<string> {
  return (await readBoundedBytes(body, limit)).toString("utf8");
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
