import type { Readable } from "node:stream";
import type { AttemptContext } from "../proxy/attempt.js";
import { readBoundedBytes } from "../proxy/body-plumbing.js";
import { type AttemptResult, finishOk, type RequestContext } from "../proxy/request-context.js";
import { WIRE_CODECS } from "../wires/codecs.js";
import { collectStreamBytes } from "./collect-stream.js";

const MAX_COLLECTED_BODY = 256 * 1024 * 1024;

/**
 * The reply to a client that asked for one response from a backend that answers only as a stream
 * (`plan_signin_a`): the stream is read to its end, collected into one reply and encoded for the client's wire.
 * Nothing reaches the client before the stream completed, so a stream cut short, or one that ends in its own
 * error event, still fails over.
 */
export async function collectedReply(
  context: RequestContext,
  attemptContext: AttemptContext,
  body: Readable,
  on: { connectionFailure(error: unknown): AttemptResult; canceled(): AttemptResult },
): Promise<AttemptResult> {
  const { call, record, now } = context;
  const { hop, attempt, startedMs } = attemptContext;
  const notAnswered = (): void => {
    record.upstream_slug = null;
    record.upstream_model = null;
  };
  let bytes: Buffer;
  try {
    bytes = await readBoundedBytes(body, MAX_COLLECTED_BODY);
  } catch (error) {
    notAnswered();
    return on.connectionFailure(error);
  }
  const collected = await collectStreamBytes(hop.upstreamWire, bytes);
  if (!collected.ok) {
    notAnswered();
    attempt.error_code = "upstream_error";
    attempt.duration_ms = now() - startedMs;
    return {
      kind: "failover",
      failure: {
        status: 502,
        code: "upstream_error",
        message: `upstream ${hop.target.upstream.slug}: the stream ended without a complete reply`,
      },
    };
  }
  let out: string;
  try {
    out = JSON.stringify(
      WIRE_CODECS[call.inboundWire].encodeResponse(collected.reply, {
        model: attemptContext.clientModel,
        customToolNames: hop.translated.customToolNames,
      }),
    );
  } catch {
    notAnswered();
    attempt.error_code = "upstream_error";
    attempt.duration_ms = now() - startedMs;
    return {
      kind: "failover",
      failure: {
        status: 502,
        code: "upstream_error",
        message: `upstream ${hop.target.upstream.slug}: unreadable reply`,
      },
    };
  }
  if (call.clientGone.aborted) return on.canceled();
  call.response.writeHead(200, { "content-type": "application/json" });
  call.response.end(out);
  attempt.bytes_streamed = true;
  attempt.duration_ms = now() - startedMs;
  finishOk(record, 200, collected.reply.usage);
  return { kind: "done" };
}
