import type { IdGenerator } from "./ids.js";
import type { DecodedRequest, StreamPart, Warning, Wire } from "./ir.js";
import { requireObject } from "./json.js";
import { stripReplayedIds } from "./replayed-ids.js";
import { sseDecoderStream } from "./sse.js";
import { TranslationError } from "./translation-error.js";
import { connectionFailedPart } from "./upstream-error.js";
import { chatRequestWantsUsage } from "./wires/chat/decode-request.js";
import { WIRE_CODECS } from "./wires/codecs.js";

export interface TranslateRequestOptions {
  /** The native model ID of the chosen target; replaces the client's `model`. */
  model?: string;
  /**
   * The body already decoded by the caller (the router decodes once to reject unreadable requests). For the
   * responses wire it must come from a decode with `translatedHop: false`; the refusal of `previous_response_id`
   * on a translated hop is applied here.
   */
  decoded?: DecodedRequest;
}

export interface TranslatedRequest {
  /** The body to send upstream. */
  body: object;
  /** What was dropped on the way; empty for a same-wire hop. */
  warnings: Warning[];
  /** Responses-wire upstream: items whose unacceptable identifiers were stripped (the broker logs a non-zero count). */
  replayedIdsStripped: number;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** Responses-wire client: its `custom` tools, whose calls must go back to it as `custom_tool_call` items. */
  customToolNames: ReadonlySet<string>;
}

/**
 * A client request of one wire as the body for an upstream of another. A same-wire hop is passthrough (docs/router.md,
 * "Passthrough"): the body goes as it is, except `model` and, on the responses wire, unacceptable replayed
 * identifiers. Throws a TranslationError when the body cannot be read or the target cannot express it.
 */
export function translateRequest(
  fromWire: Wire,
  toWire: Wire,
  body: unknown,
  options: TranslateRequestOptions = {},
): TranslatedRequest {
  const client = requireObject(body, "request body");
  if (fromWire === toWire) {
    const passthrough = options.model === undefined ? client : { ...client, model: options.model };
    const stripped = toWire === "responses" ? stripReplayedIds(passthrough) : { body: passthrough, count: 0 };
    return {
      body: stripped.body,
      warnings: [],
      replayedIdsStripped: stripped.count,
      stream: client.stream === true,
      customToolNames: new Set(),
    };
  }
  let decoded = options.decoded;
  if (decoded === undefined) {
    decoded = WIRE_CODECS[fromWire].decodeRequest(client);
  } else if (fromWire === "responses" && client.previous_response_id != null) {
    throw new TranslationError(
      "unsupported_previous_response_id",
      "previous_response_id needs a responses-wire upstream; send the whole conversation instead",
    );
  }
  const warnings = decoded.warnings;
  const request = options.model === undefined ? decoded.request : { ...decoded.request, model: options.model };
  return {
    body: WIRE_CODECS[toWire].encodeRequest(request),
    warnings,
    replayedIdsStripped: 0,
    stream: request.stream,
    customToolNames: new Set(request.tools.filter((tool) => tool.kind === "custom").map((tool) => tool.name)),
  };
}

/**
 * Whether the client's own framing wants a usage report: always on the responses and messages wires, and on the
 * chat wire only when it set `stream_options.include_usage`.
 */
export function clientWantsUsage(clientWire: Wire, body: unknown): boolean {
  return clientWire !== "chat" || chatRequestWantsUsage(body);
}

export interface TranslateStreamOptions {
  /** The model name the client asked for; the translated stream carries it back. */
  model: string;
  /** Chat-wire client: send the final usage chunk (see `clientWantsUsage`). */
  includeUsage?: boolean;
  /** Responses-wire client: names of its `custom` tools (from `translateRequest`). */
  customToolNames?: ReadonlySet<string>;
  /** Sees every part on its way through, e.g. to record usage in the ledger. */
  onPart?: (part: StreamPart) => void;
  newId?: IdGenerator;
  now?: () => number;
}

/**
 * An upstream's SSE bytes as stream parts. A failure of the upstream body itself (a reset connection) becomes an
 * error part, so a committed client stream always ends with its wire's own error event
 * (docs/router.md, "Failover and cooldowns", rule 4).
 */
export function decodeUpstreamStream(
  upstreamWire: Wire,
  upstream: ReadableStream<Uint8Array>,
): ReadableStream<StreamPart> {
  const reader = upstream
    .pipeThrough(sseDecoderStream())
    .pipeThrough(WIRE_CODECS[upstreamWire].decodeStream())
    .getReader();
  return new ReadableStream<StreamPart>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch {
        controller.enqueue(connectionFailedPart());
        controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** An upstream's SSE bytes of one wire as the client's SSE bytes of another (or the same) wire. */
export function translateStream(
  upstreamWire: Wire,
  clientWire: Wire,
  upstream: ReadableStream<Uint8Array>,
  options: TranslateStreamOptions,
): ReadableStream<Uint8Array> {
  const { onPart, ...encodeOptions } = options;
  let parts = decodeUpstreamStream(upstreamWire, upstream);
  if (onPart !== undefined) {
    parts = parts.pipeThrough(
      new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          onPart(part);
          controller.enqueue(part);
        },
      }),
    );
  }
  return parts.pipeThrough(WIRE_CODECS[clientWire].encodeStream(encodeOptions)).pipeThrough(new TextEncoderStream());
}

export interface TranslateResponseOptions {
  model: string;
  customToolNames?: ReadonlySet<string>;
  newId?: IdGenerator;
  now?: () => number;
}

/** A one-shot upstream response body of one wire as the client's response body of another. */
export function translateResponse(
  upstreamWire: Wire,
  clientWire: Wire,
  body: unknown,
  options: TranslateResponseOptions,
): object {
  return WIRE_CODECS[clientWire].encodeResponse(WIRE_CODECS[upstreamWire].decodeResponse(body), options);
}
