import type { ItemContext } from "@notify/contracts/item-context";
import type { FastifyPluginAsync } from "fastify";
import { DomainError } from "../../domain/errors.js";
import type { ContextStore } from "../../store/context-store.js";

type IdParams = { Params: { id: string } };

export interface UiContextOptions {
  contexts: ContextStore;
  /** The newest question of a notification, so either id of an item finds its context. */
  questionOf: (notificationId: string) => string | undefined;
}

/**
 * GET /ui/api/items/:id/context (docs/api.md, "Item context"): what a question carries besides its prompt, by the
 * question's id or its notification's. 404 `context not found` when it carries none.
 */
export const uiContextRoutes: FastifyPluginAsync<UiContextOptions> = async (app, { contexts, questionOf }) => {
  app.get<IdParams>("/items/:id/context", async (request): Promise<ItemContext> => {
    const id = request.params.id;
    const context = contexts.forInteraction(id) ?? contexts.forInteraction(questionOf(id) ?? "");
    if (context === undefined) throw new DomainError("context_not_found");
    return context;
  });
};
