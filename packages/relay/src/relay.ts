import { enrollmentToken, type RelaySettings } from "./config/settings.js";
import { MINUTE } from "./domain/clock.js";
import { pruneOnce } from "./domain/retention.js";
import { buildApp } from "./http/app.js";
import type { RelayLogger } from "./log.js";
import { loadVapidKeys, vapidSubject } from "./push/vapid.js";
import { WebPushSender } from "./push/web-push-sender.js";
import { openStore } from "./store/open.js";
import type { RelayStore } from "./store/types.js";

export const PRUNE_INTERVAL = 10 * MINUTE;
const SHUTDOWN_GRACE = 5000;

export interface RunningRelay {
  /** Where it listens (the real port when 0 was asked). */
  url: string;
  publicUrl: string;
  store: RelayStore;
  close(): Promise<void>;
}

/** Opens the store, prunes, listens; the `serve` command and the process tests use this. */
export async function startRelay(settings: RelaySettings, logger: RelayLogger): Promise<RunningRelay> {
  const store = await openStore(settings, logger);
  const token = enrollmentToken(settings.dataDir);
  const vapid = loadVapidKeys(settings.dataDir);
  let publicUrl = settings.publicUrl ?? "";
  const push = new WebPushSender({
    vapid: { ...vapid, subject: vapidSubject(settings.publicUrl ?? "") },
    store,
    logger,
    pushEndpoints: { allowLoopback: settings.allowLoopbackPush },
  });
  if (settings.allowLoopbackPush) logger.warn("Web Push endpoints on loopback are accepted (test switch)");
  const { app } = buildApp({
    store,
    enrollmentToken: token,
    // Filled in once the port is known when RELAY_PUBLIC_URL is unset (DESIGN.md: default http://HOST:PORT).
    publicUrl: () => publicUrl,
    push,
    vapidPublicKey: vapid.publicKey,
    logger,
    ...(settings.rateLimits ? {} : { limits: false as const }),
    trustProxy: settings.trustProxy,
    allowLoopbackPush: settings.allowLoopbackPush,
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

  await app.listen({ port: settings.port, host: settings.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  const hostForUrl = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  const url = `http://${hostForUrl}:${port}`;
  if (!publicUrl) publicUrl = url;
  return {
    url,
    publicUrl,
    store,
    close: async () => {
      clearInterval(timer);
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
