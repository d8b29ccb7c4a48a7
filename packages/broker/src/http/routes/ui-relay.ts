import type { FastifyPluginAsync } from "fastify";
import type { RelayAdmin } from "../../relay/relay-admin.js";

export interface UiRelayOptions {
  admin: RelayAdmin;
}

type ProviderQuery = { Querystring: { provider?: string } };

/**
 * /ui/api/relay: enroll, pairing codes, the device list and revocation, for `notify relay ...` and the web page's
 * Relay panel. A relay that refuses or cannot be reached is a 502 naming only the status or a fixed code.
 */
export const uiRelayRoutes: FastifyPluginAsync<UiRelayOptions> = async (app, { admin }) => {
  app.post("/relay/enroll", async (request, reply) => {
    const body = (request.body ?? {}) as { url?: unknown; enrollmentToken?: unknown; name?: unknown };
    const profile = await admin.enroll(body);
    return reply.code(201).send(profile);
  });
  // Several machines, one phone (issue 37, item 2): a join code here, a join on the other machine, the list.
  app.post<ProviderQuery>("/relay/joins", async (request, reply) =>
    reply.code(201).send(await admin.joinCode(request.query.provider)),
  );
  app.post("/relay/join", async (request, reply) => {
    const body = (request.body ?? {}) as { url?: unknown; code?: unknown; name?: unknown };
    return reply.code(201).send(await admin.join(body));
  });
  app.get<ProviderQuery>("/relay/machines", async (request) => ({
    machines: await admin.machines(request.query.provider),
  }));
  app.post<ProviderQuery>("/relay/pairings", async (request, reply) =>
    reply.code(201).send(await admin.pairing(request.query.provider)),
  );
  // Receipts (issue 37, item 3): relay routes whose deliveries no phone fetched in time (Outbound page, doctor).
  app.get("/relay/unfetched", async () => admin.unfetched());
  app.get<ProviderQuery>("/relay/devices", async (request) => ({
    devices: await admin.devices(request.query.provider),
  }));
  // `notify relay unenroll` (issue 32, item 5): the installation deleted at the relay, then the provider here.
  app.post<ProviderQuery>("/relay/unenroll", async (request) => admin.unenroll(request.query.provider));
  app.delete<ProviderQuery & { Params: { id: string } }>("/relay/devices/:id", async (request, reply) => {
    await admin.revoke(request.params.id, request.query.provider);
    return reply.code(204).send();
  });
};
