import type { Readable } from "node:stream";
import { wireErrorEvent } from "../http/wire-errors.js";
import type { StreamPart, Usage } from "../ir.js";
import { tokensOf } from "../ledger/ledger.js";
import { PassthroughTap } from "../passthrough-tap.js";
import { StreamTranslator } from "../stream-translator.js";
import { clientWantsUsage } from "../translate.js";
import { CONNECTION_FAILED_MESSAGE, TRUNCATED_STREAM_MESSAGE } from "../upstream-error.js";
import { connectionFailureCode } from "../upstreams/client.js";
import type { AttemptContext } from "./attempt.js";
import { drained, firstChunk, relay, TurnWriter } from "./body-plumbing.js";
import { type AttemptResult, finishOk, type RequestContext } from "./request-context.js";

/** An attempt that ends because the client went away: recorded `canceled`, nothing more is written. */
export function canceledAttempt(
  context: RequestContext,
  { attempt, startedMs }: Pick<AttemptContext, "attempt" | "startedMs">,
): AttemptResult {
  attempt.error_code = "canceled";
  attempt.duration_ms = context.now() - startedMs;
  context.record.outcome = "canceled";
  context.record.status = null;
  return { kind: "final" };
}

/**
 * A streamed upstream reply, routed or native. The attempt commits with the first byte the client gets, so nothing
 * is written before the upstream has sent one: a stream that fails or ends before its first byte still fails over
 * like a connection error (`connectionFailure`, which each caller words and cools down its own way).
 */
export async function streamFromFirstChunk(
  context: RequestContext,
  attemptContext: AttemptContext,
  upstreamBody: Readable,
  connectionFailure: (error: unknown) => AttemptResult,
): Promise<AttemptResult> {
  const { record } = context;
  let opened: Buffer | undefined;
  try {
    opened = await firstChunk(upstreamBody);
  } catch (error) {
    if (context.call.clientGone.aborted) return canceledAttempt(context, attemptContext);
    record.upstream_slug = null;
    record.upstream_model = null;
    return connectionFailure(error);
  }
  if (opened === undefined) {
    record.upstream_slug = null;
    record.upstream_model = null;
    return connectionFailure(Object.assign(new Error("empty stream"), { code: "UND_ERR_SOCKET" }));
  }
  return await streamReply(context, attemptContext, upstreamBody, opened);
}

/**
 * Relays a streamed reply whose first chunk has arrived. Once the first byte is written the attempt is committed:
 * a later failure ends the stream with the wire's own error event, never a retry.
 */
export async function streamReply(
  context: RequestContext,
  attemptContext: AttemptContext,
  upstreamBody: Readable,
  first: Buffer,
): Promise<AttemptResult> {
  const { call, record, now } = context;
  const { hop, attempt, startedMs } = attemptContext;
  const upstreamWire = hop.upstreamWire;
  let usage: Usage | undefined;
  let failure: Extract<StreamPart, { type: "error" }> | undefined;
  const observe = (part: StreamPart): void => {
    if (part.type === "usage") usage = part.usage;
    if (part.type === "error") failure ??= part;
  };
  // Why the upstream body failed, if it did (an inter-chunk timeout is recorded as `timeout`).
  let bodyError: unknown;
  upstreamBody.on("error", (error) => {
    bodyError ??= error;
  });
  const passthrough = upstreamWire === call.inboundWire;
  // Passthrough: the bytes go to the client unchanged and a synchronous tap reads usage, the terminal event and
  // (responses wire) the id and sequence numbers for the ledger. Translated: the full decode/encode pipeline.
  const tap = passthrough ? new PassthroughTap(upstreamWire) : undefined;
  const translator = passthrough
    ? undefined
    : new StreamTranslator(
        upstreamWire,
        call.inboundWire,
        {
          model: attemptContext.clientModel,
          includeUsage: clientWantsUsage(call.inboundWire, context.body),
          customToolNames: hop.translated.customToolNames,
        },
        observe,
        attemptContext.secrets,
      );
  const response = call.response;
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  const gone = (): boolean => call.clientGone.aborted || response.destroyed;
  // Every write goes through one writer: what arrives in one turn of the event loop leaves in one socket write.
  const writer = new TurnWriter(response);
  // Writes one upstream chunk (relayed as is, or translated); false when the client cannot take more now.
  const onChunk = (value: Buffer): boolean => {
    if (tap) {
      const writable = writer.write(value);
      tap.push(value);
      attempt.bytes_streamed = true;
      return writable;
    }
    const text = (translator as StreamTranslator).push(value);
    if (text === "") return true;
    attempt.bytes_streamed = true;
    return writer.write(text);
  };
  try {
    const writable = onChunk(first);
    if (!writable) await drained(response, call.clientGone);
    if ((await relay(upstreamBody, response, call.clientGone, onChunk)) === "end" && !gone()) {
      tap?.end();
      const rest = translator?.end() ?? "";
      if (rest !== "") writer.write(rest);
    }
  } catch (error) {
    bodyError ??= error;
    failure ??= { type: "error", code: "upstream_error", message: CONNECTION_FAILED_MESSAGE };
    // A translated stream ends with its wire's own error event (a relayed one gets it below).
    if (translator && !gone()) writer.write(translator.fail());
  }
  if (gone()) {
    // The upstream request is already aborted (clientGone); the tap ends with it.
    upstreamBody.destroy();
  }
  if (tap) {
    usage = tap.usage;
    failure ??= tap.failure;
  }
  const relayed = tap?.relayed ?? {};
  attempt.duration_ms = now() - startedMs;
  if (usage) {
    record.tokens = tokensOf(usage);
    record.usage_status = "reported";
  }
  if (gone()) {
    record.outcome = "canceled";
    record.status = null;
    attempt.error_code = "canceled";
    response.destroy();
    return { kind: "final" };
  }
  const truncated =
    failure !== undefined &&
    (failure.message === TRUNCATED_STREAM_MESSAGE || failure.message === CONNECTION_FAILED_MESSAGE);
  if (passthrough && truncated) {
    writer.write(
      wireErrorEvent(call.inboundWire, "upstream_error", "upstream stream ended before completion", relayed),
    );
  }
  writer.end();
  if (failure) {
    const code =
      bodyError !== undefined && connectionFailureCode(bodyError) === "timeout" ? "timeout" : "upstream_error";
    record.status = 200;
    record.outcome = "upstream_error";
    record.error_code = code;
    attempt.error_code = code;
  } else {
    finishOk(record, 200, usage);
  }
  return { kind: "done" };
}
