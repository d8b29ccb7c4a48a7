import type { FastifyPluginAsync } from "fastify";
import type { NotificationService } from "../../notifications/service.js";
import {
  parseCreateNotification,
  parseNotificationFilter,
  parseStatusChange,
  type Query,
} from "../../notifications/validate.js";

export interface NotificationRouteOptions {
  notifications: NotificationService;
}

type IdParams = { Params: { id: string } };

/** The notification endpoints (docs/api.md, "Notifications"). Thin: parse, call the service, send. */
export const notificationRoutes: FastifyPluginAsync<NotificationRouteOptions> = async (app, { notifications }) => {
  app.post("/notifications", async (request, reply) => {
    const { notification } = notifications.create(parseCreateNotification(request.body));
    // docs/api.md, "POST /v1/notifications": 201 with the notification, the same id on a dedup (201 either way).
    return reply.code(201).send(notification);
  });

  app.get("/notifications", async (request) => notifications.list(parseNotificationFilter(request.query as Query)));

  app.get<IdParams>("/notifications/:id", async (request) => notifications.get(request.params.id));

  app.patch<IdParams>("/notifications/:id", async (request) => {
    notifications.get(request.params.id); // an unknown id is 404 whatever the body says
    const status = parseStatusChange(request.body);
    return notifications.changeStatus(request.params.id, status);
  });

  app.post<IdParams>("/notifications/:id/dismiss", async (request) =>
    notifications.changeStatus(request.params.id, "dismissed"),
  );
};
