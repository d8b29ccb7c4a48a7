import type { FastifyPluginAsync } from "fastify";
import type { PresenceMonitor } from "../../attention/presence-monitor.js";
import type { FollowUpSettings } from "../../config/follow-up.js";
import type { Clock } from "../../domain/clock.js";
import type { UnitOfWork } from "../../domain/unit-of-work.js";
import type { ArcConsumer } from "../../events/arc-consumer.js";
import type { HookRuns } from "../../hooks/hook-runs.js";
import { HookTokenFile } from "../../hooks/hook-token.js";
import type { InteractionService } from "../../interactions/service.js";
import type { WaitRegistry } from "../../interactions/waiters.js";
import type { NotificationService } from "../../notifications/service.js";
import type { SessionRegistry } from "../../sessions/sessions.js";
import type { ContextStore } from "../../store/context-store.js";
import { bearerMatches } from "../auth.js";
import { sendError } from "../errors.js";
import { type FixedWindowLimiter, isRateLimited } from "../rate-limit.js";
import { contextRoutes } from "../routes/contexts.js";
import { eventRoutes } from "../routes/events.js";
import { followUpRoutes } from "../routes/follow-up.js";
import { healthRoute } from "../routes/health.js";
import { CLAUDE_CODE_HOOK_PATH, hookRoutes } from "../routes/hooks.js";
import { interactionRoutes } from "../routes/interactions.js";
import { notificationRoutes } from "../routes/notifications.js";
import { sessionRoutes } from "../routes/sessions.js";

export interface V1Options {
  authToken: string;
  /** POSTs that create (docs/api.md, "Limits"): one window for the token. */
  limiter: FixedWindowLimiter;
  notifications: NotificationService;
  interactions: InteractionService;
  waiters: WaitRegistry;
  /** ARC 0.2 events (POST /v1/events). */
  events: ArcConsumer;
  clock: Clock;
  /** Process start, for `uptimeSeconds`. */
  startedAt: number;
  /**
   * The data dir, for POST /v1/hooks/claude-code (its hook token and session marks); without it that route answers
   * 401 like any request without the main token.
   */
  hooks?: { dataDir: string; addSecret: (secret: string) => void; runs: HookRuns };
  /** POST /v1/contexts: the store of questions' contexts, and the unit of work that writes it. */
  contexts?: { store: ContextStore; unit: UnitOfWork };
  /** /v1/sessions (issue 37): the agent sessions heard of; the http hook records into it too. */
  sessions?: SessionRegistry;
  /** GET /v1/follow-up: the follow-up settings read at start and the presence they are decided by. */
  followUp?: { settings: FollowUpSettings; presence: PresenceMonitor };
}

/**
 * /v1 (docs/api.md, "Request pipeline"): the bearer token on every request, then the rate limit, in this plugin's own
 * onRequest hook, so a route added below is guarded without being named anywhere else. The hook runs before the body is
 * read, and for unknown paths too (their 404 is this plugin's, behind the same checks).
 */
export const v1Api: FastifyPluginAsync<V1Options> = async (v1, options) => {
  const hookToken =
    options.hooks !== undefined ? new HookTokenFile(options.hooks.dataDir, options.hooks.addSecret) : undefined;
  v1.addHook("onRequest", async (request, reply) => {
    // The hook route also takes the hook token, which opens no other route (issue 33, item 1). The main token,
    // which opens everything, opens it too (the fuzz suite and a person's own curl).
    if (request.routeOptions.url === CLAUDE_CODE_HOOK_PATH) {
      const expected = hookToken?.current();
      if (expected !== undefined && bearerMatches(request.headers.authorization, expected)) return undefined;
    }
    if (!bearerMatches(request.headers.authorization, options.authToken)) {
      return sendError(reply, "unauthorized");
    }
    const route = request.routeOptions.url ?? request.url.split("?")[0] ?? "";
    // One counter per token: the token itself is never kept, only that it was the valid one.
    if (isRateLimited(request.method, route) && !options.limiter.take("token")) {
      return sendError(reply.header("retry-after", "1"), "rate_limited");
    }
    return undefined;
  });
  v1.setNotFoundHandler((_request, reply) => {
    sendError(reply, "not_found");
  });

  // The route groups under /v1, one line each.
  await v1.register(healthRoute, {
    notifications: options.notifications,
    clock: options.clock,
    startedAt: options.startedAt,
  });
  await v1.register(notificationRoutes, { notifications: options.notifications });
  await v1.register(interactionRoutes, { interactions: options.interactions, waiters: options.waiters });
  await v1.register(eventRoutes, { events: options.events });
  if (options.contexts !== undefined) {
    await v1.register(contextRoutes, {
      contexts: options.contexts.store,
      unit: options.contexts.unit,
      clock: options.clock,
    });
  }
  if (options.sessions !== undefined) {
    await v1.register(sessionRoutes, { sessions: options.sessions });
  }
  if (options.followUp !== undefined) {
    await v1.register(followUpRoutes, { followUp: options.followUp.settings, presence: options.followUp.presence });
  }
  if (options.hooks !== undefined && hookToken !== undefined) {
    await v1.register(hookRoutes, {
      dataDir: options.hooks.dataDir,
      authToken: options.authToken,
      hookToken,
      runs: options.hooks.runs,
      ...(options.sessions !== undefined ? { sessions: options.sessions } : {}),
    });
  }
};
