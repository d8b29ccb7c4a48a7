import type { FastifyPluginAsync } from "fastify";
import type { InteractionService } from "../../interactions/service.js";
import {
  parseAbandon,
  parseCreateInteraction,
  parseInteractionFilter,
  parseWaitTimeout,
} from "../../interactions/validate.js";
import type { WaitRegistry } from "../../interactions/waiters.js";
import type { Query } from "../../notifications/validate.js";

export interface InteractionRouteOptions {
  interactions: InteractionService;
  waiters: WaitRegistry;
}

type IdParams = { Params: { id: string } };

/** The interaction endpoints (docs/api.md, "Interactions"). */
export const interactionRoutes: FastifyPluginAsync<InteractionRouteOptions> = async (app, options) => {
  const { interactions, waiters } = options;

  app.post("/interactions/request", async (request, reply) => {
    const cancelWhenAbandoned = parseAbandon(request.query as Query);
    const { interaction, created } = interactions.request(parseCreateInteraction(request.body));
    // Only a question this request opened: an existing one under the same key keeps the terms its creator chose.
    if (cancelWhenAbandoned && created) waiters.cancelWhenAbandoned(interaction.id);
    return reply.code(created ? 201 : 200).send(interaction);
  });

  app.get("/interactions", async (request) => interactions.list(parseInteractionFilter(request.query as Query)));

  app.get<IdParams>("/interactions/:id", async (request) => interactions.get(request.params.id));

  app.get<IdParams>("/interactions/:id/wait", async (request) => {
    const seconds = parseWaitTimeout(request.query as Query);
    const cancelWhenAbandoned = parseAbandon(request.query as Query);
    // A client that hangs up stops waiting; nothing else is held for it. The listener goes with the request, so a
    // keep-alive connection that long-polls again and again does not pile them up.
    const socket = request.raw.socket;
    let cancel: (() => void) | undefined;
    const onClose = (): void => cancel?.();
    socket?.once("close", onClose);
    try {
      return await waiters.wait(
        request.params.id,
        seconds * 1000,
        (stop) => {
          cancel = stop;
        },
        { cancelWhenAbandoned },
      );
    } finally {
      socket?.off("close", onClose);
    }
  });

  app.post<IdParams>("/interactions/:id/respond", async (request) =>
    interactions.respond(request.params.id, request.body),
  );

  app.post<IdParams>("/interactions/:id/cancel", async (request) => interactions.cancel(request.params.id));

  app.post<IdParams>("/interactions/:id/publish", async (request) => interactions.publish(request.params.id));
};
