import type { FastifyInstance } from "fastify";
import { listAnswers, submitAnswer } from "../../domain/answers.js";
import type { DomainDeps } from "../../domain/deps.js";
import { deviceAuth, deviceOf, type Guards, installationAuth, installationOf } from "../auth.js";
import { abortOnClose, queryValue, waitSeconds } from "./query.js";

/** The phone posts answers, the broker polls them (docs/relay.md, "The relay contract (version 1)"). */
export function answerRoutes(app: FastifyInstance, deps: DomainDeps, guards: Guards): void {
  app.post("/v1/interaction-responses", {
    onRequest: deviceAuth(guards, "answerPost"),
    handler: async (request, reply) => {
      const outcome = await submitAnswer(deps, deviceOf(request), request.body);
      return reply.code(outcome.status === "accepted" ? 201 : 409).send(outcome);
    },
  });

  app.get("/v1/interaction-responses", {
    config: { errorStyle: "string" },
    onRequest: installationAuth(guards, "answerPoll"),
    handler: async (request, reply) =>
      listAnswers(
        deps,
        installationOf(request),
        {
          installationId: queryValue(request, "installation_id"),
          since: queryValue(request, "since"),
          wait: waitSeconds(request),
        },
        abortOnClose(reply),
      ),
  });
}
