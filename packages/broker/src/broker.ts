import { join } from "node:path";
import type { DatabaseSync, DatabaseSync as RouterDatabase } from "node:sqlite";
import type { UpstreamTimeouts } from "@notify/router";
import type { FastifyInstance } from "fastify";
import { ConfigError } from "./config/config-file.js";
import { resolveDataDir } from "./config/paths.js";
import { type BrokerSettings, loadSettings } from "./config/settings.js";
import { DomainBus } from "./domain/bus.js";
import { type Clock, systemClock } from "./domain/clock.js";
import { ArcConsumer } from "./events/arc-consumer.js";
import { buildApp, type HttpLimits } from "./http/app.js";
import { InteractionService } from "./interactions/service.js";
import { WaitRegistry } from "./interactions/waiters.js";
import { createFileLogger, type Logger } from "./log/logger.js";
import { NotificationService } from "./notifications/service.js";
import { TypeRegistry } from "./notifications/type-ids.js";
import { Dispatcher, type DispatcherOptions } from "./outbox/dispatcher.js";
import { OutboundService } from "./outbox/outbound-service.js";
import { ADAPTERS } from "./outbox/providers/registry.js";
import { RouterSettingsFile } from "./router/router-settings.js";
import { SecretSealer } from "./secrets/sealer.js";
import { ArcEventStore } from "./store/arc-event-store.js";
import { checkpointsUnderLoad } from "./store/checkpointer.js";
import {
  commitBarrier,
  DATABASE_FILE_NAME,
  enableGroupCommit,
  flushBatch,
  openDatabase,
  openDatabaseFile,
} from "./store/database.js";
import { InteractionStore } from "./store/interaction-store.js";
import { NotificationStore } from "./store/notification-store.js";
import { OutboundStore } from "./store/outbound-store.js";
import { OutboxStore } from "./store/outbox-store.js";
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
  /** WAL checkpoints on a worker thread instead of inside commits (the served broker turns this on). */
  backgroundCheckpoints?: boolean;
  /** Test hook: short upstream timeouts for the provider router (the spec's defaults otherwise). */
  routerTimeouts?: UpstreamTimeouts;
  /** Test hook: connection limits (HTTP_LIMITS otherwise). */
  httpLimits?: Partial<HttpLimits>;
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
  logger.addSecret(settings.authToken);
  const databasePath = options.databasePath ?? join(settings.dataDir, DATABASE_FILE_NAME);
  const db = openDatabase(databasePath);
  enableGroupCommit(db);
  // Under write load, WAL checkpoints move to a worker thread so their fsync never stalls a request.
  const checkpoints = options.backgroundCheckpoints ? checkpointsUnderLoad(db, databasePath) : undefined;

  const bus = new DomainBus();
  const notifications = new NotificationService(
    new NotificationStore(db),
    clock,
    bus,
    new TypeRegistry(settings.notificationTypes),
  );
  const interactions = new InteractionService(new InteractionStore(db), clock, bus);
  // An answered question closes its condition: the notification it was opened for resolves in the same
  // transaction, whichever path the answer took (HTTP respond, ARC response.submitted, relay).
  interactions.onAnsweredInTransaction((interaction) => {
    const notificationId = interactions.notificationIdOf(interaction.id);
    if (notificationId !== undefined) notifications.resolve(notificationId);
  });
  const outbox = new OutboxStore(db);
  const outbound = new OutboundService(
    new OutboundStore(db),
    outbox,
    new SecretSealer(settings.dataDir),
    ADAPTERS,
    clock,
  );
  // Spec 1, Outbound delivery rule 1: no network I/O inline; the dispatcher is signalled after commit. A new
  // notification's routes go into its own row (the folded outbox: the notification's INSERT is the durable record,
  // expanded into items by the dispatcher); a dedup refresh writes its items in its transaction.
  notifications.setOutboundMarker(outbound);
  notifications.onCreateInTransaction((notification, created, row) => {
    if (!created) outbound.enqueueFor(notification, row);
  });
  // API requests received (counted on the HTTP server below): deliveries yield to API traffic, not to their own load.
  let apiRequests = 0;
  const dispatcher = new Dispatcher(outbox, outbound, clock, logger, {
    apiRequests: () => apiRequests,
    ...options.dispatcher,
  });
  const sealer = new SecretSealer(settings.dataDir);
  const routerDb = openRouterDatabase(
    options.databasePath === ":memory:" ? ":memory:" : join(settings.dataDir, "router.db"),
  );
  // router.db keeps SQLite's own checkpoints: with synchronous=OFF one copies the WAL back without an fsync
  // (under 2 ms measured inside ledger writes), less than the ~10 MB a checkpoint thread would add to the RSS of
  // 1,000 concurrent streams.
  const routerSettings = new RouterSettingsFile(settings.dataDir);
  const events = new ArcConsumer(new ArcEventStore(db), notifications, interactions, clock);
  const waiters = new WaitRegistry(bus, interactions);
  const app = buildApp({
    authToken: settings.authToken,
    maxRequestBodyBytes: settings.maxRequestBodyBytes,
    rateLimitPerSecond: settings.rateLimitPerSecond,
    notifications,
    interactions,
    events,
    waiters,
    outbound,
    dispatcher,
    outbox,
    logger,
    clock,
    dataDir: settings.dataDir,
    notificationTypes: settings.notificationTypes,
    commitBarrier: () => commitBarrier(db),
    ...(options.httpLimits ? { limits: options.httpLimits } : {}),
    router: {
      db: routerDb,
      settings: routerSettings,
      sealer,
      ...(options.routerTimeouts ? { timeouts: options.routerTimeouts } : {}),
    },
  });
  app.server.on("request", () => {
    apiRequests++;
  });
  interactions.start();
  dispatcher.start();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // preClose (http/app.ts) answers the open long-polls before the server stops listening.
      await app.close();
      interactions.stop();
      await dispatcher.stop();
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
  httpLimits?: Partial<HttpLimits>;
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
  const broker = createBroker({
    settings,
    logger,
    backgroundCheckpoints: true,
    ...(options.routerTimeouts ? { routerTimeouts: options.routerTimeouts } : {}),
    ...(options.httpLimits ? { httpLimits: options.httpLimits } : {}),
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
