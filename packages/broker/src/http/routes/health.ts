import type { FastifyPluginAsync } from "fastify";
import { type Clock, isoTime } from "../../domain/clock.js";
import type { NotificationService } from "../../notifications/service.js";
import { API_VERSION, VERSION } from "../../version.js";

export interface HealthOptions {
  notifications: NotificationService;
  clock: Clock;
  startedAt: number;
}

/** GET /health (no token) and GET /v1/health (HealthResponse; the token is checked by the /v1 hook). */
export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  app.get("/health", async () => ({ status: "ok" }));
  app.register(
    async (v1) => {
      v1.get("/health", async () => {
        const now = options.clock.now();
        return {
          status: "ok",
          version: VERSION,
          pid: process.pid,
          uptimeSeconds: Math.max(0, (now - options.startedAt) / 1000),
          activeCount: options.notifications.countActive(),
          apiVersion: API_VERSION,
          serverTimeUtc: isoTime(now),
        };
      });
    },
    { prefix: "/v1" },
  );
};
