import type { FastifyInstance, FastifyRequest } from "fastify";
import type { DomainDeps } from "../../domain/deps.js";
import { listEnvelopes, postEnvelope } from "../../domain/envelopes.js";
import { RelayError } from "../../domain/errors.js";
import { deviceAuth, deviceOf, type Guards, installationAuth, installationOf } from "../auth.js";
import { abortOnClose, queryValue, waitSeconds } from "./query.js";

/**
 * `Idempotency-Key` (the IETF httpapi draft's and Stripe's name): 1-255 visible ASCII characters, taken as sent. A
 * repeated header arrives joined with ", " and is refused with the rest.
 */
function idempotencyKey(request: FastifyRequest): string | undefined {
  const value = request.headers["idempotency-key"];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new RelayError("invalid_request", "Idempotency-Key must be 1-255 visible ASCII characters");
  }
  return value;
}

/**
 * `Notify-Push: none` (Notify's addition, docs/relay.md): an envelope that asks nothing of the person (a machine's
 * sessions summary) is stored and fetched as any other, but wakes no phone. Any other value is refused.
 */
function wakes(request: FastifyRequest): boolean {
  const value = request.headers["notify-push"];
  if (value === undefined) return true;
  if (value !== "none") throw new RelayError("invalid_request", "Notify-Push must be none");
  return false;
}

/**
 * docs/relay.md, "`POST /v1/envelopes` (installation token)": the broker posts sealed envelopes, the phone fetches them
 * after a wake-up.
 */
export function envelopeRoutes(app: FastifyInstance, deps: DomainDeps, guards: Guards): void {
  app.post("/v1/envelopes", {
    onRequest: installationAuth(guards, "envelopePost"),
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(await postEnvelope(deps, installationOf(request), request.body, idempotencyKey(request), wakes(request))),
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
