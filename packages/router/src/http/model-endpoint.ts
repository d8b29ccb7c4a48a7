import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { bearerCredential, isLoopbackHost, secretMatches } from "@notify/contracts/guards";
import { jsonShapeProblem } from "@notify/contracts/json-shape";
import type { Wire } from "../ir.js";
import { type ClientCredential, clientCredential } from "../native.js";
import type { RouterLog } from "../proxy/request-context.js";
import type { RouterProxy } from "../proxy/router-proxy.js";
import { type RouterErrorCode, wireError } from "./wire-errors.js";

/** The router's live settings, read on every request (config.json keys RouterEnabled, RouterKey, ...). */
export interface RouterRuntimeSettings {
  enabled: boolean;
  key: string | undefined;
  maxRequestBodyBytes: number;
  /** RouterLedgerRetentionDays: ledger rows older than this are pruned at start and once a day. */
  ledgerRetentionDays: number;
  /** RouterNativeBaseUrl: the agent's own vendor (default its public API); tests point it at a loopback mock. */
  nativeBaseUrl?: string;
}

/** A request refused before its body is read (or because of it). */
export interface Refusal {
  status: number;
  code: RouterErrorCode;
  message: string;
  /** The rest of the body is never read, so the connection cannot carry another request. */
  close?: boolean;
}

export const TOO_LARGE: Refusal = {
  status: 413,
  code: "payload_too_large",
  message: "request body over RouterMaxRequestBodyBytes",
  close: true,
};
export const NOT_JSON: Refusal = {
  status: 400,
  code: "invalid_request",
  message: "the request body is not valid JSON",
};
const NOT_OBJECT: Refusal = {
  status: 400,
  code: "invalid_request",
  message: "the request body must be a JSON object",
};

/**
 * The checks every router request passes before its body is read, in order: off (404 router_disabled, no provider
 * contacted), a browser Origin (403), the loopback Host (403), a declared length over the limit (413), the router
 * key (401).
 */
export function admission(headers: IncomingHttpHeaders, settings: RouterRuntimeSettings): Refusal | undefined {
  if (!settings.enabled) return { status: 404, code: "router_disabled", message: "the provider router is off" };
  if (headers.origin !== undefined) {
    return { status: 403, code: "forbidden", message: "browser requests (Origin header) are refused" };
  }
  if (!isLoopbackHost(headers.host)) return { status: 403, code: "host_not_loopback", message: "non-loopback Host" };
  const length = Number(headers["content-length"] ?? 0);
  if (length > settings.maxRequestBodyBytes) return TOO_LARGE;
  // The key may come in any of the three places; when it comes in x-notify-router-key, the client's own
  // Authorization or x-api-key is its vendor credential and does not have to match.
  const expected = settings.key;
  if (expected !== undefined) {
    const header = headers["x-notify-router-key"];
    const apiKey = headers["x-api-key"];
    if (
      (typeof header === "string" && secretMatches(header, expected, true)) ||
      secretMatches(bearerCredential(headers.authorization), expected, true) ||
      (typeof apiKey === "string" && secretMatches(apiKey, expected, true))
    ) {
      return undefined;
    }
  }
  return { status: 401, code: "unauthorized", message: "missing or wrong router key" };
}

/** Deepest nesting a model request may have: real ones (tool schemas included) stay far below it. */
const MAX_REQUEST_DEPTH = 256;

/**
 * A request body as the router takes it: JSON, or undefined when empty. Throws the refusal: NOT_JSON, or a 400 for
 * a body nested so deep that rendering it again for the upstream would overflow the stack (the client's error,
 * never the upstream's: nothing is contacted or cooled down for it).
 */
export function parseBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw NOT_JSON;
  }
  const problem = jsonShapeProblem(body, { maxDepth: MAX_REQUEST_DEPTH, wellFormed: false });
  if (problem) throw { status: 400, code: "invalid_request", message: problem } satisfies Refusal;
  return body;
}

/** Answers a refusal on a raw response, in the inbound wire's shape. */
export function refuse(response: ServerResponse, wire: Wire | "models", refusal: Refusal): void {
  // The same Content-Type as the framework's answer to a refusal on the router's other paths.
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  if (refusal.close) headers.connection = "close";
  response.writeHead(refusal.status, headers);
  response.end(JSON.stringify(wireError(wire, refusal.code, refusal.message)));
}

export interface ModelEndpoint {
  wire: Wire;
  countTokens: boolean;
}

/** The four model endpoints, by their path under the router's prefix. */
export function modelEndpoints(prefix: string): Map<string, ModelEndpoint> {
  return new Map([
    [`${prefix}/responses`, { wire: "responses", countTokens: false }],
    [`${prefix}/chat/completions`, { wire: "chat", countTokens: false }],
    [`${prefix}/messages`, { wire: "messages", countTokens: false }],
    [`${prefix}/messages/count_tokens`, { wire: "messages", countTokens: true }],
  ]);
}

/**
 * The one HTTP path of a model request, straight on node:http's request and response: admission, the body read
 * whole (cut as soon as it passes the limit: a chunked body has no length to check up front), parsed, then the
 * proxy writes status, headers and bytes itself. The host's lane calls it for a socket request; the framework's
 * route hands it the raw pair of an `app.inject()` request (or one arriving while the lane is closed).
 */
export function answerModelRequest(
  endpoint: ModelEndpoint,
  request: IncomingMessage,
  response: ServerResponse,
  dependencies: { settings: () => RouterRuntimeSettings; proxy: RouterProxy; log: RouterLog },
): void {
  const { wire, countTokens } = endpoint;
  const settings = dependencies.settings();
  const refusal = admission(request.headers, settings);
  if (refusal) {
    refuse(response, wire, refusal);
    return;
  }
  const limit = settings.maxRequestBodyBytes;
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  const onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size <= limit) {
      chunks.push(bytes);
      return;
    }
    refused = true;
    request.off("data", onData);
    request.pause();
    refuse(response, wire, TOO_LARGE);
  };
  request.on("data", onData);
  request.once("error", () => {
    refused = true;
  });
  request.once("end", () => {
    if (refused) return;
    let body: unknown;
    try {
      body = parseBody((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8"));
    } catch (refusal) {
      refuse(response, wire, refusal as Refusal);
      return;
    }
    const url = request.url ?? "";
    const query = url.indexOf("?");
    void serve(
      {
        wire,
        countTokens,
        body,
        rawBody: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
        query: query === -1 ? "" : url.slice(query),
        credential: wire === "messages" ? ownCredential(request.headers, settings) : undefined,
      },
      request.headers,
      response,
      dependencies,
    );
  });
}

/** The client's own vendor credential, when the router key came in x-notify-router-key (Authentication 2). */
function ownCredential(headers: IncomingHttpHeaders, settings: RouterRuntimeSettings): ClientCredential | undefined {
  const expected = settings.key;
  const header = headers["x-notify-router-key"];
  if (expected === undefined || typeof header !== "string") return undefined;
  const isRouterKey = (value: string): boolean => secretMatches(value, expected, true);
  return clientCredential(headers, isRouterKey(header), isRouterKey);
}

interface ReadRequest {
  wire: Wire;
  countTokens: boolean;
  body: unknown;
  rawBody: Buffer;
  query: string;
  credential: ClientCredential | undefined;
}

/** One model request, its body read and parsed: the proxy writes status, headers and bytes itself. */
async function serve(
  read: ReadRequest,
  headers: IncomingHttpHeaders,
  response: ServerResponse,
  dependencies: { proxy: RouterProxy; log: RouterLog },
): Promise<void> {
  const { wire, countTokens, body } = read;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    refuse(response, wire, NOT_OBJECT);
    return;
  }
  const gone = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) gone.abort();
  });
  try {
    await dependencies.proxy.handle({
      inboundWire: wire,
      countTokens,
      body,
      rawBody: read.rawBody,
      query: read.query,
      ...(read.credential ? { credential: read.credential } : {}),
      headers,
      response,
      clientGone: gone.signal,
    });
  } catch (error) {
    dependencies.log.warn(`router: request failed: ${(error as Error).name}`);
    if (!response.headersSent) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify(wireError(wire, "upstream_error", "internal router error")));
    } else {
      response.end();
    }
  }
}
