import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { RelayError } from "../domain/errors.js";
import type { RelayLogger } from "../log.js";

/**
 * How a route writes its errors (docs/relay.md, "Errors"). The contract gives GET /v1/interaction-responses a string
 * (`{error: "unauthorized"}`); POST /v1/interaction-responses and the other routes an object (`{error: {code,
 * message}}`). The GET envelope feed follows its answer twin.
 */
export type ErrorStyle = "string" | "object";

declare module "fastify" {
  interface FastifyContextConfig {
    errorStyle?: ErrorStyle;
  }
}

/** Fastify's own errors from parsing, mapped to the relay's codes (media type and size come before JSON parsing). */
function fromFastify(error: FastifyError): RelayError | undefined {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new RelayError("unsupported_media_type", "Content-Type must be application/json");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new RelayError("payload_too_large", "the body is over 64 KiB");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new RelayError("invalid_request", "the body is not valid JSON");
    default:
      if (typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500) {
        return new RelayError("invalid_request", "the request is malformed");
      }
      return undefined;
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: RelayError): FastifyReply {
  const style = request.routeOptions.config?.errorStyle ?? "object";
  if (error.retryAfter !== undefined) reply.header("Retry-After", String(error.retryAfter));
  const body = style === "string" ? { error: error.code } : { error: { code: error.code, message: error.message } };
  return reply.code(error.status).send(body);
}

/** A declared body up to this size is read and discarded after its 413 instead of the connection being closed. */
export const DRAIN_LIMIT = 1024 * 1024;
/** How long the rest of such a body may take to arrive once the 413 is sent; then the socket is closed. */
const DRAIN_DEADLINE_MS = 10_000;

/**
 * Fastify answers a declared Content-Length over the limit with `Connection: close` before reading the body. Closing
 * a socket whose peer is still sending makes the kernel send a reset, which can reach a proxy (Caddy, nginx) before it
 * has read the 413: the proxy then answers 502 (seen in 4% of 70 KiB requests through Caddy 2.6). For a body of a
 * plausible size the relay keeps the connection open and lets Node read the rest and discard it (what nginx's
 * lingering close and Go's server do), bounded in size by DRAIN_LIMIT and in time by DRAIN_DEADLINE_MS. An
 * `Expect: 100-continue` request sends no body without the 100, so it is closed as before.
 */
function drainInsteadOfClosing(request: FastifyRequest, reply: FastifyReply): void {
  const declared = Number(request.headers["content-length"]);
  if (!(declared <= DRAIN_LIMIT) || request.headers.expect !== undefined) return;
  reply.removeHeader("connection");
  const raw = request.raw;
  reply.raw.once("finish", () => {
    if (raw.complete) return;
    setTimeout(() => {
      if (!raw.complete) raw.socket?.destroy();
    }, DRAIN_DEADLINE_MS).unref();
  });
}

export function errorHandler(logger: RelayLogger) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") drainInsteadOfClosing(request, reply);
    const relayError = error instanceof RelayError ? error : fromFastify(error);
    if (relayError) return sendError(request, reply, relayError);
    // The message may quote input; only the error's name and code reach the log.
    logger.error(`${request.method} ${request.routeOptions.url ?? "?"} failed: ${error.name} ${error.code ?? ""}`);
    return sendError(request, reply, new RelayError("unavailable", "internal error"));
  };
}
