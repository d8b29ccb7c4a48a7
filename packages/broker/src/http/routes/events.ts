import type { FastifyPluginAsync } from "fastify";
import type { ArcConsumer } from "../../events/arc-consumer.js";

export interface EventRouteOptions {
  events: ArcConsumer;
}

/**
 * POST /v1/events: one ARC 0.2 event; the body is always `{notification, interaction}`
 * (docs/api.md, "POST /v1/events").
 */
export const eventRoutes: FastifyPluginAsync<EventRouteOptions> = async (app, { events }) => {
  app.post("/events", async (request, reply) => {
    await events.ready();
    const { status, notification, interaction } = events.accept(request.body);
    return reply.code(status).send({ notification, interaction });
  });
};
