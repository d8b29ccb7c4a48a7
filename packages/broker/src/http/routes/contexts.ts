import { checkItemContext, ITEM_CONTEXT_MAX_BYTES } from "@notify/contracts/item-context";
import type { FastifyPluginAsync } from "fastify";
import type { Clock } from "../../domain/clock.js";
import { invalid } from "../../domain/errors.js";
import type { UnitOfWork } from "../../domain/unit-of-work.js";
import type { ContextStore } from "../../store/context-store.js";

/** POST /v1/contexts reads a body up to this size: a full context plus its JSON's escaping. */
export const CONTEXT_BODY_MAX_BYTES = ITEM_CONTEXT_MAX_BYTES + 64 * 1024;
export const CONTEXTS_PATH = "/v1/contexts";

export interface ContextRouteOptions {
  contexts: ContextStore;
  clock: Clock;
  unit: UnitOfWork;
}

/**
 * POST /v1/contexts (docs/api.md, "Item context"): stores a question's context before the question, answering
 * 201 `{id, bytes, truncated}`; the question's ARC event names the id in `x-notify-context`. A context no event
 * claims within an hour is dropped.
 */
export const contextRoutes: FastifyPluginAsync<ContextRouteOptions> = async (app, { contexts, clock, unit }) => {
  app.post("/contexts", { bodyLimit: CONTEXT_BODY_MAX_BYTES }, async (request, reply) => {
    const checked = checkItemContext(request.body);
    if (!checked.ok) throw invalid(checked.error);
    const context = checked.value;
    const id = unit.run(() => contexts.stage(context, clock.now()));
    return reply.code(201).send({ id, bytes: context.bytes, truncated: context.truncated });
  });
};
