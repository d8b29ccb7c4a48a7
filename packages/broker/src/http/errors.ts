import type { Duplex } from "node:stream";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, ERRORS, type ErrorCode } from "../domain/errors.js";
import type { Logger } from "../log/logger.js";

/** A parsed body the broker refuses before routing (too deep, or a string that is not valid Unicode): 400. */
export class BodyShapeError extends DomainError {
  constructor(problem: string) {
    super("body_shape", problem);
  }
}

/**
 * Which catalogue entry a response came from, on the raw response: set by `sendError` and `sendEmpty413`, read by
 * the test that every error the broker answers is one of the catalogue's (test/error-catalogue.test.ts).
 */
export const ERROR_CODE = Symbol.for("notify.errorCode");

/**
 * Where error bodies may say which option is at fault: the web page's own API (docs/api.md, "Web UI API: `/ui/api`":
 * its shapes are the page's own).
 */
const FIELD_PREFIX = "/ui/api/";

/**
 * Answers with a catalogue error: `{error}` with the entry's status (docs/api.md, "Errors"), plus `field` on /ui/api
 * when the error names one. The one place an error body is written.
 */
export function sendError(reply: FastifyReply, error: DomainError | ErrorCode): FastifyReply {
  const { code, status, message, field } = typeof error === "string" ? fixed(error) : error;
  if (code === "body_too_large") return sendEmpty413(reply);
  const withField = field !== undefined && reply.request.url.startsWith(FIELD_PREFIX);
  return errorStatus(reply, code, status).send(withField ? { error: message, field } : { error: message });
}

/**
 * Sets a catalogue entry's status on a reply whose body the route writes itself (an HTML page, a HEAD): the one
 * other way an error leaves the broker.
 */
export function errorStatus(reply: FastifyReply, code: ErrorCode, status = fixed(code).status): FastifyReply {
  (reply.raw as unknown as Record<symbol, string>)[ERROR_CODE] = code;
  return reply.code(status);
}

/** A fixed-text entry as an error object, without building an Error (no stack) on the hot refusals (401, 429). */
function fixed(code: ErrorCode): Pick<DomainError, "code" | "status" | "message" | "field"> {
  const entry = ERRORS[code] as { status: unknown; message?: string };
  return {
    code,
    status: typeof entry.status === "number" ? entry.status : 400,
    message: entry.message ?? code,
    field: undefined,
  };
}

/**
 * The one place thrown errors become HTTP responses (docs/api.md, "Errors"): catalogue errors as they are, 413 with no
 * body, the framework's refusals by their kind, anything unexpected a 500 whose details stay in the log (scrubbed),
 * never in the response.
 */
export function errorHandler(logger: Logger) {
  return (error: FastifyError | DomainError | Error, request: FastifyRequest, reply: FastifyReply): void => {
    if (error instanceof DomainError) {
      sendError(reply, error);
      return;
    }
    const fastifyError = error as FastifyError;
    const status = fastifyError.statusCode ?? 500;
    if (status === 413 || fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      sendError(reply, "body_too_large");
      return;
    }
    if (error instanceof SyntaxError || fastifyError.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
      sendError(reply, "invalid_json");
      return;
    }
    if (status >= 400 && status < 500) {
      const words = status === 400 ? `invalid request: ${error.message}` : error.message;
      sendError(reply, new DomainError("framework_refused", words, { status }));
      return;
    }
    logger.error(`${request.method} ${request.routeOptions.url ?? "?"} failed: ${error.name}: ${error.message}`);
    sendError(reply, "internal");
  };
}

/** 413 with an empty body; the connection is closed so an oversized upload is not read. */
export function sendEmpty413(reply: FastifyReply): FastifyReply {
  return errorStatus(reply, "body_too_large").header("connection", "close").type("text/plain").send("");
}

/**
 * A request Node's HTTP parser refused before any route saw it: answered on the raw socket in the documented shape
 * (`{error}`), then the connection is closed. A reset connection gets nothing.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [code, reason] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? (["request_timeout", "Request Timeout"] as const)
      : error.code === "HPE_HEADER_OVERFLOW"
        ? (["headers_too_large", "Request Header Fields Too Large"] as const)
        : (["malformed_request", "Bad Request"] as const);
  const { status, message } = ERRORS[code];
  const body = JSON.stringify({ error: message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
