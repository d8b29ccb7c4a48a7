import { isLoopbackHost } from "@notify/contracts/guards";
import type { OutboundConnection } from "@notify/contracts/ui";
import type { FastifyPluginAsync } from "fastify";
import type { PresenceMonitor } from "../../attention/presence-monitor.js";
import type { ItemTimelines } from "../../attention/timeline.js";
import type { PresentationSettingsFile } from "../../config/presentation-settings.js";
import type { ConnectorService } from "../../connectors/connector-service.js";
import type { InteractionService } from "../../interactions/service.js";
import type { LazyRouter } from "../../model-router/lazy-router.js";
import type { OtherTools } from "../../model-router/other-tools.js";
import type { RouterSettingsFile } from "../../model-router/router-settings.js";
import type { NotificationService } from "../../notifications/service.js";
import type { TypeRegistry } from "../../notifications/type-ids.js";
import type { Dispatcher } from "../../outbox/dispatcher.js";
import type { OutboundService } from "../../outbox/outbound-service.js";
import type { SoundLibrary } from "../../presentation/sounds/sound-library.js";
import type { RelayAdmin } from "../../relay/relay-admin.js";
import type { SessionRegistry } from "../../sessions/sessions.js";
import type { OutboxStore } from "../../store/outbox-store.js";
import { bearerMatches } from "../auth.js";
import { sendError } from "../errors.js";
import { uiAgentSessionRoutes } from "../routes/sessions.js";
import { uiAgentIntegrationRoutes } from "../routes/ui-agent-integrations.js";
import { type UiContextOptions, uiContextRoutes } from "../routes/ui-context.js";
import { uiInboxRoutes } from "../routes/ui-inbox.js";
import { uiOutboundRoutes } from "../routes/ui-outbound.js";
import { uiPresenceRoutes } from "../routes/ui-presence.js";
import { uiPresentationRoutes } from "../routes/ui-presentation.js";
import { uiRelayRoutes } from "../routes/ui-relay.js";
import { uiRouterRoutes } from "../routes/ui-router.js";
import { uiRouterAccountsRoutes } from "../routes/ui-router-accounts.js";
import { uiRouterAgentRoutes } from "../routes/ui-router-agents.js";
import { uiRouterPresetRoutes } from "../routes/ui-router-presets.js";
import { uiSessionRoutes } from "../routes/ui-session.js";
import { uiSoundRoutes } from "../routes/ui-sounds.js";
import { uiStreamRoutes } from "../routes/ui-stream.js";
import { uiTimelineRoutes } from "../routes/ui-timeline.js";
import { uiTypeRoutes } from "../routes/ui-types.js";
import { cliCommand } from "../ui/status-page.js";
import type { UiEventLog } from "../ui/ui-event-log.js";
import type { UiSessions } from "../ui/ui-sessions.js";

/** What the routes under /ui/api use; broker.ts builds all of it. */
export interface UiApiOptions {
  /** The CLI's bearer token, accepted here besides the page's session. */
  authToken: string;
  sessions: UiSessions;
  notifications: NotificationService;
  interactions: InteractionService;
  /** The live stream's window of bus events (GET /ui/api/stream, the inbox snapshot's cursor). */
  events: UiEventLog;
  outbound: OutboundService;
  /** The state of chat answer loops by provider id, shown with the providers (issue 25). */
  chatConnection?: (providerId: string) => OutboundConnection | undefined;
  dispatcher: Dispatcher;
  outbox: OutboxStore;
  /** The provider router, built by the first /ui/api/router request that passes the checks. */
  router: LazyRouter;
  routerSettings: RouterSettingsFile;
  /** Where other tools (Codex, Claude Code) keep their keys and model cache; read only when asked. */
  otherTools: OtherTools;
  connectors: ConnectorService;
  presentation: PresentationSettingsFile;
  sounds: SoundLibrary;
  /** Whether the person is at this computer (GET /ui/api/presence); absent in apps built without one. */
  presence?: PresenceMonitor;
  /** The item detail's delivery timeline (issue 24 item 5, docs/routing.md); absent in apps built without one. */
  timelines?: ItemTimelines;
  relay: RelayAdmin;
  /** The questions' contexts (GET /ui/api/items/:id/context); absent in apps built without one. */
  contexts?: UiContextOptions;
  /** GET /ui/api/sessions (issue 37): the agent sessions heard of. */
  agentSessions?: SessionRegistry;
  /** Where config.json lives (the type definitions are written there). */
  dataDir: string;
  /** The type definitions of config.json at start. */
  types: TypeRegistry;
}

/**
 * /ui/api (docs/api.md, "Web UI API: `/ui/api`"): a loopback Host always, and `X-Notify-UI: 1` on every change; the
 * page needs no bearer token but a session. The custom header cannot be sent cross-origin without a CORS preflight,
 * which is never granted. The checks are this plugin's onRequest hook: they run before the body is read, for unknown
 * paths too, and every route group registered below gets them.
 */
export const uiApi: FastifyPluginAsync<UiApiOptions> = async (api, options) => {
  api.addHook("onRequest", async (request, reply) => {
    if (!isLoopbackHost(request.headers.host)) return sendError(reply, "non_loopback_host");
    // A CLI presents the bearer token here as on /v1: a wrong one is refused rather than ignored.
    const authorization = request.headers.authorization;
    if (authorization !== undefined && !bearerMatches(authorization, options.authToken)) {
      return sendError(reply, "unauthorized");
    }
    if (request.method !== "GET" && request.method !== "HEAD" && request.headers["x-notify-ui"] !== "1") {
      return sendError(reply, "missing_ui_header");
    }
    // Beyond the header rules: the page's session cookie or the CLI's bearer token
    // (docs/security.md, "The web page's session").
    if (!options.sessions.admit(request.headers)) {
      // The page's sign-in screen names the command as this user runs it, as the refused-link page does; in a
      // header, so the 401 body stays the one every /ui/api route gives.
      if (request.url.split("?")[0] === "/ui/api/session") {
        reply.header("x-notify-open-command", `${cliCommand().command} open`);
      }
      return sendError(reply, "unauthorized");
    }
    return undefined;
  });
  api.setNotFoundHandler((_request, reply) => {
    sendError(reply, "not_found");
  });

  // The route groups under /ui/api, one line each.
  await api.register(uiOutboundRoutes, {
    outbound: options.outbound,
    ...(options.chatConnection ? { chatConnection: options.chatConnection } : {}),
    relayPhones: (providerId: string) => options.relay.devices(providerId),
    dispatcher: options.dispatcher,
    outbox: options.outbox,
  });
  await api.register(routerManagement, {
    router: options.router,
    settings: options.routerSettings,
    otherTools: options.otherTools,
    connectors: options.connectors,
  });
  await api.register(uiSessionRoutes, { sessions: options.sessions });
  await api.register(uiInboxRoutes, {
    notifications: options.notifications,
    interactions: options.interactions,
    events: options.events,
  });
  await api.register(uiStreamRoutes, { events: options.events });
  if (options.timelines) await api.register(uiTimelineRoutes, { timelines: options.timelines });
  if (options.contexts) await api.register(uiContextRoutes, options.contexts);
  if (options.agentSessions) await api.register(uiAgentSessionRoutes, { sessions: options.agentSessions });
  await api.register(uiPresentationRoutes, { presentation: options.presentation });
  await api.register(uiSoundRoutes, { sounds: options.sounds });
  if (options.presence) await api.register(uiPresenceRoutes, { presence: options.presence });
  await api.register(uiRelayRoutes, { admin: options.relay });
  await api.register(uiAgentIntegrationRoutes, { env: options.otherTools.env });
  await api.register(uiTypeRoutes, {
    dataDir: options.dataDir,
    notifications: options.notifications,
    initial: options.types,
  });
};

interface RouterManagementOptions {
  router: LazyRouter;
  settings: RouterSettingsFile;
  otherTools: OtherTools;
  connectors: ConnectorService;
}

/**
 * /ui/api/router: the router's management routes build the router (and load its package) on their first request,
 * after the checks above: a refused request loads nothing.
 */
const routerManagement: FastifyPluginAsync<RouterManagementOptions> = async (scope, options) => {
  const { otherTools } = options;
  const router = () => options.router.services();
  scope.addHook("preHandler", async () => {
    await options.router.mount();
  });
  await scope.register(uiRouterRoutes, {
    router,
    settings: options.settings,
    prepareUpstream: async (input, existing) =>
      (await import("../../model-router/upstream-input.js")).prepareUpstreamInput(input, existing, otherTools),
  });
  await scope.register(uiRouterPresetRoutes, { router, tools: otherTools });
  await scope.register(uiRouterAccountsRoutes, { router });
  await scope.register(uiRouterAgentRoutes, { connectors: options.connectors });
};
