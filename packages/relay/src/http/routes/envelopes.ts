import type { FastifyInstance } from "fastify";
import type { DomainDeps } from "../../domain/deps.js";
import { listEnvelopes, postEnvelope } from "../../domain/envelopes.js";
import { deviceAuth, deviceOf, type Guards, installationAuth, installationOf } from "../auth.js";
import { abortOnClose, queryValue, waitSeconds } from "./query.js";

/** DESIGN.md, Relay: the broker posts sealed envelopes, the phone fetches them after a wake-up. */
export function envelopeRoutes(app: FastifyInstance, deps: DomainDeps, guards: Guards): void {
  app.post("/v1/envelopes", {
    onRequest: installationAuth(guards, "envelopePost"),
    handler: async (request, reply) =>
      reply.code(201).send(await postEnvelope(deps, installationOf(request), request.body)),
  });

  app.get("/v1/envelopes", {
    config: { errorStyle: "string" },
    onRequest: deviceAuth(guards, "envelopePoll"),
    handler: async (request, reply) =>
      listEnvelopes(
        deps,
        deviceOf(request),
        { since: queryValue(request, "since"), wait: waitSeconds(request) },
        abortOnClose(reply),
      ),
  });
}
