import { type CollectedReply, collectReply } from "../collect-reply.js";
import type { StreamPart, Wire } from "../ir.js";
import { SseParser } from "../sse.js";
import { SyncTransform } from "../sync-transform.js";
import { STREAM_TRANSFORMERS } from "../wires/transformers.js";

/**
 * A whole upstream event stream (its bytes, read to the end) as one reply: for a client that asked for one response
 * from a backend that answers only as a stream (docs/router.md, "`plan_signin_a`: the sign-in's own backend").
 */
export function collectStreamBytes(wire: Wire, bytes: Buffer): Promise<CollectedReply> {
  const parser = new SseParser();
  const decoder = new SyncTransform(STREAM_TRANSFORMERS[wire].decode());
  const parts: StreamPart[] = [];
  for (const event of [...parser.push(bytes), ...parser.end()]) parts.push(...decoder.push(event));
  parts.push(...decoder.end());
  return collectReply(
    new ReadableStream<StreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  );
}
