import type { FastifyPluginAsync } from "fastify";
import { type Clock, isoTime } from "../../domain/clock.js";
import type { NotificationService } from "../../notifications/service.js";
import { API_VERSION, VERSION } from "../../version.js";

export interface HealthOptions {
  notifications: NotificationService;
  clock: Clock;
  startedAt: number;
}

/** GET /health: unauthenticated liveness. */
export const livenessRoute: FastifyPluginAsync = async (app) => {
  app.get("/health", async () => ({ status: "ok" }));
};

/** GET /v1/health (HealthResponse); registered inside /v1, so the bearer hook guards it. */
export const healthRoute: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  app.get("/health", async () => {
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
};
