import type { FastifyPluginAsync } from "fastify";
import type { Clock } from "../../domain/clock.js";
import type { ArcConsumer } from "../../events/arc-consumer.js";
import type { InteractionService } from "../../interactions/service.js";
import type { WaitRegistry } from "../../interactions/waiters.js";
import type { NotificationService } from "../../notifications/service.js";
import { bearerMatches } from "../auth.js";
import { type FixedWindowLimiter, isRateLimited } from "../rate-limit.js";
import { eventRoutes } from "../routes/events.js";
import { healthRoute } from "../routes/health.js";
import { interactionRoutes } from "../routes/interactions.js";
import { notificationRoutes } from "../routes/notifications.js";

export interface V1Options {
  authToken: string;
  /** POSTs that create (spec 1, Limits): one window for the token. */
  limiter: FixedWindowLimiter;
  notifications: NotificationService;
  interactions: InteractionService;
  waiters: WaitRegistry;
  /** ARC 0.2 events (POST /v1/events). */
  events: ArcConsumer;
  clock: Clock;
  /** Process start, for `uptimeSeconds`. */
  startedAt: number;
}

/**
 * /v1 (spec 1, Endpoints): the bearer token on every request, then the rate limit, in this plugin's own onRequest
 * hook, so a route added below is guarded without being named anywhere else. The hook runs before the body is read,
 * and for unknown paths too (their 404 is this plugin's, behind the same checks).
 */
export const v1Api: FastifyPluginAsync<V1Options> = async (v1, options) => {
  v1.addHook("onRequest", async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, options.authToken)) {
      return reply.code(401).send({ error: "unauthorized" });
    }
    const route = request.routeOptions.url ?? request.url.split("?")[0] ?? "";
    // One counter per token: the token itself is never kept, only that it was the valid one.
    if (isRateLimited(request.method, route) && !options.limiter.take("token")) {
      return reply.code(429).header("retry-after", "1").send({ error: "rate limit exceeded" });
    }
    return undefined;
  });
  v1.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ error: "not found" });
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
};
