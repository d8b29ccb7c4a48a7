import type { DatabaseSync } from "node:sqlite";
import { Transform } from "node:stream";
import { bearerCredential, isLoopbackHost, secretMatches } from "@notify/contracts/guards";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { RouterConfig } from "../config/config-service.js";
import type { KeySealer } from "../config/store.js";
import { CooldownBook } from "../failover.js";
import type { Wire } from "../ir.js";
import { Ledger } from "../ledger/ledger.js";
import { type RouterLog, RouterProxy } from "../proxy.js";
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
  options.onReady?.({ config, ledger, cooldowns, close: () => client.close() });
  app.addHook("onClose", async () => {
    ledger.flush();
    await client.close();
  });

  const fail = (reply: FastifyReply, wire: Wire | "models", status: number, code: RouterErrorCode, message: string) =>
    reply
      .code(status)
      .header("content-type", "application/json")
      .send(wireError(wire, code, message));

  // The rest of an oversized body is never read, so the connection cannot carry another request.
  const tooLarge = (reply: FastifyReply, wire: Wire | "models") =>
    fail(
      reply.header("connection", "close"),
      wire,
      413,
      "payload_too_large",
      "request body over RouterMaxRequestBodyBytes",
    );

  // Bodies are JSON up to RouterMaxRequestBodyBytes (the broker's 64 KiB limit does not apply here).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: 2 ** 31 - 1 }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (Buffer.byteLength(text) > options.settings().maxRequestBodyBytes) {
      done(Object.assign(new Error("payload too large"), { statusCode: 413 }), undefined);
      return;
    }
    try {
      done(null, text.trim() === "" ? undefined : JSON.parse(text));
    } catch {
      done(Object.assign(new Error("invalid JSON"), { statusCode: 400 }), undefined);
    }
    void request;
  });

  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const wire = wireOfPath(request.url.split("?")[0] ?? "");
    const settings = options.settings();
    if (!settings.enabled) return fail(reply, wire, 404, "router_disabled", "the provider router is off");
    if (request.headers.origin !== undefined) {
      return fail(reply, wire, 403, "forbidden", "browser requests (Origin header) are refused");
    }
    if (!isLoopbackHost(request.headers.host)) return fail(reply, wire, 403, "host_not_loopback", "non-loopback Host");
    const length = Number(request.headers["content-length"] ?? 0);
    if (length > settings.maxRequestBodyBytes) return tooLarge(reply, wire);
    // The key may come in any of the three places; when it comes in x-notify-router-key, the client's own
    // Authorization or x-api-key is its vendor credential and does not have to match.
    const header = request.headers["x-notify-router-key"];
    const apiKey = request.headers["x-api-key"];
    const supplied = [
      typeof header === "string" ? header : undefined,
      bearerCredential(request.headers.authorization),
      typeof apiKey === "string" ? apiKey : undefined,
    ];
    const expected = settings.key;
    if (expected === undefined || !supplied.some((candidate) => secretMatches(candidate, expected, true))) {
      return fail(reply, wire, 401, "unauthorized", "missing or wrong router key");
    }
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

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const wire = wireOfPath(request.url.split("?")[0] ?? "");
    if (error.statusCode === 413) return tooLarge(reply, wire);
    if (error.statusCode === 400)
      return fail(reply, wire, 400, "invalid_request", "the request body is not valid JSON");
    options.log.warn(`router: ${request.method} ${request.routeOptions.url ?? "?"} failed: ${error.name}`);
    return fail(reply, wire, 500, "upstream_error", "internal router error");
  });
  app.setNotFoundHandler((request, reply) =>
    fail(reply, wireOfPath(request.url), 404, "not_supported", "no such router endpoint"),
  );

  const proxied =
    (wire: Wire, countTokens = false) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const body = request.body;
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        fail(reply, wire, 400, "invalid_request", "the request body must be a JSON object");
        return;
      }
      reply.hijack();
      const gone = new AbortController();
      const response = reply.raw;
      response.once("close", () => {
        if (!response.writableFinished) gone.abort();
      });
      try {
        await proxy.handle({
          inboundWire: wire,
          countTokens,
          body,
          headers: request.headers,
          response,
          clientGone: gone.signal,
        });
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

  app.post("/responses", proxied("responses"));
  app.post("/chat/completions", proxied("chat"));
  app.post("/messages", proxied("messages"));
  app.post("/messages/count_tokens", proxied("messages", true));
  app.get("/models", async () => modelList(config.snapshot()));
};
