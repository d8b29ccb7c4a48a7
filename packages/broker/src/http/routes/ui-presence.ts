import type { PresenceActivityResponse } from "@notify/contracts";
import type { FastifyPluginAsync } from "fastify";
import type { PresenceMonitor } from "../../attention/presence-monitor.js";
import { parseBody } from "../ui/zod-body.js";

export interface UiPresenceOptions {
  presence: PresenceMonitor;
}

/**
 * /ui/api/presence (docs/routing.md, "Presence"): the combined state with its sources, and the activity a visible
 * page reports (docs/routing.md, "Presence").
 */
/** A quarter of awayAfterSeconds, 1-30 s: the default 300 gives 30 s. */
export function reportEverySeconds(awayAfterSeconds: number): number {
  return Math.min(30, Math.max(1, Math.floor(awayAfterSeconds / 4)));
}

export const uiPresenceRoutes: FastifyPluginAsync<UiPresenceOptions> = async (app, { presence }) => {
  app.get("/presence", async () => presence.response());
  app.post("/presence/activity", async (request) => {
    const body = parseBody((await import("@notify/contracts")).PresenceActivityBody, request.body);
    presence.pageActivity(body.page, body.visible);
    const answer: PresenceActivityResponse = { report_every_seconds: reportEverySeconds(presence.awayAfterSeconds) };
    return answer;
  });
};
