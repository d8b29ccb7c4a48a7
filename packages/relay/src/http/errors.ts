import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { RelayError } from "../domain/errors.js";
import type { RelayLogger } from "../log.js";

/**
 * How a route writes its errors. Spec 2 gives GET /v1/interaction-responses a string (`{error: "unauthorized"}`);
 * POST /v1/interaction-responses and the other routes an object (`{error: {code, message}}`). The GET envelope
 * feed follows its answer twin.
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

export function errorHandler(logger: RelayLogger) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const relayError = error instanceof RelayError ? error : fromFastify(error);
    if (relayError) return sendError(request, reply, relayError);
    // The message may quote input; only the error's name and code reach the log.
    logger.error(`${request.method} ${request.routeOptions.url ?? "?"} failed: ${error.name} ${error.code ?? ""}`);
    return sendError(request, reply, new RelayError("unavailable", "internal error"));
  };
}
