import type { ItemTimeline } from "@notify/contracts/ui";
import type { FastifyPluginAsync } from "fastify";
import type { ItemTimelines } from "../../attention/timeline.js";

type IdParams = { Params: { id: string } };

/**
 * The delivery timeline of an item (issue 24 item 5; docs/api.md, docs/routing.md): read only, under the /ui/api
 * guards like every route of the page. Either id of a question and its notification half gives the same entries;
 * an unknown id is 404 `notification not found` / `interaction not found`.
 */
export const uiTimelineRoutes: FastifyPluginAsync<{ timelines: ItemTimelines }> = async (app, { timelines }) => {
  app.get<IdParams>(
    "/notifications/:id/timeline",
    async (request): Promise<ItemTimeline> => timelines.forNotification(request.params.id),
  );
  app.get<IdParams>(
    "/interactions/:id/timeline",
    async (request): Promise<ItemTimeline> => timelines.forInteraction(request.params.id),
  );
};
