import type { FastifyInstance } from "fastify";
import type { DomainDeps } from "../../domain/deps.js";
import { describeDevice, listDevices, revokeDevice, updatePushSubscription } from "../../domain/devices.js";
import { deviceAuth, deviceOf, type Guards, installationAuth, installationOf } from "../auth.js";

export function deviceRoutes(app: FastifyInstance, deps: DomainDeps, guards: Guards): void {
  app.get("/v1/device", {
    onRequest: deviceAuth(guards, "deviceAdmin"),
    handler: async (request) => describeDevice(deviceOf(request)),
  });

  app.put("/v1/device/push-subscription", {
    onRequest: deviceAuth(guards, "deviceAdmin"),
    handler: async (request, reply) => {
      await updatePushSubscription(deps, deviceOf(request), request.body);
      return reply.code(204).send();
    },
  });

  app.get("/v1/devices", {
    onRequest: installationAuth(guards, "deviceAdmin"),
    handler: async (request) => listDevices(deps, installationOf(request)),
  });

  app.delete<{ Params: { deviceId: string } }>("/v1/devices/:deviceId", {
    onRequest: installationAuth(guards, "deviceAdmin"),
    handler: async (request, reply) => {
      await revokeDevice(deps, installationOf(request), request.params.deviceId);
      return reply.code(204).send();
    },
  });
}
