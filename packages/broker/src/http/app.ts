import { createRequire } from "node:module";
import type { DatabaseSync } from "node:sqlite";
import { isLoopbackHost } from "@notify/contracts/guards";
import { jsonShapeProblem } from "@notify/contracts/json-shape";
import type { KeySealer, RouterServices, SubscriptionOptions, UpstreamTimeouts } from "@notify/router";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { PresentationSettingsFile } from "../config/presentation-settings.js";
import { ConnectorService } from "../connectors/connector-service.js";
import type { DomainBus } from "../domain/bus.js";
import type { Clock } from "../domain/clock.js";
import { systemClock } from "../domain/clock.js";
import type { ArcConsumer } from "../events/arc-consumer.js";
import type { InteractionService } from "../interactions/service.js";
import type { WaitRegistry } from "../interactions/waiters.js";
import type { Logger } from "../log/logger.js";
import type { NotificationService } from "../notifications/service.js";
import type { TypeDefinition } from "../notifications/type-ids.js";
import { TypeRegistry } from "../notifications/type-ids.js";
import type { Dispatcher } from "../outbox/dispatcher.js";
import type { OutboundService } from "../outbox/outbound-service.js";
import type { PresenceMonitor } from "../presence/presence-monitor.js";
import type { SoundLibrary } from "../presentation/sounds/sound-library.js";
import { RelayAdmin } from "../relay/relay-admin.js";
import { LazyRouter, loadRouterModule } from "../router/lazy-router.js";
import type { OtherTools } from "../router/other-tools.js";
import type { RouterSettingsFile } from "../router/router-settings.js";
import type { OutboxStore } from "../store/outbox-store.js";
import { VERSION } from "../version.js";
import { bearerMatches } from "./auth.js";
import { answerClientError, BodyShapeError, errorHandler, sendEmpty413 } from "./errors.js";
import { FixedWindowLimiter, isRateLimited } from "./rate-limit.js";
import { eventRoutes } from "./routes/events.js";
import { healthRoute, livenessRoute } from "./routes/health.js";
import { interactionRoutes } from "./routes/interactions.js";
import { notificationRoutes } from "./routes/notifications.js";
import { uiInboxRoutes, uiInteraction } from "./routes/ui-inbox.js";
import { uiOutboundRoutes } from "./routes/ui-outbound.js";
import { uiPageRoutes } from "./routes/ui-pages.js";
import { uiPresenceRoutes } from "./routes/ui-presence.js";
import { uiPresentationRoutes } from "./routes/ui-presentation.js";
import { uiRelayRoutes } from "./routes/ui-relay.js";
import { uiRouterRoutes } from "./routes/ui-router.js";
import { uiRouterAccountsRoutes } from "./routes/ui-router-accounts.js";
import { uiRouterAgentRoutes } from "./routes/ui-router-agents.js";
import { uiRouterPresetRoutes } from "./routes/ui-router-presets.js";
import { uiSessionRoutes } from "./routes/ui-session.js";
import { SOUND_UPLOAD_PREFIX, uiSoundRoutes } from "./routes/ui-sounds.js";
import { uiStreamRoutes } from "./routes/ui-stream.js";
import { uiTimelineRoutes } from "./routes/ui-timeline.js";
import { uiTypeRoutes } from "./routes/ui-types.js";
import { cliCommand } from "./ui/status-page.js";
import { UiEventLog } from "./ui/ui-event-log.js";
import type { UiSessions } from "./ui/ui-sessions.js";
import { UiFiles } from "./ui/ui-static.js";

export interface AppOptions {
  authToken: string;
  maxRequestBodyBytes: number;
  rateLimitPerSecond: number;
  notifications: NotificationService;
  interactions: InteractionService;
  events: ArcConsumer;
  waiters: WaitRegistry;
  outbound: OutboundService;
  /** The state of chat answer loops by provider id, shown with the providers (issue 25). */
  chatConnection?: (providerId: string) => unknown;
  dispatcher: Dispatcher;
  outbox: OutboxStore;
  logger: Logger;
  /** Where config.json lives (the type definitions are written there). */
  dataDir: string;
  notificationTypes: TypeDefinition[];
  /** The open group commit, when there is one: no response leaves before its write is committed. */
  commitBarrier?: () => Promise<void> | undefined;
  /** The provider router: its own database, the config.json keys, and the key sealer. */
  router: {
    db: DatabaseSync;
    settings: RouterSettingsFile;
    sealer: KeySealer;
    /** Upstream timeouts; the spec's defaults unless a test sets short ones. */
    timeouts?: UpstreamTimeouts;
    /** Where sign-in files are found (CODEX_HOME, HOME) and, in tests only, the auth server's token endpoint. */
    subscriptions?: SubscriptionOptions;
    /** Test hook: the flat-plan hosts. */
    flatPlanHosts?: ReadonlySet<string>;
    /** Called when the router is built: at its first use, not at start (it is loaded only when needed). */
    onReady?: (services: RouterServices) => void;
    /** Where other tools (Codex, Claude Code) keep their keys and model cache; read only when asked. */
    otherTools: OtherTools;
    /** Where the agent connectors find Codex and Claude Code (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR). */
    agentEnv: NodeJS.ProcessEnv;
  };
  /** The web page: its live stream reads the bus; sessions gate /ui/api; presentation keys live in config.json. */
  ui: {
    bus: DomainBus;
    sessions: UiSessions;
    presentation: PresentationSettingsFile;
    sounds: SoundLibrary;
    /** Whether the person is at this computer (GET /ui/api/presence); absent in apps built without one. */
    presence?: PresenceMonitor;
    /** The built page's directory (tests point it elsewhere); packages/web/dist by default. */
    dir?: string;
    timelines?: import("../routing/timeline.js").ItemTimelines;
  };
  clock?: Clock;
  /** Process start, for `uptimeSeconds`. */
  startedAt?: number;
  /** Connection limits; HTTP_LIMITS unless a test sets short ones. */
  limits?: Partial<HttpLimits>;
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

export const HTTP_LIMITS: HttpLimits = { headersTimeoutMs: 15_000, requestTimeoutMs: 30_000, maxConnections: 4096 };

const ROUTER_PREFIX = "/router/v1";

/**
 * node:http taken with getBuiltinModule rather than `import`: an ESM import of node:http fills in every export of
 * its facade, and the lazy WebSocket, CloseEvent and MessageEvent among them load Node's bundled undici (about
 * 35 ms of CPU at start, for classes the broker never uses).
 */
const { createServer } = process.getBuiltinModule("node:http");

/**
 * Fastify builds its JSON-schema compilers (ajv with its formats, fast-json-stringify's, about 100 modules) when it
 * starts, though no route of the broker declares a schema (bodies are checked with zod): these factories load them
 * the first time a schema is compiled, which today is never.
 */
const requireFromFastify = createRequire(createRequire(import.meta.url).resolve("fastify"));
type CompilerFactory = (...args: unknown[]) => unknown;
const lazyCompilers = {
  buildValidator: (...args: unknown[]) =>
    (requireFromFastify("@fastify/ajv-compiler") as () => CompilerFactory)()(...args),
  buildSerializer: (...args: unknown[]) =>
    (requireFromFastify("@fastify/fast-json-stringify-compiler") as () => CompilerFactory)()(...args),
};

/** Answers for requests the framework cannot route (a percent-encoding that is not UTF-8, an over-long parameter). */
function frameworkErrors(error: { code: string }, _request: unknown, reply: unknown): void {
  const message = error.code === "FST_ERR_BAD_URL" ? "bad URL" : "bad request";
  (reply as FastifyReply).code(400).send({ error: `invalid request: ${message}` });
}

/** Builds the broker's HTTP app without listening, so tests use `app.inject()`. */
export function buildApp(options: AppOptions): FastifyInstance {
  const clock = options.clock ?? systemClock;
  const startedAt = options.startedAt ?? clock.now();
  let closing = false;
  // The provider router is loaded and built on first use (switched on, a request to /router/v1 or /ui/api/router),
  // never at start: its own fastify instance answers /router/v1 behind the shim below, and the lane and the
  // management routes use the same services.
  const routerHost = new LazyRouter(async () => {
    const { createRouter, routerPlugin } = await loadRouterModule();
    const services = createRouter({
      prefix: ROUTER_PREFIX,
      db: options.router.db,
      sealer: options.router.sealer,
      version: VERSION,
      settings: () => options.router.settings.get(),
      log: { info: (message) => options.logger.info(message), warn: (message) => options.logger.warn(message) },
      now: () => clock.now(),
      ...(options.router.timeouts ? { timeouts: options.router.timeouts } : {}),
      ...(options.router.subscriptions ? { subscriptions: options.router.subscriptions } : {}),
      ...(options.router.flatPlanHosts ? { flatPlanHosts: options.router.flatPlanHosts } : {}),
    });
    const inner = Fastify({
      frameworkErrors,
      logger: false,
      return503OnClosing: false,
      routerOptions: { ignoreTrailingSlash: true },
      schemaController: { compilersFactory: lazyCompilers as never },
    });
    inner.setNotFoundHandler((_request, reply) => {
      reply.code(404).send({ error: "not found" });
    });
    inner.register(routerPlugin, { prefix: ROUTER_PREFIX, router: services });
    try {
      await inner.ready();
    } catch (error) {
      await services.close();
      throw error;
    }
    unsubscribe.push(services.config.onChange(rewriteAgents));
    options.router.onReady?.(services);
    return { services, app: inner };
  });
  const router = (): RouterServices => routerHost.services();
  const limits: HttpLimits = { ...HTTP_LIMITS, ...options.limits };
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
    // Requests Node's parser rejects (malformed, headers too large, too slow) get the spec's error shape too.
    clientErrorHandler: answerClientError,
    // So do URLs the framework cannot route.
    frameworkErrors,
    logger: false,
    bodyLimit: options.maxRequestBodyBytes,
    forceCloseConnections: "idle",
    // While closing, new requests get the spec's error shape (below) rather than fastify's own 503 body.
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
    reply.code(404).send({ error: "not found" });
  });

  // The body limit is enforced from Content-Length before routing and auth (spec 1: 413, no body). Chunked
  // bodies without a length are cut by fastify's bodyLimit while being read, with the same 413.
  app.addHook("onRequest", async (request, reply) => {
    const length = request.headers["content-length"];
    // Router routes have their own limit (RouterMaxRequestBodyBytes, spec 3 Limits).
    if (request.url.startsWith("/router/")) return undefined;
    // Sound files have theirs (spec 1, presentation rule 6: at most 10 MB), checked by the sounds route.
    if (request.url.startsWith(SOUND_UPLOAD_PREFIX)) return undefined;
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
    if (closing) return reply.code(503).header("connection", "close").send({ error: "broker is shutting down" });
    return undefined;
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    if (closing) reply.header("connection", "close");
    // Store rule: a 201/200 is sent only after its write is committed (group commit ends the turn's batch).
    const barrier = options.commitBarrier?.();
    if (barrier) await barrier;
    return payload;
  });

  app.register(livenessRoute);

  const limiter = new FixedWindowLimiter(options.rateLimitPerSecond, () => clock.now());
  app.register(
    async (v1) => {
      v1.addHook("onRequest", async (request, reply) => {
        if (!bearerMatches(request.headers.authorization, options.authToken)) {
          return reply.code(401).send({ error: "unauthorized" });
        }
        const route = request.routeOptions.url ?? request.url.split("?")[0] ?? "";
        // One counter per token: the token itself is never kept, only that it was the valid one.
        if (isRateLimited(request.method, route) && !limiter.take("token")) {
          return reply.code(429).header("retry-after", "1").send({ error: "rate limit exceeded" });
        }
        return undefined;
      });
      v1.setNotFoundHandler((_request, reply) => {
        reply.code(404).send({ error: "not found" });
      });
      await v1.register(healthRoute, {
        notifications: options.notifications,
        clock,
        startedAt,
      });
      await v1.register(notificationRoutes, { notifications: options.notifications });
      await v1.register(interactionRoutes, { interactions: options.interactions, waiters: options.waiters });
      await v1.register(eventRoutes, { events: options.events });
    },
    { prefix: "/v1" },
  );
  // /router/v1: everything the router's plugin would match (its routes and its 404, every method) is handed, before
  // its body is read, to the router's own fastify instance, built here on the first such request. The model
  // endpoints of a built router are answered on the lane above and never come here.
  app.register(
    async (scope) => {
      scope.addHook("onRequest", async (request, reply) => {
        const mounted = await routerHost.mount();
        reply.hijack();
        mounted.app.routing(request.raw, reply.raw);
        return reply;
      });
      const handedOn = async (): Promise<void> => {};
      scope.all("/", handedOn);
      scope.all("/*", handedOn);
      scope.setNotFoundHandler(handedOn);
    },
    { prefix: ROUTER_PREFIX },
  );
  // Switched on at start: built once the broker listens, so /health does not wait for it.
  app.addHook("onListen", (done) => {
    if (options.router.settings.get().enabled) {
      routerHost.mount().catch((error: Error) => options.logger.warn(`router: cannot start: ${error.message}`));
    }
    done();
  });
  app.addHook("onClose", async () => {
    await routerHost.close();
  });
  const connectors = new ConnectorService({
    dataDir: options.dataDir,
    snapshot: () => routerHost.services().config.snapshot(),
    router: () => options.router.settings.get(),
    brokerUrl: () => {
      const address = app.server.address();
      return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 47821}`;
    },
    // The same reading of config.json's RouterAgentAccounts that rule 7 uses (broker.ts).
    configuredAccounts: () => options.router.subscriptions?.agentAccounts?.() ?? [],
    where: { env: options.router.agentEnv },
    warn: (message) => options.logger.warn(message),
  });
  // Spec 3, Agent connectors 4: a change of upstreams, routes or the key rewrites every connected agent.
  const rewriteAgents = (): void => {
    try {
      connectors.rewrite();
    } catch (error) {
      options.logger.warn(`router connectors: rewrite failed: ${(error as Error).message}`);
    }
  };
  // Settings change only through /ui/api/router, which builds the router first; switching it on builds it anyway.
  const unsubscribe = [
    options.router.settings.onChange((keys) => {
      if (routerHost.mounted) rewriteAgents();
      else if (keys.enabled) routerHost.mount().then(rewriteAgents, () => undefined);
    }),
  ];
  app.addHook("onClose", (_instance, done) => {
    for (const stop of unsubscribe) stop();
    done();
  });

  const uiEvents = new UiEventLog(options.ui.bus, undefined, (item) => uiInteraction(options.interactions, item));
  app.addHook("onClose", (_instance, done) => {
    uiEvents.close();
    done();
  });
  app.register(uiPageRoutes, { files: new UiFiles(options.ui.dir), sessions: options.ui.sessions });
  // /ui/api: a loopback Host always, and `X-Notify-UI: 1` on every change (spec 1, Web interface routes); the page
  // needs no bearer token but a session (below). The custom header cannot be sent cross-origin without a CORS
  // preflight, which is never granted.
  app.register(
    async (ui) => {
      ui.addHook("onRequest", async (request, reply) => {
        if (!isLoopbackHost(request.headers.host)) return reply.code(403).send({ error: "non-loopback host" });
        // A CLI presents the bearer token here as on /v1: a wrong one is refused rather than ignored.
        const authorization = request.headers.authorization;
        if (authorization !== undefined && !bearerMatches(authorization, options.authToken)) {
          return reply.code(401).send({ error: "unauthorized" });
        }
        if (request.method !== "GET" && request.method !== "HEAD" && request.headers["x-notify-ui"] !== "1") {
          return reply.code(403).send({ error: "missing X-Notify-UI: 1" });
        }
        // Beyond the spec: the page's session cookie or the CLI's bearer token (docs/security.md).
        if (!options.ui.sessions.admit(request.headers)) {
          // The page's sign-in screen names the command as this user runs it, as the refused-link page does; in a
          // header, so the 401 body stays the one every /ui/api route gives.
          if (request.url.split("?")[0] === "/ui/api/session") {
            reply.header("x-notify-open-command", `${cliCommand().command} open`);
          }
          return reply.code(401).send({ error: "unauthorized" });
        }
        return undefined;
      });
      ui.setNotFoundHandler((_request, reply) => {
        reply.code(404).send({ error: "not found" });
      });
      await ui.register(uiOutboundRoutes, {
        outbound: options.outbound,
        ...(options.chatConnection ? { chatConnection: options.chatConnection } : {}),
        dispatcher: options.dispatcher,
        outbox: options.outbox,
      });
      const { otherTools } = options.router;
      // The router's management routes build the router (and load its package) on their first request, after the
      // checks above: a refused request loads nothing.
      await ui.register(async (routerUi) => {
        routerUi.addHook("preHandler", async () => {
          await routerHost.mount();
        });
        await routerUi.register(uiRouterRoutes, {
          router,
          settings: options.router.settings,
          prepareUpstream: async (input, existing) =>
            (await import("../router/upstream-input.js")).prepareUpstreamInput(input, existing, otherTools),
        });
        await routerUi.register(uiRouterPresetRoutes, { router, tools: otherTools });
        await routerUi.register(uiRouterAccountsRoutes, { router });
        await routerUi.register(uiRouterAgentRoutes, { connectors });
      });
      await ui.register(uiSessionRoutes, { sessions: options.ui.sessions });
      await ui.register(uiInboxRoutes, {
        notifications: options.notifications,
        interactions: options.interactions,
        events: uiEvents,
      });
      await ui.register(uiStreamRoutes, { events: uiEvents });
      if (options.ui.timelines) await ui.register(uiTimelineRoutes, { timelines: options.ui.timelines });
      await ui.register(uiPresentationRoutes, { presentation: options.ui.presentation });
      await ui.register(uiSoundRoutes, { sounds: options.ui.sounds });
      if (options.ui.presence) await ui.register(uiPresenceRoutes, { presence: options.ui.presence });
      await ui.register(uiRelayRoutes, { admin: new RelayAdmin(options.outbound) });
      await ui.register(uiTypeRoutes, {
        dataDir: options.dataDir,
        notifications: options.notifications,
        initial: new TypeRegistry(options.notificationTypes),
      });
    },
    { prefix: "/ui/api" },
  );
  return app;
}
