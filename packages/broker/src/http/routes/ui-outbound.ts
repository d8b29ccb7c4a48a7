import type { OutboundConnection } from "@notify/contracts/ui";
import type { FastifyPluginAsync } from "fastify";
import { DomainError, invalid } from "../../domain/errors.js";
import { parseLimit, type Query, queryValue } from "../../notifications/validate.js";
import type { Dispatcher } from "../../outbox/dispatcher.js";
import type { OutboundService, ProfileInput, RouteInput } from "../../outbox/outbound-service.js";
import { type PhoneSummary, testRoutes } from "../../outbox/route-test.js";
import { OUTBOX_STATUSES, type OutboxStatus } from "../../outbox/types.js";
import type { OutboxStore } from "../../store/outbox-store.js";

export interface UiOutboundOptions {
  outbound: OutboundService;
  dispatcher: Dispatcher;
  outbox: OutboxStore;
  /** A chat provider's answer loop state (connected / retrying + last code), added as `connection`. */
  chatConnection?: (providerId: string) => OutboundConnection | undefined;
  /** A relay provider's paired phones, for `notify test`. */
  relayPhones?: (providerId: string) => Promise<PhoneSummary[]>;
}

type IdParams = { Params: { id: string } };

/**
 * /ui/api/outbound: provider profiles, routes and the outbox for the web page, `notify apply` and `notify
 * outbound`. Secrets are write-only: responses carry `secretNames`, never values (docs/api.md, /ui/api).
 */
export const uiOutboundRoutes: FastifyPluginAsync<UiOutboundOptions> = async (
  app,
  { outbound, dispatcher, outbox, chatConnection, relayPhones },
) => {
  app.get("/outbound/kinds", async () =>
    outbound.adapterList().map((adapter) => ({ kind: adapter.kind, secrets: adapter.secrets })),
  );

  app.get("/outbound/providers", async () =>
    outbound.listProfiles().map((profile) => {
      const connection = chatConnection?.(profile.id);
      return connection === undefined ? profile : { ...profile, connection };
    }),
  );
  app.post("/outbound/providers", async (request, reply) =>
    reply.code(201).send(outbound.saveProfile(bodyObject(request.body) as ProfileInput)),
  );
  app.patch<IdParams>("/outbound/providers/:id", async (request) => {
    const profile = outbound.findProfile(request.params.id);
    if (!profile) throw new DomainError("outbound_provider_not_found");
    return outbound.saveProfile(bodyObject(request.body) as ProfileInput, profile.id);
  });
  app.delete<IdParams>("/outbound/providers/:id", async (request, reply) => {
    const profile = outbound.findProfile(request.params.id);
    if (!profile) throw new DomainError("outbound_provider_not_found");
    outbound.deleteProfile(profile.id);
    return reply.code(204).send();
  });
  app.post<IdParams>("/outbound/providers/:id/test", async (request) => {
    const profile = outbound.findProfile(request.params.id);
    if (!profile) throw new DomainError("outbound_provider_not_found");
    return outbound.test(profile.id);
  });

  // `notify test [ROUTE]` (issue 37, item 5): every enabled route, or the one named, tested hop by hop.
  app.post("/outbound/test", async (request) => {
    const body = request.body === undefined || request.body === null ? {} : bodyObject(request.body);
    const route = (body as { route?: unknown }).route;
    if (route !== undefined && (typeof route !== "string" || route === "" || route.length > 200)) {
      throw invalid("route must be a route's name or id");
    }
    const extra = Object.keys(body).find((key) => key !== "route");
    if (extra !== undefined) throw invalid(`unknown field ${extra}`);
    return testRoutes(outbound, route, {
      ...(chatConnection ? { connection: chatConnection } : {}),
      ...(relayPhones ? { phones: relayPhones } : {}),
    });
  });

  app.get("/outbound/routes", async () => outbound.listRoutes());
  app.post("/outbound/routes", async (request, reply) =>
    reply.code(201).send(outbound.saveRoute(bodyObject(request.body) as RouteInput)),
  );
  app.patch<IdParams>("/outbound/routes/:id", async (request) => {
    const route = outbound.findRoute(request.params.id);
    if (!route) throw new DomainError("outbound_route_not_found");
    return outbound.saveRoute(bodyObject(request.body) as RouteInput, route.id);
  });
  app.delete<IdParams>("/outbound/routes/:id", async (request, reply) => {
    const route = outbound.findRoute(request.params.id);
    if (!route) throw new DomainError("outbound_route_not_found");
    outbound.deleteRoute(route.id);
    return reply.code(204).send();
  });

  app.get("/outbound/outbox", async (request) => {
    const query = request.query as Query;
    const status = queryValue(query, "status");
    if (status !== undefined && !(OUTBOX_STATUSES as readonly string[]).includes(status)) {
      throw invalid(`status must be one of ${OUTBOX_STATUSES.join(", ")}`);
    }
    await outbox.caughtUp();
    return {
      counts: outbox.counts(),
      items: outbox.list({ ...(status ? { status: status as OutboxStatus } : {}), limit: parseLimit(query) }),
    };
  });
  app.post<IdParams>("/outbound/outbox/:id/retry", async (request) => {
    const item = dispatcher.retry(request.params.id);
    if (!item) throw new DomainError("outbox_item_not_found");
    return item;
  });
};

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw invalid("request body must be a JSON object");
  return body as Record<string, unknown>;
}
