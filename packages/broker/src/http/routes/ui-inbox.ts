import type { InboxSnapshot, UiInteraction } from "@notify/contracts/ui";
import type { FastifyPluginAsync } from "fastify";
import { invalid } from "../../domain/errors.js";
import type { InteractionService } from "../../interactions/service.js";
import type { NotificationService } from "../../notifications/service.js";
import type { UiEventLog } from "../ui/ui-event-log.js";
import { parseBody, uiSchemas } from "../ui/zod-body.js";

export interface UiInboxOptions {
  notifications: NotificationService;
  interactions: InteractionService;
  events: UiEventLog;
}

type IdParams = { Params: { id: string } };

/** How much history the page's first picture holds (its list is virtualized; docs/api.md). */
export const INBOX_NOTIFICATIONS = 10_000;
export const INBOX_INTERACTIONS = 2_000;

/**
 * A question as the page gets it: the DTO plus the notification raised with it and whether the page answered it
 * (docs/api.md, /ui/api). The snapshot, the item route, the answer route and the stream all serve this shape.
 */
export function uiInteraction(interactions: InteractionService, item: UiInteraction): UiInteraction {
  const facts = interactions.uiFacts(item.id);
  return Object.keys(facts).length === 0 ? item : { ...item, ...facts };
}

/**
 * /ui/api inbox routes: the page's snapshot, and the person's actions on it. An answer takes the very path of
 * POST /v1/interactions/{id}/respond (same checks, same replay by response_id), with `source` = `desktop`, and
 * records that it came through here (`answered_via: "ui"`) so the page names itself, not a toast, as the answerer.
 */
export const uiInboxRoutes: FastifyPluginAsync<UiInboxOptions> = async (app, options) => {
  const { notifications, interactions, events } = options;

  app.get("/inbox", async (request): Promise<InboxSnapshot> => {
    const raw = (request.query as Record<string, unknown>).limit;
    const limit = raw === undefined ? undefined : Number(raw);
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > INBOX_NOTIFICATIONS)) {
      throw invalid(`limit must be an integer 1-${INBOX_NOTIFICATIONS}`);
    }
    // The cursor is taken first: an event between it and the reads is sent again by the stream, and the page
    // applies a newer copy of a row over an older one, so nothing is missed and nothing shows twice.
    const cursor = events.cursor();
    return {
      cursor,
      notifications: notifications.list({ limit: limit ?? INBOX_NOTIFICATIONS }),
      interactions: interactions
        .list({ limit: Math.min(limit ?? INBOX_INTERACTIONS, INBOX_INTERACTIONS) })
        .map((item) => uiInteraction(interactions, item)),
    };
  });

  app.get<IdParams>("/notifications/:id", async (request) => notifications.get(request.params.id));
  app.patch<IdParams>("/notifications/:id", async (request) => {
    const { status } = parseBody((await uiSchemas()).NotificationStatusBody, request.body);
    return notifications.changeStatus(request.params.id, status);
  });

  app.get<IdParams>("/interactions/:id", async (request) =>
    uiInteraction(interactions, interactions.get(request.params.id)),
  );
  app.post<IdParams>("/interactions/:id/respond", async (request) => {
    const body = parseBody((await uiSchemas()).UiRespondBody, request.body);
    return uiInteraction(interactions, interactions.respond(request.params.id, { ...body, source: "desktop" }, "ui"));
  });
};
