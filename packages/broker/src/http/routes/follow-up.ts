import type { PresenceStateName } from "@notify/contracts";
import type { FastifyPluginAsync } from "fastify";
import type { PresenceMonitor } from "../../attention/presence-monitor.js";
import type { FollowUpSettings } from "../../config/follow-up.js";

export interface FollowUpRouteOptions {
  followUp: FollowUpSettings;
  presence: PresenceMonitor;
}

/** GET /v1/follow-up's body: what a Stop hook needs to decide whether its finished turn asks for a reply. */
export interface FollowUpResponse {
  /** config.json `followUp.waitSeconds` as read at start; 0: follow-ups are off. */
  wait_seconds: number;
  max_in_a_row: number;
  /** The combined presence (docs/routing.md, "Presence"): only `present` keeps a finished turn from waiting. */
  presence: PresenceStateName;
}

/**
 * GET /v1/follow-up (docs/hooks.md, "Follow-ups"): one read before a Stop hook asks, so the hook (a command in
 * its own process, or the http hook inside the broker) decides with the broker's settings and presence.
 */
export const followUpRoutes: FastifyPluginAsync<FollowUpRouteOptions> = async (app, { followUp, presence }) => {
  app.get("/follow-up", async (): Promise<FollowUpResponse> => {
    return {
      wait_seconds: followUp.waitSeconds,
      max_in_a_row: followUp.maxInARow,
      presence: presence.snapshot().state,
    };
  });
};
