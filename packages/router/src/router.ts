import type { IncomingMessage, ServerResponse } from "node:http";
import type { DatabaseSync } from "node:sqlite";
import { RouterConfig } from "./config/config-service.js";
import type { KeySealer } from "./config/store.js";
import { CooldownBook } from "./failover.js";
import { answerModelRequest, modelEndpoints, type RouterRuntimeSettings } from "./http/model-endpoint.js";
import { Ledger } from "./ledger/ledger.js";
import { DEFAULT_NATIVE_BASE_URL } from "./native.js";
import type { RouterLog } from "./proxy/request-context.js";
import { RouterProxy } from "./proxy/router-proxy.js";
import { type ReconcileReport, reconcileAccounts } from "./subscriptions/apply-reconcile.js";
import { type KeyTool, toolApiKey } from "./subscriptions/tool-keys.js";
import { type SubscriptionOptions, signinEnv, UpstreamCredentials } from "./subscriptions/upstream-credentials.js";
import { DEFAULT_TIMEOUTS, UpstreamClient, type UpstreamTimeouts } from "./upstreams/client.js";

export interface RouterOptions {
  /** The router's own database (router.db): configuration and ledger. */
  db: DatabaseSync;
  sealer: KeySealer;
  /** The router's live settings (config.json keys), read on every request and at every ledger prune. */
  settings: () => RouterRuntimeSettings;
  log: RouterLog;
  version: string;
  /** Where the model endpoints live on the host's server; the plugin must be mounted with the same prefix. */
  prefix: string;
  timeouts?: UpstreamTimeouts;
  now?: () => number;
  /** Where sign-in files are found (the broker's CODEX_HOME and HOME) and test-only auth endpoints. */
  subscriptions?: SubscriptionOptions;
  /** Test hook: the flat-plan hosts (smart-switching.ts FLAT_PLAN_HOSTS otherwise). */
  flatPlanHosts?: ReadonlySet<string>;
}

export interface RouterServices {
  config: RouterConfig;
  ledger: Ledger;
  cooldowns: CooldownBook;
  /** Smart switching rule 7: one plan_signin_a provider per signed-in Codex account (run at start and on demand). */
  reconcileAccounts(): ReconcileReport;
  /** A plain API key another tool holds (read only when the owner asks; never returned to a client). */
  toolApiKey(tool: KeyTool): { provider: string; key: string } | undefined;
  /** Stops the daily prune, writes the waiting ledger rows and closes upstream connections. */
  close(): Promise<void>;
  /**
   * The router's lane on the host's HTTP server: answers a POST to one of the four model endpoints straight from
   * node:http and returns true; returns false for anything else, which the host then hands to fastify. The routes
   * the plugin mounts answer the same requests through the same function (`answerModelRequest`).
   */
  lane(request: IncomingMessage, response: ServerResponse): boolean;
  /**
   * The one answer of a model request, by its endpoint path (`<prefix>/responses` ...): false when the path is not
   * one of the four. The lane calls it for a socket's URL, the plugin for the route the framework matched.
   */
  readonly answer: (path: string, request: IncomingMessage, response: ServerResponse) => boolean;
  readonly settings: () => RouterRuntimeSettings;
  readonly log: RouterLog;
  readonly prefix: string;
}

const DAY_MS = 86_400_000;

/**
 * Builds the router before anything mounts it: configuration, ledger (with its retention: pruned now and once a
 * day, docs/router.md, "Ledger"), cooldowns, the upstream client and the proxy.
 */
export function createRouter(options: RouterOptions): RouterServices {
  const now = options.now ?? Date.now;
  const config = new RouterConfig(options.db, options.sealer);
  const ledger = new Ledger(options.db);
  const cooldowns = new CooldownBook(now);
  const client = new UpstreamClient(options.timeouts ?? DEFAULT_TIMEOUTS);
  const credentials = new UpstreamCredentials({
    config,
    client,
    log: options.log,
    version: options.version,
    now,
    ...(options.subscriptions ? { options: options.subscriptions } : {}),
  });
  const proxy = new RouterProxy({
    credentials,
    ...(options.flatPlanHosts ? { flatPlanHosts: options.flatPlanHosts } : {}),
    config,
    ledger,
    client,
    cooldowns,
    log: options.log,
    version: options.version,
    now,
    nativeBaseUrl: () => options.settings().nativeBaseUrl ?? DEFAULT_NATIVE_BASE_URL,
  });
  const prune = (): void => {
    try {
      const removed = ledger.prune(options.settings().ledgerRetentionDays, now());
      if (removed > 0) options.log.info(`router ledger: pruned ${removed} request(s) past retention`);
    } catch {
      options.log.warn("router ledger: prune failed");
    }
  };
  prune();
  const reconcile = (): ReconcileReport => reconcileAccounts(config, options.subscriptions, options.log);
  try {
    reconcile();
  } catch {
    options.log.warn("router: subscription accounts could not be reconciled at start");
  }
  const pruneTimer = setInterval(prune, DAY_MS);
  pruneTimer.unref();

  const endpoints = modelEndpoints(options.prefix);
  const answerDependencies = { settings: options.settings, proxy, log: options.log };
  const answer = (path: string, request: IncomingMessage, response: ServerResponse): boolean => {
    const endpoint = endpoints.get(path);
    if (!endpoint) return false;
    answerModelRequest(endpoint, request, response, answerDependencies);
    return true;
  };
  let closed: Promise<void> | undefined;
  return {
    config,
    ledger,
    cooldowns,
    settings: options.settings,
    log: options.log,
    prefix: options.prefix,
    reconcileAccounts: reconcile,
    toolApiKey: (tool) => toolApiKey(tool, signinEnv(options.subscriptions)),
    close: () => {
      closed ??= (async () => {
        clearInterval(pruneTimer);
        ledger.flush();
        await client.close();
      })();
      return closed;
    },
    lane: (request, response) => {
      if (request.method !== "POST") return false;
      const url = request.url ?? "";
      const query = url.indexOf("?");
      return answer(query === -1 ? url : url.slice(0, query), request, response);
    },
    answer,
  };
}
