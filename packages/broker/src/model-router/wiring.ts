import type { DatabaseSync } from "node:sqlite";
import type { KeySealer, SubscriptionOptions, UpstreamTimeouts } from "@notify/router";
import { ConnectorService } from "../connectors/connector-service.js";
import type { Clock } from "../domain/clock.js";
import { ROUTER_PREFIX, routerApp } from "../http/plugins/router.js";
import type { Logger } from "../log/logger.js";
import { VERSION } from "../version.js";
import { LazyRouter, loadRouterModule } from "./lazy-router.js";
import type { RouterSettingsFile } from "./router-settings.js";

export interface RouterWiringOptions {
  /** router.db: configuration and the ledger. */
  db: DatabaseSync;
  /** The config.json keys (RouterEnabled, RouterKey, ...). */
  settings: RouterSettingsFile;
  sealer: KeySealer;
  /** Upstream timeouts; the defaults of docs/router.md, "Timeouts", unless a test sets short ones. */
  timeouts?: UpstreamTimeouts;
  /** Where sign-in files are found (CODEX_HOME, HOME) and, in tests only, the auth server's token endpoint. */
  subscriptions?: SubscriptionOptions;
  /** Test hook: the flat-plan hosts. */
  flatPlanHosts?: ReadonlySet<string>;
  /** Where the agent connectors find Codex and Claude Code (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR). */
  agentEnv: NodeJS.ProcessEnv;
  dataDir: string;
  /** The broker's own base URL once it listens, which the connectors write into the agents' files. */
  brokerUrl: () => string;
  logger: Logger;
  clock: Clock;
}

/** The provider router of a broker and the agent connectors that point Codex and Claude Code at it. */
export interface RouterWiring {
  /** Built on first use, never at start (lazy-router.ts); http/plugins/router.ts mounts it. */
  router: LazyRouter;
  connectors: ConnectorService;
  /** Stops listening to the router's settings and configuration (broker.ts, on close). */
  stop(): void;
}

/**
 * Builds the router's lazy host (its services and the fastify instance behind /router/v1, at first use) and the
 * agent connectors, and keeps the connected agents' files in step with the router's configuration and key.
 */
export function routerWiring(options: RouterWiringOptions): RouterWiring {
  const { logger, clock } = options;
  const unsubscribe: (() => void)[] = [];
  const router = new LazyRouter(async () => {
    const { createRouter, routerPlugin } = await loadRouterModule();
    const services = createRouter({
      prefix: ROUTER_PREFIX,
      db: options.db,
      sealer: options.sealer,
      version: VERSION,
      settings: () => options.settings.get(),
      log: { info: (message) => logger.info(message), warn: (message) => logger.warn(message) },
      now: () => clock.now(),
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(options.subscriptions ? { subscriptions: options.subscriptions } : {}),
      ...(options.flatPlanHosts ? { flatPlanHosts: options.flatPlanHosts } : {}),
    });
    const app = await routerApp(routerPlugin, services);
    unsubscribe.push(services.config.onChange(rewriteAgents));
    return { services, app };
  });
  const connectors = new ConnectorService({
    dataDir: options.dataDir,
    snapshot: () => router.services().config.snapshot(),
    router: () => options.settings.get(),
    brokerUrl: options.brokerUrl,
    // The same reading of config.json's RouterAgentAccounts that rule 7 uses (broker.ts).
    configuredAccounts: () => options.subscriptions?.agentAccounts?.() ?? [],
    where: { env: options.agentEnv },
    warn: (message) => logger.warn(message),
  });
  // docs/connectors.md, "Writing rules": a change of upstreams, routes or the key rewrites every connected agent.
  const rewriteAgents = (): void => {
    try {
      connectors.rewrite();
    } catch (error) {
      logger.warn(`router connectors: rewrite failed: ${(error as Error).message}`);
    }
  };
  // Settings change only through /ui/api/router, which builds the router first; switching it on builds it anyway.
  unsubscribe.push(
    options.settings.onChange((keys) => {
      if (router.mounted) rewriteAgents();
      else if (keys.enabled) router.mount().then(rewriteAgents, () => undefined);
    }),
  );
  return {
    router,
    connectors,
    stop: () => {
      for (const stop of unsubscribe) stop();
    },
  };
}
