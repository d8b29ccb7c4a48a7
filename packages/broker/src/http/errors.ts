import type { Duplex } from "node:stream";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError } from "../domain/errors.js";
import type { Logger } from "../log/logger.js";

/** A parsed body the broker refuses before routing (too deep, or a string that is not valid Unicode): 400. */
export class BodyShapeError extends Error {
  readonly statusCode = 400;
}

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
    if (error instanceof BodyShapeError) {
      reply.code(400).send({ error: error.message });
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

/**
 * A request Node's HTTP parser refused before any route saw it: answered on the raw socket in the spec's shape
 * (`{error}`), then the connection is closed. A reset connection gets nothing.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, reason, message] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "Request Timeout", "request not received in time"]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, "Request Header Fields Too Large", "request headers too large"]
        : [400, "Bad Request", "malformed HTTP request"];
  const body = JSON.stringify({ error: message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
