import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { DatabaseSync } from "node:sqlite";
import { Transform } from "node:stream";
import { bearerCredential, isLoopbackHost, secretMatches } from "@notify/contracts/guards";
import { jsonShapeProblem } from "@notify/contracts/json-shape";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { RouterConfig } from "../config/config-service.js";
import type { KeySealer } from "../config/store.js";
import { CooldownBook } from "../failover.js";
import type { Wire } from "../ir.js";
import { Ledger } from "../ledger/ledger.js";
import type { RouterLog } from "../proxy/request-context.js";
import { RouterProxy } from "../proxy/router-proxy.js";
import { DEFAULT_TIMEOUTS, UpstreamClient, type UpstreamTimeouts } from "../upstreams/client.js";
import { modelList } from "./models.js";
import { type RouterErrorCode, wireError, wireOfPath } from "./wire-errors.js";

/** The router's live settings, read on every request (config.json keys RouterEnabled, RouterKey, ...). */
export interface RouterRuntimeSettings {
  enabled: boolean;
  key: string | undefined;
  maxRequestBodyBytes: number;
}

export interface RouterPluginOptions {
  /** The router's own database (router.db): configuration and ledger. */
  db: DatabaseSync;
  sealer: KeySealer;
  settings: () => RouterRuntimeSettings;
  log: RouterLog;
  version: string;
  timeouts?: UpstreamTimeouts;
  now?: () => number;
  /** Receives the router's services, for the management routes the host mounts. */
  onReady?: (router: RouterServices) => void;
}

export interface RouterServices {
  config: RouterConfig;
  ledger: Ledger;
  cooldowns: CooldownBook;
  close(): Promise<void>;
  /**
   * The router's lane on the host's HTTP server: answers a POST to one of the four model endpoints straight from
   * node:http (the same checks, errors and handling as the routes below, without the framework's per-request
   * hooks, reply object and parser) and returns true; returns false for anything else, which the host then hands
   * to fastify. Requests through `app.inject()` never reach it and take the routes.
   */
  lane(request: IncomingMessage, response: ServerResponse): boolean;
}

/** A request refused before its body is read (or because of it). */
interface Refusal {
  status: number;
  code: RouterErrorCode;
  message: string;
  /** The rest of the body is never read, so the connection cannot carry another request. */
  close?: boolean;
}

const TOO_LARGE: Refusal = {
  status: 413,
  code: "payload_too_large",
  message: "request body over RouterMaxRequestBodyBytes",
  close: true,
};
const NOT_JSON: Refusal = { status: 400, code: "invalid_request", message: "the request body is not valid JSON" };
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
function admission(headers: IncomingHttpHeaders, settings: RouterRuntimeSettings): Refusal | undefined {
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
function parseBody(text: string): unknown {
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
function refuse(response: ServerResponse, wire: Wire | "models", refusal: Refusal): void {
  // The same Content-Type as the framework's answer to the same refusal.
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  if (refusal.close) headers.connection = "close";
  response.writeHead(refusal.status, headers);
  response.end(JSON.stringify(wireError(wire, refusal.code, refusal.message)));
}

/**
 * The provider router as a fastify plugin, mounted by the broker under /router/v1. Knows nothing of
 * notifications. Order of checks: off (404 router_disabled, no provider contacted), then a browser Origin (403),
 * the loopback Host (403), the router key (401).
 */
export const routerPlugin: FastifyPluginAsync<RouterPluginOptions> = async (app, options) => {
  const config = new RouterConfig(options.db, options.sealer);
  const ledger = new Ledger(options.db);
  const cooldowns = new CooldownBook(options.now);
  const client = new UpstreamClient(options.timeouts ?? DEFAULT_TIMEOUTS);
  const proxy = new RouterProxy({
    config,
    ledger,
    client,
    cooldowns,
    log: options.log,
    version: options.version,
    ...(options.now ? { now: options.now } : {}),
  });
  app.addHook("onClose", async () => {
    ledger.flush();
    await client.close();
  });

  const fail = (reply: FastifyReply, wire: Wire | "models", refusal: Refusal) => {
    if (refusal.close) reply.header("connection", "close");
    return reply
      .code(refusal.status)
      .header("content-type", "application/json")
      .send(wireError(wire, refusal.code, refusal.message));
  };

  /** One model request, its body read and parsed: the proxy writes status, headers and bytes itself. */
  const serve = async (
    wire: Wire,
    countTokens: boolean,
    body: unknown,
    headers: IncomingHttpHeaders,
    response: ServerResponse,
  ): Promise<void> => {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      refuse(response, wire, NOT_OBJECT);
      return;
    }
    const gone = new AbortController();
    response.once("close", () => {
      if (!response.writableFinished) gone.abort();
    });
    try {
      await proxy.handle({ inboundWire: wire, countTokens, body, headers, response, clientGone: gone.signal });
    } catch (error) {
      options.log.warn(`router: request failed: ${(error as Error).name}`);
      if (!response.headersSent) {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify(wireError(wire, "upstream_error", "internal router error")));
      } else {
        response.end();
      }
    }
  };

  const endpoints = new Map<string, { wire: Wire; countTokens: boolean }>([
    [`${app.prefix}/responses`, { wire: "responses", countTokens: false }],
    [`${app.prefix}/chat/completions`, { wire: "chat", countTokens: false }],
    [`${app.prefix}/messages`, { wire: "messages", countTokens: false }],
    [`${app.prefix}/messages/count_tokens`, { wire: "messages", countTokens: true }],
  ]);
  const lane = (request: IncomingMessage, response: ServerResponse): boolean => {
    if (request.method !== "POST") return false;
    const url = request.url ?? "";
    const query = url.indexOf("?");
    const endpoint = endpoints.get(query === -1 ? url : url.slice(0, query));
    if (!endpoint) return false;
    const { wire, countTokens } = endpoint;
    const settings = options.settings();
    const refusal = admission(request.headers, settings);
    if (refusal) {
      refuse(response, wire, refusal);
      return true;
    }
    // Read whole, cut as soon as it passes the limit (a chunked body has no length to check up front).
    const limit = settings.maxRequestBodyBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
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
      void serve(wire, countTokens, body, request.headers, response);
    });
    return true;
  };
  options.onReady?.({ config, ledger, cooldowns, close: () => client.close(), lane });

  // Bodies are JSON up to RouterMaxRequestBodyBytes (the broker's 64 KiB limit does not apply here).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: 2 ** 31 - 1 }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (Buffer.byteLength(text) > options.settings().maxRequestBodyBytes) {
      done(Object.assign(new Error("payload too large"), { statusCode: 413 }), undefined);
      return;
    }
    try {
      done(null, parseBody(text));
    } catch (refusal) {
      done(Object.assign(new Error("invalid JSON"), { statusCode: 400, refusal: refusal as Refusal }), undefined);
    }
  });

  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = admission(request.headers, options.settings());
    if (refusal) return fail(reply, wireOfPath(request.url.split("?")[0] ?? ""), refusal);
    return undefined;
  });

  // A body without Content-Length (chunked) is cut as soon as it passes the limit, not read whole first.
  app.addHook("preParsing", async (request, _reply, payload) => {
    // With a Content-Length the onRequest check has already enforced the limit; only chunked bodies need counting.
    if (request.method !== "POST" || request.headers["content-length"] !== undefined) return payload;
    const limit = options.settings().maxRequestBodyBytes;
    let received = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > limit) callback(Object.assign(new Error("payload too large"), { statusCode: 413 }));
        else callback(null, chunk);
      },
    });
    payload.on("error", (error) => counted.destroy(error));
    return payload.pipe(counted);
  });

  app.setErrorHandler((error: Error & { statusCode?: number; refusal?: Refusal }, request, reply) => {
    const wire = wireOfPath(request.url.split("?")[0] ?? "");
    if (error.statusCode === 413) return fail(reply, wire, TOO_LARGE);
    if (error.statusCode === 400) return fail(reply, wire, error.refusal ?? NOT_JSON);
    options.log.warn(`router: ${request.method} ${request.routeOptions.url ?? "?"} failed: ${error.name}`);
    return fail(reply, wire, { status: 500, code: "upstream_error", message: "internal router error" });
  });
  app.setNotFoundHandler((request, reply) =>
    fail(reply, wireOfPath(request.url), { status: 404, code: "not_supported", message: "no such router endpoint" }),
  );

  const proxied =
    (wire: Wire, countTokens = false) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      reply.hijack();
      await serve(wire, countTokens, request.body, request.headers, reply.raw);
    };

  app.post("/responses", proxied("responses"));
  app.post("/chat/completions", proxied("chat"));
  app.post("/messages", proxied("messages"));
  app.post("/messages/count_tokens", proxied("messages", true));
  app.get("/models", async () => modelList(config.snapshot()));
};
