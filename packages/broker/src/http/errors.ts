import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError } from "../domain/errors.js";
import type { Logger } from "../log/logger.js";

/**
 * The one place errors become HTTP responses (spec 1, "Errors"): `{error: string}` bodies, 413 with no body,
 * anything unexpected a 500 whose details stay in the log (scrubbed), never in the response.
 */
export function errorHandler(logger: Logger) {
  return (error: FastifyError | DomainError | Error, request: FastifyRequest, reply: FastifyReply): void => {
    if (error instanceof DomainError) {
      reply.code(error.status).send({ error: error.message });
      return;
    }
    const fastifyError = error as FastifyError;
    const status = fastifyError.statusCode ?? 500;
    if (status === 413 || fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      sendEmpty413(reply);
      return;
    }
    if (error instanceof SyntaxError || fastifyError.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
      reply.code(400).send({ error: "invalid JSON body" });
      return;
    }
    if (status >= 400 && status < 500) {
      reply.code(status).send({ error: status === 400 ? `invalid request: ${error.message}` : error.message });
      return;
    }
    logger.error(`${request.method} ${request.routeOptions.url ?? "?"} failed: ${error.name}: ${error.message}`);
    reply.code(500).send({ error: "internal error" });
  };
}

/** 413 with an empty body; the connection is closed so an oversized upload is not read. */
export function sendEmpty413(reply: FastifyReply): FastifyReply {
  return reply.code(413).header("connection", "close").type("text/plain").send("");
}
