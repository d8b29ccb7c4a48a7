import type { FastifyInstance } from "fastify";
import type { DomainDeps } from "../../domain/deps.js";
import { deleteInstallation } from "../../domain/installations.js";
import { type Guards, installationAuth, installationOf } from "../auth.js";

/** The calling installation itself (installation bearer): DELETE leaves the relay (`notify relay unenroll`). */
export function installationRoutes(app: FastifyInstance, deps: DomainDeps, guards: Guards): void {
  app.delete("/v1/installation", {
    onRequest: installationAuth(guards, "deviceAdmin"),
    handler: async (request) => deleteInstallation(deps, installationOf(request)),
  });
}
