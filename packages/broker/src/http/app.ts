import { jsonShapeProblem } from "@notify/contracts/json-shape";
import { openFilesLimit } from "@notify/contracts/open-files";
import Fastify, { type FastifyInstance } from "fastify";
import type { WaitRegistry } from "../interactions/waiters.js";
import type { Logger } from "../log/logger.js";
import { answerClientError, BodyShapeError, errorHandler, sendEmpty413, sendError } from "./errors.js";
import { frameworkErrors, lazyCompilers } from "./fastify-options.js";
import { ROUTER_PREFIX, type RouterMountOptions, routerMount } from "./plugins/router.js";
import { type UiApiOptions, uiApi } from "./plugins/ui-api.js";
import { uiPages } from "./plugins/ui-pages.js";
import { type V1Options, v1Api } from "./plugins/v1.js";
import { CONTEXTS_PATH } from "./routes/contexts.js";
import { livenessRoute } from "./routes/health.js";
import type { UiPageOptions } from "./routes/ui-pages.js";
import { SOUND_UPLOAD_PREFIX } from "./routes/ui-sounds.js";

/** What the app is built from; broker.ts builds every object in it. */
export interface AppOptions {
  maxRequestBodyBytes: number;
  logger: Logger;
  /** Open long-polls, answered with their current state when the app closes. */
  waiters: WaitRegistry;
  /** The open group commit, when there is one: no response leaves before its write is committed. */
  commitBarrier?: () => Promise<void> | undefined;
  /** Connection limits; HTTP_LIMITS unless a test sets short ones. */
  limits?: Partial<HttpLimits>;
  /** One entry per prefix, each a plugin under http/plugins/ with its own guard. */
  v1: V1Options;
  uiPages: UiPageOptions;
  uiApi: UiApiOptions;
  router: RouterMountOptions;
}

/**
 * What one client can hold (docs/config.md, "Connection limits"): a request's headers must arrive within
 * `headersTimeoutMs` and its whole body within `requestTimeoutMs` (a client trickling a byte every few seconds is
 * cut off with 408, authenticated or not); at most `maxConnections` sockets at once, the rest closed on accept.
 * Responses are not timed: a long-poll or a model stream may last as long as it needs.
 */
export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
}

/** Connections the broker holds at most, and what it leaves of the open-files limit to everything else. */
const MAX_CONNECTIONS = 16_384;
const FD_RESERVE = 2048;

/**
 * The connection cap on this machine: 16,384, or the soft open-files limit less 2,048 when that is lower (SQLite,
 * the router's upstream sockets, the relay poll, dbus, log files), never under 64. Node raises its soft limit to
 * the hard one at start, so this reads what the process really has (Linux: /proc/self/limits; elsewhere 16,384).
 * 10,000 held long-polls fit wherever the hard limit is 12,048 or more (bench/broker).
 */
export function connectionCap(openFiles: number | undefined = openFilesLimit()): number {
  if (openFiles === undefined) return MAX_CONNECTIONS;
  return Math.min(MAX_CONNECTIONS, Math.max(64, openFiles - FD_RESERVE));
}

export const HTTP_LIMITS: Omit<HttpLimits, "maxConnections"> = { headersTimeoutMs: 15_000, requestTimeoutMs: 30_000 };

/**
 * node:http taken with getBuiltinModule rather than `import`: an ESM import of node:http fills in every export of
 * its facade, and the lazy WebSocket, CloseEvent and MessageEvent among them load Node's bundled undici (about
 * 35 ms of CPU at start, for classes the broker never uses).
 */
const { createServer } = process.getBuiltinModule("node:http");

/**
 * Builds the broker's HTTP app without listening, so tests use `app.inject()`: the server, the body parser, the
 * error handler, the hooks every request passes (body limit, shutdown, commit barrier), and one plugin per prefix.
 */
export function buildApp(options: AppOptions): FastifyInstance {
  const routerHost = options.router.host;
  let closing = false;
  const limits: HttpLimits = { ...HTTP_LIMITS, maxConnections: connectionCap(), ...options.limits };
  const app = Fastify({
    // The provider router's model endpoints are answered on their own lane (RouterServices.lane) before fastify
    // sees them: a proxied request then costs no framework hooks. While closing, fastify answers everything.
    serverFactory: (handler, serverOptions) => {
      const server = createServer(
        {
          headersTimeout: limits.headersTimeoutMs,
          requestTimeout: limits.requestTimeoutMs,
          // How often Node looks for requests past those limits (its default of 30 s would double them).
          connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs, limits.requestTimeoutMs),
        },
        (request, response) => {
          if (!closing && routerHost.mounted?.services.lane(request, response)) return;
          handler(request, response);
        },
      );
      // Node answers `Expect: 100-continue` with a 100 by itself, inviting a body the onRequest hook below refuses:
      // an oversize Content-Length gets its 413 without the 100 (router and sound routes keep their own limits).
      server.on("checkContinue", (request, response) => {
        const url = request.url ?? "";
        const own = url.startsWith("/router/") || url.startsWith(SOUND_UPLOAD_PREFIX);
        if (own || !(Number(request.headers["content-length"]) > options.maxRequestBodyBytes)) {
          response.writeContinue();
        }
        server.emit("request", request, response);
      });
      // What fastify sets on a server it creates itself (its defaults are filled in by now).
      const timeouts = serverOptions as { keepAliveTimeout?: number; connectionTimeout?: number };
      server.keepAliveTimeout = timeouts.keepAliveTimeout ?? 72_000;
      server.maxConnections = limits.maxConnections;
      server.setTimeout(timeouts.connectionTimeout ?? 0);
      return server;
    },
    // Requests Node's parser rejects (malformed, headers too large, too slow) get the documented error shape too
    // (docs/api.md, "Errors").
    clientErrorHandler: answerClientError,
    // So do URLs the framework cannot route.
    frameworkErrors,
    logger: false,
    bodyLimit: options.maxRequestBodyBytes,
    forceCloseConnections: "idle",
    // While closing, new requests get the documented error shape (below) rather than fastify's own 503 body.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: { compilersFactory: lazyCompilers as never },
  });

  // Every body is JSON whatever its Content-Type says (curl -d sends form encoding); an empty body is "no body".
  // Prototype-poisoning keys are refused by fastify's own secure parser.
  app.removeAllContentTypeParsers();
  const jsonParser = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("*", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    jsonParser(request, text, (error, parsed) => {
      if (error) {
        done(error, undefined);
        return;
      }
      // Deep nesting and lone surrogates are refused here, once, before any route's recursive code sees them.
      const problem = jsonShapeProblem(parsed);
      if (problem) {
        done(new BodyShapeError(problem), undefined);
        return;
      }
      done(null, parsed);
    });
  });

  app.setErrorHandler(errorHandler(options.logger));
  app.setNotFoundHandler((_request, reply) => {
    sendError(reply, "not_found");
  });

  // The body limit is enforced from Content-Length before routing and auth (docs/api.md, "Body limit": 413, no body),
  // for every path, known or not, so before the plugins' guards. Chunked bodies without a length are cut by fastify's
  // bodyLimit while being read, with the same 413.
  app.addHook("onRequest", async (request, reply) => {
    const length = request.headers["content-length"];
    // Router routes have their own limit (RouterMaxRequestBodyBytes, docs/router.md, "Limits").
    if (request.url.startsWith("/router/")) return undefined;
    // Sound files have theirs (docs/desktop.md, "Local presentation rules", rule 6: at most 10 MB), checked by the
    // sounds route.
    if (request.url.startsWith(SOUND_UPLOAD_PREFIX)) return undefined;
    // So do questions' contexts (docs/api.md, "Item context": up to 256 KiB), checked by the contexts route.
    if (request.url.split("?")[0] === CONTEXTS_PATH) return undefined;
    if (length !== undefined && Number(length) > options.maxRequestBodyBytes) return sendEmpty413(reply);
    return undefined;
  });

  // Shutdown (spec-less but DESIGN: "answer open long-polls with their current state"): before the server stops
  // listening, every waiter is answered, and every response from then on closes its connection, so no keep-alive
  // socket holds the process open after close.
  app.addHook("preClose", (done) => {
    closing = true;
    options.waiters.releaseAll();
    done();
  });
  app.addHook("onRequest", async (_request, reply) => {
    if (closing) return sendError(reply.header("connection", "close"), "shutting_down");
    return undefined;
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    if (closing) reply.header("connection", "close");
    // Store rule: a 201/200 is sent only after its write is committed (group commit ends the turn's batch).
    const barrier = options.commitBarrier?.();
    if (barrier) await barrier;
    return payload;
  });

  // One plugin per prefix, each with its guard as its own onRequest hook (after the two above, before the body is
  // read): a route added inside a plugin is guarded without being named here. /health has no guard
  // (docs/api.md, "GET /health").
  app.register(livenessRoute);
  app.register(v1Api, { ...options.v1, prefix: "/v1" });
  app.register(routerMount, { ...options.router, prefix: ROUTER_PREFIX });
  app.register(uiPages, options.uiPages);
  app.register(uiApi, { ...options.uiApi, prefix: "/ui/api" });
  return app;
}
