import { createServer, type Server } from "node:http";
import { openFilesLimit } from "@notify/contracts/open-files";
import { enrollmentToken, type RelaySettings } from "./config/settings.js";
import { MINUTE } from "./domain/clock.js";
import { pruneOnce } from "./domain/retention.js";
import { buildApp } from "./http/app.js";
import type { RelayLogger } from "./log.js";
import { RelayMetrics } from "./metrics.js";
import { ThreadedPushSender } from "./push/push-thread.js";
import { loadVapidKeys, vapidSubject } from "./push/vapid.js";
import { openStore } from "./store/open.js";
import type { PostgresStore } from "./store/postgres/postgres-store.js";
import type { RelayStore } from "./store/types.js";

export const PRUNE_INTERVAL = 10 * MINUTE;
const SHUTDOWN_GRACE = 5000;
/** File descriptors kept for the database pool, the push agent, log files and the like. */
const FD_RESERVE = 256;
/** The accept queue: a burst of reconnecting clients (after a restart) waits here instead of being refused. */
const LISTEN_BACKLOG = 4096;

export interface RunningRelay {
  /** Where it listens (the real port when 0 was asked). */
  url: string;
  publicUrl: string;
  store: RelayStore;
  /** The separate metrics listener's URL, when one was asked for. */
  metricsUrl?: string;
  close(): Promise<void>;
}

/** Opens the store, prunes, listens; the `serve` command and the process tests use this. */
export async function startRelay(settings: RelaySettings, logger: RelayLogger): Promise<RunningRelay> {
  const rawStore = await openStore(settings, logger);
  const metrics = new RelayMetrics();
  const store = metrics.instrument(rawStore);
  if (rawStore.backend === "postgres") {
    const postgres = rawStore as PostgresStore;
    metrics.watch({
      pool: () => postgres.poolStats(),
      batches: () => [
        { kind: "answers", ...(postgres.answerBatches?.stats ?? { batches: 0, items: 0 }) },
        { kind: "envelopes", ...(postgres.envelopeBatches?.stats ?? { batches: 0, items: 0 }) },
      ],
    });
  }
  const token = enrollmentToken(settings.dataDir);
  const vapid = loadVapidKeys(settings.dataDir);
  let publicUrl = settings.publicUrl ?? "";
  const push = new ThreadedPushSender(
    {
      vapid: { ...vapid, subject: vapidSubject(settings.publicUrl ?? "") },
      pushEndpoints: { allowLoopback: settings.allowLoopbackPush },
    },
    { store, logger, onOutcome: (outcome) => metrics.pushOutcome(outcome) },
  );
  metrics.watch({ pushQueue: () => push.queued });
  if (settings.allowLoopbackPush) logger.warn("Web Push endpoints on loopback are accepted (test switch)");
  const { app } = buildApp({
    store,
    enrollmentToken: token,
    // Filled in once the port is known when RELAY_PUBLIC_URL is unset (docs/relay.md, "Running": default
    // http://HOST:PORT).
    publicUrl: () => publicUrl,
    push,
    vapidPublicKey: vapid.publicKey,
    logger,
    ...(settings.rateLimits ? {} : { limits: false as const }),
    trustProxy: settings.trustProxy,
    allowLoopbackPush: settings.allowLoopbackPush,
    metrics,
  });

  const prune = async () => {
    try {
      const pruned = await pruneOnce(store, { now: () => Date.now() });
      if (pruned.answers + pruned.envelopes + pruned.pairings > 0) {
        logger.info(
          `pruned ${pruned.answers} answers, ${pruned.envelopes} envelopes, ${pruned.pairings} pairing codes`,
        );
      }
    } catch (error) {
      logger.warn(`pruning failed: ${(error as Error).message}`);
    }
  };
  await prune();
  const timer = setInterval(prune, PRUNE_INTERVAL);
  timer.unref();

  // Each held poll is a connection and a file descriptor: past the open-files limit, refuse cleanly (the socket is
  // closed at once) instead of failing accept() with EMFILE. docs/relay.md, "Running at scale".
  const files = openFilesLimit();
  if (files !== undefined && Number.isFinite(files)) {
    app.server.maxConnections = Math.max(64, files - FD_RESERVE);
    if (files < 65_536) {
      logger.warn(
        `open-files limit is ${files}: at most ${app.server.maxConnections} connections (held polls); ` +
          "raise it (LimitNOFILE=, ulimit -n) to serve more",
      );
    }
  }
  await app.listen({ port: settings.port, host: settings.host, backlog: LISTEN_BACKLOG });
  let metricsServer: Server | undefined;
  let metricsUrl: string | undefined;
  if (settings.metricsPort !== undefined) {
    // Unauthenticated: bind it where only the operator's scraper reaches (loopback by default).
    const server = createServer((request, response) => {
      if (request.method !== "GET" || (request.url ?? "").split("?")[0] !== "/metrics") {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
        return;
      }
      metrics.text().then(
        (text) => response.writeHead(200, { "content-type": metrics.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(settings.metricsPort, settings.metricsHost, () => resolve());
    });
    metricsServer = server;
    const bound = server.address();
    const metricsPort = typeof bound === "object" && bound ? bound.port : settings.metricsPort;
    metricsUrl = `http://${settings.metricsHost.includes(":") ? `[${settings.metricsHost}]` : settings.metricsHost}:${metricsPort}/metrics`;
    logger.info(`metrics on ${metricsUrl}`);
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  const hostForUrl = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  const url = `http://${hostForUrl}:${port}`;
  if (!publicUrl) publicUrl = url;
  return {
    url,
    publicUrl,
    store: rawStore,
    ...(metricsUrl ? { metricsUrl } : {}),
    close: async () => {
      clearInterval(timer);
      metricsServer?.close();
      // Held polls are answered at once (preClose); a client that keeps a connection busy past the grace period
      // is cut off rather than holding the shutdown open.
      const force = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE);
      await app.close();
      clearTimeout(force);
      await push.close();
      await store.close();
    },
  };
}
