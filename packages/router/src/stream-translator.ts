import type { StreamPart, Wire } from "./ir.js";
import { type SseEvent, SseParser } from "./sse.js";
import { SyncTransform } from "./sync-transform.js";
import { CONNECTION_FAILED_MESSAGE, mentionsSecret } from "./upstream-error.js";
import type { EncodeOptions } from "./wires/encode-options.js";
import { STREAM_TRANSFORMERS } from "./wires/transformers.js";

/**
 * An upstream stream of one wire as the client's stream of another, chunk by chunk and synchronously: bytes to SSE
 * events, events to stream parts (decoder), parts to the client wire's events (encoder). `translateStream` is the
 * same composition over web streams; this one costs no promise per chunk.
 */
export class StreamTranslator {
  private readonly parser = new SseParser();
  private readonly decoder: SyncTransform<SseEvent, StreamPart>;
  private readonly encoder: SyncTransform<StreamPart, string>;

  constructor(
    upstreamWire: Wire,
    clientWire: Wire,
    options: EncodeOptions,
    private readonly onPart: (part: StreamPart) => void = () => {},
    /** Credentials sent to the upstream on this attempt: an error part that repeats one loses its code. */
    private readonly secrets: readonly string[] = [],
  ) {
    this.decoder = new SyncTransform(STREAM_TRANSFORMERS[upstreamWire].decode());
    this.encoder = new SyncTransform(STREAM_TRANSFORMERS[clientWire].encode(options));
  }

  /** The client-wire text for one upstream chunk ("" when it completed no event). */
  push(chunk: Uint8Array): string {
    let text = "";
    for (const event of this.parser.push(chunk)) {
      for (const part of this.decoder.push(event)) text += this.encode(part);
    }
    return text;
  }

  /** The rest at the end of the upstream body; a stream without its terminal event ends in the wire's error. */
  end(): string {
    let text = "";
    for (const event of this.parser.end()) {
      for (const part of this.decoder.push(event)) text += this.encode(part);
    }
    for (const part of this.decoder.end()) text += this.encode(part);
    return text + this.encoder.end().join("");
  }

  /** The upstream body failed: the client's stream ends with its wire's own error event. */
  fail(): string {
    const part: StreamPart = { type: "error", code: "upstream_error", message: CONNECTION_FAILED_MESSAGE };
    return this.encode(part) + this.encoder.end().join("");
  }

  private encode(original: StreamPart): string {
    const part: StreamPart =
      original.type === "error" && mentionsSecret(original.message, this.secrets)
        ? { ...original, message: "upstream failed mid-stream" }
        : original;
    this.onPart(part);
    return this.encoder.push(part).join("");
  }
}
