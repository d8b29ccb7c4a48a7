import type { FastifyInstance } from "fastify";
import type { DomainDeps } from "../../domain/deps.js";
import { enrollInstallation } from "../../domain/installations.js";
import { createDeviceJoinCode, createJoinCode, joinInstallation, ownerInstallations } from "../../domain/joins.js";
import { claimPairing, createPairing } from "../../domain/pairing.js";
import { normalizePairingCode } from "../../domain/tokens.js";
import {
  deviceAuth,
  deviceOf,
  enrollmentAuth,
  type Guards,
  installationAuth,
  installationOf,
  ipLimit,
  takeLimit,
} from "../auth.js";

/** Enrollment (operator token) and pairing (installation shows a code, a phone claims it). */
export function pairingRoutes(app: FastifyInstance, deps: DomainDeps, guards: Guards): void {
  app.post("/v1/installations", {
    onRequest: enrollmentAuth(guards),
    handler: async (request, reply) => reply.code(201).send(await enrollInstallation(deps, request.body)),
  });

  // Several machines, one phone (issue 37, item 2): a join code from an enrolled installation, claimed by another
  // broker, which becomes an installation of the same owner.
  app.post("/v1/joins", {
    onRequest: installationAuth(guards, "pairingCreate"),
    handler: async (request, reply) => {
      const installation = installationOf(request);
      // Its own bucket, per owner: an owner's machines share it (docs/relay.md, "Rate limits").
      takeLimit(guards, "joinCreate", installation.ownerId);
      return reply.code(201).send(await createJoinCode(deps, installation));
    },
  });
  // The same code made by the owner's paired phone (its "Add a machine"), in the same per-owner bucket.
  app.post("/v1/device/joins", {
    onRequest: deviceAuth(guards, "deviceAdmin"),
    handler: async (request, reply) => {
      const device = deviceOf(request);
      takeLimit(guards, "joinCreate", device.ownerId ?? device.id);
      return reply.code(201).send(await createDeviceJoinCode(deps, device));
    },
  });
  app.post("/v1/installations/join", {
    onRequest: ipLimit(guards, "claimPerIp"),
    handler: async (request, reply) => {
      limitCodeClaim(guards, request.body);
      return reply.code(201).send(await joinInstallation(deps, request.body));
    },
  });
  app.get("/v1/installations", {
    onRequest: installationAuth(guards, "deviceAdmin"),
    handler: async (request) => ownerInstallations(deps, installationOf(request)),
  });

  app.post("/v1/pairings", {
    onRequest: installationAuth(guards, "pairingCreate"),
    handler: async (request, reply) =>
      reply.code(201).send(await createPairing(deps, installationOf(request), request.body)),
  });

  app.post("/v1/pairings/claim", {
    onRequest: ipLimit(guards, "claimPerIp"),
    handler: async (request, reply) => {
      limitCodeClaim(guards, request.body);
      return reply.code(201).send(await claimPairing(deps, request.body));
    },
  });
}

/** A one-time code's claim (a phone's pairing, a machine's join): the relay-wide bucket, then the code's own. */
function limitCodeClaim(guards: Guards, body: unknown): void {
  const code = (body as { code?: unknown } | undefined)?.code;
  const normalized = typeof code === "string" ? normalizePairingCode(code) : undefined;
  takeLimit(guards, "claimAll", "all");
  if (normalized) takeLimit(guards, "claimPerCode", normalized);
}
