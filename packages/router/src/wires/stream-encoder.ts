import type { Transformer } from "node:stream/web";
import type { FinishReason, StreamPart, Usage } from "../ir.js";
import { TRUNCATED_STREAM_MESSAGE } from "../upstream-error.js";

/** The stream parts whose frames differ from wire to wire: text, reasoning and tool calls. */
export type ContentPart = Exclude<StreamPart, { type: "usage" | "finish" | "error" }>;

/** One wire's frames for a stream of parts (see WireStream.transformer for the order they come in). */
export interface WireStreamEncoder {
  /** The frames a stream opens with, if the wire has any. */
  open?(): void;
  content(part: ContentPart): void;
  /** The upstream's finish: the closing frames. */
  end(reason: FinishReason): void;
  /** The closing frames of a failure: an error part, or a stream cut off before its finish. */
  fail(code: string, message: string): void;
}

/**
 * What every wire's stream encoder shares: where its frames go, the usage the upstream reported, and the order of the
 * parts. The router's proxy runs the transformer synchronously (it only ever calls `enqueue`).
 */
export class WireStream {
  /** The usage of the last `usage` part, if one came yet. */
  usage: Usage | undefined;
  private sink: TransformStreamDefaultController<string> | undefined;
  private finished = false;

  /** Writes one SSE frame to the client. */
  emit(frame: string): void {
    this.sink?.enqueue(frame);
  }

  /**
   * The encoder as a transformer: the first `finish` or `error` part ends the stream (later parts are dropped), and
   * parts that stop without one are a cut-off upstream, never a quiet success.
   */
  transformer(encoder: WireStreamEncoder): Transformer<StreamPart, string> {
    const fail = (code: string, message: string) => {
      this.finished = true;
      encoder.fail(code, message);
    };
    return {
      start: (controller) => {
        this.sink = controller;
        encoder.open?.();
      },
      transform: (part) => {
        if (this.finished) return;
        switch (part.type) {
          case "usage":
            this.usage = part.usage;
            return;
          case "finish":
            this.finished = true;
            return encoder.end(part.reason);
          case "error":
            return fail(part.code, part.message);
          default:
            return encoder.content(part);
        }
      },
      flush: () => {
        if (!this.finished) fail("upstream_error", TRUNCATED_STREAM_MESSAGE);
      },
    };
  }
}
