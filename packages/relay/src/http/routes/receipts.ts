import type { FastifyInstance } from "fastify";
import type { DomainDeps } from "../../domain/deps.js";
import { listReceipts, postReceipt } from "../../domain/receipts.js";
import { deviceAuth, deviceOf, type Guards, installationAuth, installationOf } from "../auth.js";
import { abortOnClose, queryValue, waitSeconds } from "./query.js";

type EnvelopeParams = { Params: { envelope_id: string } };

/** docs/relay.md, "Receipts": the phone reports what it showed and opened, the broker reads them back. */
export function receiptRoutes(app: FastifyInstance, deps: DomainDeps, guards: Guards): void {
  app.post<EnvelopeParams>("/v1/envelopes/:envelope_id/receipts", {
    onRequest: deviceAuth(guards, "receiptPost"),
    handler: async (request, reply) => {
      const { created, receipt } = await postReceipt(deps, deviceOf(request), request.params.envelope_id, request.body);
      return reply.code(created ? 201 : 200).send(receipt);
    },
  });

  app.get("/v1/receipts", {
    config: { errorStyle: "string" },
    onRequest: installationAuth(guards, "receiptPoll"),
    handler: async (request, reply) =>
      listReceipts(
        deps,
        installationOf(request),
        { since: queryValue(request, "since"), wait: waitSeconds(request) },
        abortOnClose(reply),
      ),
  });
}
