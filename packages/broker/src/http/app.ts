import type { DatabaseSync } from "node:sqlite";
import { jsonShapeProblem } from "@notify/contracts/json-shape";
import type { KeySealer, RouterServices, SubscriptionOptions, UpstreamTimeouts } from "@notify/router";
import Fastify, { type FastifyInstance } from "fastify";
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
import { answerClientError, BodyShapeError, errorHandler, sendEmpty413 } from "./errors.js";
import { frameworkErrors, lazyCompilers } from "./fastify-options.js";
import { ROUTER_PREFIX, routerApp, routerMount } from "./plugins/router.js";
import { uiApi } from "./plugins/ui-api.js";
import { uiPages } from "./plugins/ui-pages.js";
import { v1Api } from "./plugins/v1.js";
import { FixedWindowLimiter } from "./rate-limit.js";
import { livenessRoute } from "./routes/health.js";
import { SOUND_UPLOAD_PREFIX } from "./routes/ui-sounds.js";
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

/**
 * node:http taken with getBuiltinModule rather than `import`: an ESM import of node:http fills in every export of
 * its facade, and the lazy WebSocket, CloseEvent and MessageEvent among them load Node's bundled undici (about
 * 35 ms of CPU at start, for classes the broker never uses).
 */
const { createServer } = process.getBuiltinModule("node:http");

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
    const inner = await routerApp(routerPlugin, services);
    unsubscribe.push(services.config.onChange(rewriteAgents));
    options.router.onReady?.(services);
    return { services, app: inner };
  });
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

  app.register(v1Api, {
    prefix: "/v1",
    authToken: options.authToken,
    limiter: new FixedWindowLimiter(options.rateLimitPerSecond, () => clock.now()),
    notifications: options.notifications,
    interactions: options.interactions,
    waiters: options.waiters,
    events: options.events,
    clock,
    startedAt,
  });
  app.register(routerMount, {
    prefix: ROUTER_PREFIX,
    host: routerHost,
    enabled: () => options.router.settings.get().enabled,
    warn: (message) => options.logger.warn(message),
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

  const uiEvents = new UiEventLog(options.ui.bus);
  app.addHook("onClose", (_instance, done) => {
    uiEvents.close();
    done();
  });
  app.register(uiPages, { files: new UiFiles(options.ui.dir), sessions: options.ui.sessions });
  app.register(uiApi, {
    prefix: "/ui/api",
    authToken: options.authToken,
    sessions: options.ui.sessions,
    notifications: options.notifications,
    interactions: options.interactions,
    events: uiEvents,
    outbound: options.outbound,
    ...(options.chatConnection ? { chatConnection: options.chatConnection } : {}),
    dispatcher: options.dispatcher,
    outbox: options.outbox,
    router: routerHost,
    routerSettings: options.router.settings,
    otherTools: options.router.otherTools,
    connectors,
    presentation: options.ui.presentation,
    sounds: options.ui.sounds,
    ...(options.ui.presence ? { presence: options.ui.presence } : {}),
    relay: new RelayAdmin(options.outbound),
    dataDir: options.dataDir,
    types: new TypeRegistry(options.notificationTypes),
  });
  return app;
}
