import type { FastifyReply, FastifyRequest } from "fastify";
import type { Cancellation } from "../../domain/change-hub.js";
import { RelayError } from "../../domain/errors.js";
import { MAX_WAIT_SECONDS } from "../../domain/feed.js";

type Query = Record<string, string | string[] | undefined>;

/** A single query value; a repeated parameter is a malformed request. */
export function queryValue(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Query)[name];
  if (Array.isArray(value)) throw new RelayError("invalid_request", `${name} must be given once`);
  return value;
}

/**
 * `wait=N`: seconds, a whole number; anything over 30 is held 30 (Notify's own addition:
 * docs/relay.md, "Long polls (`wait=N`)").
 */
export function waitSeconds(request: FastifyRequest): number {
  const value = queryValue(request, "wait");
  if (value === undefined || value === "") return 0;
  if (!/^\d{1,6}$/.test(value)) throw new RelayError("invalid_request", "wait must be a whole number of seconds");
  return Math.min(Number(value), MAX_WAIT_SECONDS);
}

/** Cancelled when the client goes away, so a held long-poll does not outlive its connection. */
export function abortOnClose(reply: FastifyReply): Cancellation {
  const cancellation: Cancellation = { aborted: false, onAbort: undefined };
  reply.raw.once("close", () => {
    if (reply.raw.writableFinished) return;
    cancellation.aborted = true;
    cancellation.onAbort?.();
  });
  return cancellation;
}
