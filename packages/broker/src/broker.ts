import { join } from "node:path";
import type { DatabaseSync, DatabaseSync as RouterDatabase } from "node:sqlite";
import type { UpstreamTimeouts } from "@notify/router";
import { AGENT_ACCOUNTS_KEY, parseAgentAccounts } from "@notify/router/host";
import type { FastifyInstance } from "fastify";
import { type AttentionOptions, AttentionRouter } from "./attention/attention-router.js";
import { PresenceMonitor } from "./attention/presence-monitor.js";
import { ItemTimelines } from "./attention/timeline.js";
import { ConfigError, readConfigFile } from "./config/config-file.js";
import { DEFAULT_FOLLOW_UP } from "./config/follow-up.js";
import { resolveDataDir } from "./config/paths.js";
import { PresentationSettingsFile } from "./config/presentation-settings.js";
import { DEFAULT_RECEIPTS } from "./config/receipts.js";
import { type BrokerSettings, loadSettings } from "./config/settings.js";
import { DomainBus } from "./domain/bus.js";
import { type Clock, systemClock } from "./domain/clock.js";
import { ArcConsumer } from "./events/arc-consumer.js";
import { HookRuns } from "./hooks/hook-runs.js";
import { buildApp, type HttpLimits } from "./http/app.js";
import { FixedWindowLimiter } from "./http/rate-limit.js";
import { uiInteraction } from "./http/routes/ui-inbox.js";
import { removeLoginPage } from "./http/ui/login-page-file.js";
import { UiEventLog } from "./http/ui/ui-event-log.js";
import { UiSessions } from "./http/ui/ui-sessions.js";
import { UiFiles } from "./http/ui/ui-static.js";
import { formAnswerCheck } from "./interactions/form-answers.js";
import { closeConditions, nativeNotificationFor } from "./interactions/native-notification.js";
import { InteractionService } from "./interactions/service.js";
import type { InteractionDto } from "./interactions/types.js";
import { WaitRegistry } from "./interactions/waiters.js";
import { createFileLogger, type Logger } from "./log/logger.js";
import type { OtherTools } from "./model-router/other-tools.js";
import { RouterSettingsFile } from "./model-router/router-settings.js";
import { routerWiring } from "./model-router/wiring.js";
import { NotificationService } from "./notifications/service.js";
import { TypeRegistry } from "./notifications/type-ids.js";
import type { NotificationDto } from "./notifications/types.js";
import { Dispatcher, type DispatcherOptions } from "./outbox/dispatcher.js";
import { InteractionOutbox, routableOf } from "./outbox/interaction-outbox.js";
import { OutboundService } from "./outbox/outbound-service.js";
import { ADAPTERS } from "./outbox/providers/registry.js";
import { type DesktopOptions, startDesktop } from "./presentation/desktop.js";
import type { Presenter } from "./presentation/presenter.js";
import { SoundLibrary } from "./presentation/sounds/sound-library.js";
import { itemIdOfToastKey } from "./presentation/toast.js";
import { RelayAdmin } from "./relay/relay-admin.js";
import { UnfetchedRouteCheck } from "./relay/unfetched.js";
import { SecretSealer } from "./secrets/sealer.js";
import { SessionsRelayPublisher } from "./sessions/relay-publisher.js";
import { SessionRegistry } from "./sessions/sessions.js";
import { SqliteArcEventStore } from "./store/arc-event-store.js";
import { ChatStore } from "./store/chat-store.js";
import { checkpointsUnderLoad } from "./store/checkpointer.js";
import { SqliteContextStore } from "./store/context-store.js";
import {
  DATABASE_FILE_NAME,
  enableGroupCommit,
  flushBatch,
  openDatabase,
  openDatabaseFile,
  unitOfWork,
} from "./store/database.js";
import { SqliteInteractionStore } from "./store/interaction-store.js";
import { SqliteNotificationStore } from "./store/notification-store.js";
import { SqliteOutboundStore } from "./store/outbound-store.js";
import { type OutboxStore, SqliteOutboxStore } from "./store/outbox-store.js";
import { RelayCursorStore } from "./store/relay-cursor-store.js";
import { RelayReceiptStore } from "./store/relay-receipt-store.js";
import { SqliteRoutedStore } from "./store/routed-store.js";
import { SqliteToastStore, type ToastEvent } from "./store/toast-store.js";
import { SURFACES, withSurfaceAdapters } from "./surfaces/registry.js";
import type { PollStats } from "./surfaces/relay/loop.js";
import { type ChatTimings, type PollerOptions, SurfaceSupervisor } from "./surfaces/supervisor.js";
import { VERSION } from "./version.js";

/** Everything a running broker holds; built by `createBroker`, listened by `startBroker`. */
export interface Broker {
  settings: BrokerSettings;
  db: DatabaseSync;
  bus: DomainBus;
  logger: Logger;
  notifications: NotificationService;
  interactions: InteractionService;
  events: ArcConsumer;
  waiters: WaitRegistry;
  outbound: OutboundService;
  /** The outbox's items (tests and tools; the HTTP routes and the dispatcher hold it too). */
  outbox: OutboxStore;
  dispatcher: Dispatcher;
  /** The web page's login links and sessions (`notify serve` prints a link). */
  uiSessions: UiSessions;
  /** The presentation keys of config.json, with an onChange hook for the toast presenter. */
  presentation: PresentationSettingsFile;
  /** Built-in tones, imported sounds and the per-type choice (docs/desktop.md). */
  sounds: SoundLibrary;
  /** Toasts and sounds, when a session bus address was given. */
  desktop: Presenter | undefined;
  /** The relay answer poll's counters (one loop per enabled relay provider, run by `surfaces`). */
  relayPoller: { stats(providerId: string): PollStats | undefined };
  /** Whether the person is at this computer (docs/routing.md): the session bus when there is one, the web page. */
  presence: PresenceMonitor;
  /** The answer loops of every surface: relay, Telegram, Slack, Discord (issue 34, surfaces/registry.ts). */
  surfaces: SurfaceSupervisor;
  /** Attention routing: held deliveries of routes with routing options. */
  attention: AttentionRouter;
  app: FastifyInstance;
  /** Graceful stop: answer open long-polls, stop accepting, close the database. Idempotent. */
  close(): Promise<void>;
}

export interface BrokerOptions {
  settings: BrokerSettings;
  logger: Logger;
  clock?: Clock;
  /** Database path; defaults to `<dataDir>/notify.db`. */
  databasePath?: string;
  dispatcher?: DispatcherOptions;
  /** Test hook: relay poll timings. */
  relayPoller?: PollerOptions;
  /** Test hook: chat answer loop timings. */
  chat?: ChatTimings;
  /** WAL checkpoints on a worker thread instead of inside commits (the served broker turns this on). */
  backgroundCheckpoints?: boolean;
  /** Test hook: short upstream timeouts for the provider router (docs/router.md, "Timeouts", otherwise). */
  routerTimeouts?: UpstreamTimeouts;
  /** Test hook: the provider origins other tools' keys belong to (the vendors' public APIs otherwise). */
  keyOrigins?: OtherTools["keyOrigins"];
  /** Test hook: the auth server's token endpoint (sign-in renewals and key exchanges). */
  routerTokenUrl?: string;
  /** Test hook: the flat-plan hosts of the router (smart-switching.ts FLAT_PLAN_HOSTS otherwise). */
  routerFlatPlanHosts?: ReadonlySet<string>;
  /** Test hook: connection limits (HTTP_LIMITS and connectionCap() otherwise). */
  httpLimits?: Partial<HttpLimits>;
  /**
   * Where Codex and Claude Code live (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR; process.env otherwise): one environment
   * for the agent connectors, the sign-in files of subscription upstreams, and the keys and model lists other tools
   * hold.
   */
  agentEnv?: NodeJS.ProcessEnv;
  /** Test hook: the built web page's directory (packages/web/dist otherwise). */
  uiDir?: string;
  /** Toasts and sounds on this session bus (startBroker passes DBUS_SESSION_BUS_ADDRESS); none without it. */
  desktop?: DesktopOptions;
  /** Test hook: how often the screen saver's idle time is read (10 s otherwise). */
  presence?: { pollMs?: number };
  attention?: AttentionOptions;
}

/**
 * router.db holds configuration and the ledger. synchronous=OFF: nothing there is acknowledged to a client as
 * committed, so a power cut may lose the last ledger rows but no checkpoint fsync ever stalls a proxied request
 * (a crash of the broker alone loses nothing: the WAL is in the OS).
 */
function openRouterDatabase(path: string): RouterDatabase {
  const db = openDatabaseFile(path);
  db.exec("PRAGMA synchronous = OFF");
  return db;
}

/** Wires store, services and HTTP app together (no listening). Tests use this with `app.inject()`. */
export function createBroker(options: BrokerOptions): Broker {
  const clock = options.clock ?? systemClock;
  const { settings, logger } = options;
  const agentEnv = options.agentEnv ?? process.env;
  logger.addSecret(settings.authToken);
  const databasePath = options.databasePath ?? join(settings.dataDir, DATABASE_FILE_NAME);
  const db = openDatabase(databasePath);
  enableGroupCommit(db);
  // Under write load, WAL checkpoints move to a worker thread so their fsync never stalls a request.
  const checkpoints = options.backgroundCheckpoints ? checkpointsUnderLoad(db, databasePath) : undefined;

  const unit = unitOfWork(db);
  // Services record domain events inside their unit of work; what a change triggers subscribes below (the
  // outbox, the conditions) or listens after commit (waiters, presenter, live stream): docs/architecture.md.
  const bus = new DomainBus(unit);
  const interactionStore = new SqliteInteractionStore(db);
  // Questions' contexts (docs/api.md, "Item context"): posted first, bound by the question's event.
  const contexts = new SqliteContextStore(db);
  // The agent sessions heard of (issue 37, item 1; docs/api.md, "Sessions").
  const agentSessions = new SessionRegistry(db, clock, unit, settings.dataDir);
  const stopSessionIngest = agentSessions.ingestEvery(30_000);
  const outbox = new SqliteOutboxStore(db);
  // Answers from chat apps (issue 25): Telegram and Slack app questions carry buttons whose handles live here.
  const chatStore = new ChatStore(db);
  let chatPosted: (interactionId: string) => void = () => {};
  const outbound = new OutboundService(
    new SqliteOutboundStore(db),
    outbox,
    new SecretSealer(settings.dataDir),
    withSurfaceAdapters(ADAPTERS, {
      store: chatStore,
      now: () => clock.now(),
      posted: (row) => chatPosted(row.interactionId),
    }),
    clock,
    unit,
    {
      // An outbound payload names the question it asks (id, kind, choices; never the nonce).
      questionOf: (notificationId) => {
        const question = interactionStore.questionOfNotification(notificationId);
        if (question === undefined) return undefined;
        const context = contexts.forInteraction(question.id);
        return context === undefined ? question : { ...question, context };
      },
      // Read at send time through `get`, which sweeps an overdue question to expired first.
      interaction: (id) => {
        try {
          const context = contexts.forInteraction(id);
          return context === undefined ? interactions.get(id) : { ...interactions.get(id), context };
        } catch {
          return undefined;
        }
      },
    },
  );
  // docs/outbound.md, "Delivery rules", rule 1: no network I/O inline; the dispatcher is signalled after commit. A new
  // notification's routes go into its own row (the folded outbox: the notification's INSERT is the durable record,
  // expanded into items by the dispatcher); a dedup refresh writes its items in its unit of work.
  const notifications = new NotificationService(
    new SqliteNotificationStore(db),
    clock,
    unit,
    bus,
    new TypeRegistry(settings.notificationTypes),
    outbound,
  );
  // API requests received (counted on the HTTP server below): deliveries yield to API traffic, not to their own load.
  let apiRequests = 0;
  const dispatcher = new Dispatcher(outbox, outbound, clock, unit, logger, {
    apiRequests: () => apiRequests,
    ...options.dispatcher,
  });
  // A question's notification half (an ARC request's, or a native question's), when it has one.
  const notificationOfQuestion = (interaction: InteractionDto): NotificationDto | undefined => {
    const notificationId = interactionStore.notificationIdOf(interaction.id);
    if (notificationId === undefined) return undefined;
    try {
      return notifications.get(notificationId);
    } catch {
      return undefined;
    }
  };
  const presence = new PresenceMonitor(clock, settings.awayAfterSeconds);
  // Attention routing (docs/routing.md): routes with a delay, `when` or quiet hours decide through the policy.
  const routedStore = new SqliteRoutedStore(db);
  const toastStore = new SqliteToastStore(db);
  // Receipts from the relay (issue 37, item 3; docs/relay.md, "Receipts on the broker").
  const relayReceipts = new RelayReceiptStore(db);
  const noteToast = (key: string, event: ToastEvent, reason: string | null): void => {
    const item = itemIdOfToastKey(key);
    if (item !== undefined) unit.run(() => toastStore.record(item, event, reason, clock.now()));
  };
  const attention = new AttentionRouter(
    routedStore,
    outbox,
    outbound,
    clock,
    unit,
    presence,
    (interaction) => routableOf(interaction, notificationOfQuestion(interaction)).priority,
    options.attention,
  );
  // Questions travel through the same outbox to relay routes (docs/outbound.md, "Delivery rules", rule 8).
  const questionOutbox = new InteractionOutbox(
    outbound,
    outbox,
    clock,
    unit,
    notificationOfQuestion,
    (id) => dispatcher.retry(id),
    attention,
  );
  // A native question gets the notification half an ARC request has (issue 12): inbox row, toast, routes.
  const interactions = new InteractionService(interactionStore, clock, unit, bus, {
    relay: questionOutbox,
    notificationFor: nativeNotificationFor(notifications),
    answerCheck: formAnswerCheck(contexts),
  });
  // The in-transaction subscribers (`bus.onRecorded`: their writes commit or roll back with the change), in the order
  // they run; docs/architecture.md lists them as they read here:
  //   1. a settled question closes its condition (resolves its notification);
  //   2. the notification outbox: a refresh's items, the marker of a new notification;
  //   3. the question outbox: a new question's relay items, a settled one's "closed" notice;
  //   4. attention routing: a routed item's decision (sent, held or never), the held rows of a settled item voided.
  closeConditions(bus, (id) => interactionStore.notificationIdOf(id), notifications);
  outbound.subscribe(bus);
  questionOutbox.subscribe(bus);
  attention.subscribe(bus);
  const surfaces = new SurfaceSupervisor(
    { outbound, interactions, store: chatStore, cursors: new RelayCursorStore(db), bus, unit, clock, logger },
    SURFACES,
    { all: options.chat, byKind: { relay: options.relayPoller } },
  );
  const relayPoller = { stats: (providerId: string) => surfaces.stats<PollStats>(providerId) };
  chatPosted = (interactionId) => surfaces.close(interactionId);
  const sealer = new SecretSealer(settings.dataDir);
  const routerDb = openRouterDatabase(
    options.databasePath === ":memory:" ? ":memory:" : join(settings.dataDir, "router.db"),
  );
  // router.db keeps SQLite's own checkpoints: with synchronous=OFF one copies the WAL back without an fsync, cheaper
  // than a checkpoint thread (bench/README.md, Broker findings, has the figures).
  const routerSettings = new RouterSettingsFile(settings.dataDir);
  // A used link's redirect page goes at once (cli/commands/open.ts, issue 21 item 1).
  const uiSessions = new UiSessions(settings.authToken, clock, (token) => removeLoginPage(settings.dataDir, token));
  const presentation = new PresentationSettingsFile(settings.dataDir, (message) => logger.warn(message));
  const events = new ArcConsumer(new SqliteArcEventStore(db), notifications, interactions, clock, unit, contexts);
  const waiters = new WaitRegistry(bus, interactions, { log: (line) => logger.info(line) });
  const sounds = new SoundLibrary(settings.dataDir);
  // The provider router (built on first use) and the agent connectors that point Codex and Claude Code at it.
  const otherTools: OtherTools = { env: agentEnv, ...(options.keyOrigins ? { keyOrigins: options.keyOrigins } : {}) };
  const routing = routerWiring({
    db: routerDb,
    settings: routerSettings,
    sealer,
    ...(options.routerTimeouts ? { timeouts: options.routerTimeouts } : {}),
    // RouterAgentAccounts is read from config.json each time rule 7 runs (at start and when asked).
    subscriptions: {
      env: { CODEX_HOME: agentEnv.CODEX_HOME, HOME: agentEnv.HOME },
      ...(options.routerTokenUrl ? { tokenUrl: options.routerTokenUrl } : {}),
      agentAccounts: () => {
        try {
          return parseAgentAccounts(readConfigFile(settings.dataDir)[AGENT_ACCOUNTS_KEY]);
        } catch {
          return [];
        }
      },
    },
    ...(options.routerFlatPlanHosts ? { flatPlanHosts: options.routerFlatPlanHosts } : {}),
    agentEnv,
    dataDir: settings.dataDir,
    brokerUrl: () => {
      const address = app.server.address();
      return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 47821}`;
    },
    logger,
    clock,
  });
  // The web page's live stream: a window of the bus's events after commit.
  const uiEvents = new UiEventLog(bus, undefined, (item) => uiInteraction(interactions, item));
  const hookRuns = new HookRuns();
  const app = buildApp({
    maxRequestBodyBytes: settings.maxRequestBodyBytes,
    logger,
    waiters,
    commitBarrier: () => unit.pendingCommit(),
    ...(options.httpLimits ? { limits: options.httpLimits } : {}),
    v1: {
      authToken: settings.authToken,
      limiter: new FixedWindowLimiter(settings.rateLimitPerSecond, () => clock.now()),
      notifications,
      interactions,
      waiters,
      events,
      clock,
      startedAt: clock.now(),
      hooks: { dataDir: settings.dataDir, addSecret: (secret) => logger.addSecret(secret), runs: hookRuns },
      followUp: { settings: settings.followUp ?? DEFAULT_FOLLOW_UP, presence },
      contexts: { store: contexts, unit },
      sessions: agentSessions,
    },
    router: {
      host: routing.router,
      enabled: () => routerSettings.get().enabled,
      warn: (message) => logger.warn(message),
    },
    uiPages: { files: new UiFiles(options.uiDir), sessions: uiSessions },
    uiApi: {
      authToken: settings.authToken,
      sessions: uiSessions,
      notifications,
      interactions,
      events: uiEvents,
      outbound,
      chatConnection: (providerId) => surfaces.connection(providerId),
      dispatcher,
      outbox,
      router: routing.router,
      routerSettings,
      otherTools,
      connectors: routing.connectors,
      presentation,
      sounds,
      presence,
      relay: new RelayAdmin(
        outbound,
        logger,
        new UnfetchedRouteCheck(
          outbound,
          relayReceipts,
          (settings.receipts ?? DEFAULT_RECEIPTS).warnAfterSeconds,
          clock,
        ),
      ),
      dataDir: settings.dataDir,
      types: new TypeRegistry(settings.notificationTypes),
      // The item detail's delivery timeline (issue 24 item 5, docs/routing.md).
      timelines: new ItemTimelines({
        notifications,
        interactions,
        outbox,
        routed: routedStore,
        toasts: toastStore,
        outbound,
        questionOf: (notificationId) => interactionStore.questionOfNotification(notificationId)?.id,
        receipts: relayReceipts,
        chatEdits: (interactionId) => chatStore.editedFor(interactionId),
      }),
      contexts: {
        contexts,
        questionOf: (notificationId) => interactionStore.questionOfNotification(notificationId)?.id,
      },
      agentSessions,
    },
  });
  app.server.on("request", () => {
    apiRequests++;
  });
  interactions.start();
  dispatcher.start();
  attention.start();
  const desktop = options.desktop
    ? startDesktop(options.desktop, {
        bus,
        notifications,
        interactions,
        settings: presentation,
        sounds,
        logger,
        clock,
        dataDir: settings.dataDir,
        // A question's toast says in one line what it asks about (docs/hooks.md, "Approvals with context").
        questionContext: (id) =>
          contexts.forInteraction(id) ?? contexts.forInteraction(interactionStore.questionOfNotification(id)?.id ?? ""),
        // Each shown and closed toast, by its item's id, for the item's delivery timeline (one row in the group commit).
        toastLog: {
          shown: (key) => noteToast(key, "shown", null),
          closed: (key, reason) => noteToast(key, "closed", reason),
        },
        loginLink: (next) => {
          const address = app.server.address();
          if (typeof address !== "object" || address === null) return undefined;
          const { token } = uiSessions.createLinkToken();
          return `http://127.0.0.1:${address.port}/ui/login?t=${token}&next=${encodeURIComponent(next)}`;
        },
      })
    : undefined;
  // The screen saver is read only where there is a session bus, its dbus code loaded then (docs/routing.md).
  const presenceBus = options.desktop?.address;
  if (presenceBus) {
    void import("./attention/screensaver-source.js").then(({ startScreenSaverSource }) => {
      if (!closing) startScreenSaverSource({ address: presenceBus, logger, ...options.presence }, presence);
    });
  }
  surfaces.start();
  // Sessions from MCP clients and ARC senders too, and their summary sealed to the phones (issue 37, item 1).
  agentSessions.subscribe(bus);
  const sessionsToPhones = new SessionsRelayPublisher(agentSessions, outbound, clock, {
    log: (line) => logger.warn(line),
  });
  sessionsToPhones.start();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // preClose (http/app.ts) answers the open long-polls before the server stops listening.
      await desktop?.stop();
      await presence.stop();
      // HTTP hook waits withdraw their questions while the server still answers (docs/hooks.md).
      await hookRuns.stop();
      stopSessionIngest();
      sessionsToPhones.stop();
      await app.close();
      routing.stop();
      uiEvents.close();
      interactions.stop();
      attention.stop();
      await dispatcher.stop();
      await surfaces.stop();
      flushBatch(db);
      await checkpoints?.stop();
      db.close();
      routerDb.close();
      logger.info("broker stopped");
      await logger.close();
    })();
    return closing;
  };
  return {
    settings,
    db,
    bus,
    logger,
    notifications,
    interactions,
    events,
    waiters,
    outbound,
    outbox,
    dispatcher,
    uiSessions,
    presentation,
    sounds,
    desktop,
    relayPoller,
    presence,
    surfaces,
    attention,
    app,
    close,
  };
}

export interface StartOptions {
  dataDir?: string;
  port?: number;
  token?: string;
  host?: string;
  env?: NodeJS.ProcessEnv;
  /** Echo log lines (the foreground `serve` writes them to stderr). */
  echo?: (line: string) => void;
  /** Test hooks, see BrokerOptions. */
  routerTimeouts?: UpstreamTimeouts;
  /** Test hook: the provider origins other tools' keys belong to (the vendors' public APIs otherwise). */
  keyOrigins?: OtherTools["keyOrigins"];
  /** Test hook: the auth server's token endpoint (sign-in renewals and key exchanges). */
  routerTokenUrl?: string;
  routerFlatPlanHosts?: ReadonlySet<string>;
  httpLimits?: Partial<HttpLimits>;
  /** Test hook: reconnect timings of the desktop adapter (the address always comes from the environment). */
  desktop?: Omit<DesktopOptions, "address">;
  presence?: BrokerOptions["presence"];
  relayPoller?: PollerOptions;
  chat?: ChatTimings;
}

export interface RunningBroker extends Broker {
  /** The bound port (useful with port 0). */
  port: number;
  url: string;
}

/** Loads config from the data dir, opens the store and listens on loopback. Throws ConfigError on a bad config. */
export async function startBroker(options: StartOptions = {}): Promise<RunningBroker> {
  const env = options.env ?? process.env;
  const dataDir = resolveDataDir(options.dataDir, env);
  const logger = createFileLogger({
    directory: join(dataDir, "logs"),
    ...(options.echo ? { echo: options.echo } : {}),
  });
  let settings: BrokerSettings;
  try {
    settings = loadSettings(dataDir, {
      env,
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.token !== undefined ? { token: options.token } : {}),
      warn: (message) => logger.warn(message),
    });
  } catch (error) {
    if (error instanceof ConfigError) logger.error(error.message);
    await logger.close();
    throw error;
  }
  // docs/desktop.md, "When there is a session bus": toasts when there is a session bus; without one, one WARN and go
  // on.
  const busAddress = env.DBUS_SESSION_BUS_ADDRESS;
  if (!busAddress) logger.warn("desktop: DBUS_SESSION_BUS_ADDRESS is not set; no toasts or sounds");
  const broker = createBroker({
    settings,
    logger,
    ...(busAddress ? { desktop: { ...options.desktop, address: busAddress, env } } : {}),
    backgroundCheckpoints: true,
    // Codex and Claude Code are found in the broker's own environment (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR).
    agentEnv: env,
    ...(options.routerTimeouts ? { routerTimeouts: options.routerTimeouts } : {}),
    ...(options.keyOrigins ? { keyOrigins: options.keyOrigins } : {}),
    ...(options.routerTokenUrl ? { routerTokenUrl: options.routerTokenUrl } : {}),
    ...(options.routerFlatPlanHosts ? { routerFlatPlanHosts: options.routerFlatPlanHosts } : {}),
    ...(options.httpLimits ? { httpLimits: options.httpLimits } : {}),
    ...(options.relayPoller ? { relayPoller: options.relayPoller } : {}),
    ...(options.presence ? { presence: options.presence } : {}),
    ...(options.chat ? { chat: options.chat } : {}),
  });
  const host = options.host ?? "127.0.0.1";
  try {
    await broker.app.listen({ host, port: settings.port });
  } catch (error) {
    logger.error(`cannot listen on ${host}:${settings.port}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
    await broker.close();
    throw error;
  }
  const address = broker.app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : settings.port;
  const url = `http://${host}:${port}`;
  logger.info(`notify ${VERSION} listening on ${url} (data dir ${dataDir}, pid ${process.pid})`);
  return { ...broker, port, url };
}
