import type { RouterRoute, RouterStatus, RouterUpstream } from "@notify/contracts/ui";
import type { RouterServices, Upstream } from "@notify/router";
import type { FastifyPluginAsync } from "fastify";
import { DomainError, invalid } from "../../domain/errors.js";
import { routerModule } from "../../model-router/lazy-router.js";
import type { RouterSettingsFile } from "../../model-router/router-settings.js";

/**
 * Registered behind a hook that builds the router first (http/plugins/ui-api.ts): `router()` and `routerModule()`
 * are ready.
 */
export interface UiRouterOptions {
  router: () => RouterServices;
  settings: RouterSettingsFile;
  /** Turns `preset` and `key_source` of an upstream save into record fields (router/upstream-input.ts). */
  prepareUpstream?: (
    input: Record<string, unknown>,
    existing: Upstream | undefined,
  ) => Promise<Record<string, unknown>>;
}

type IdParams = { Params: { id: string } };

function body(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw invalid("request body must be a JSON object");
  return value as Record<string, unknown>;
}

/** Configuration errors of the router become the broker's 400 `{error}`. */
function guarded<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof routerModule().RouterConfigError) throw invalid(error.message);
    throw error;
  }
}

/**
 * /ui/api/router: upstreams, routes, settings and activity for the web page, `notify apply` and `notify router`.
 * Upstream keys are write-only (`has_key` only); the router key is never returned (`notify router key` reads it
 * from config.json).
 */
export const uiRouterRoutes: FastifyPluginAsync<UiRouterOptions> = async (
  app,
  { router, settings, prepareUpstream },
) => {
  const upstreamInput = async (value: unknown, existing?: Upstream) =>
    prepareUpstream ? prepareUpstream(body(value), existing) : body(value);
  const status = (): RouterStatus => {
    const current = settings.get();
    const { upstreams, routes, settings: routing } = router().config.snapshot();
    return {
      enabled: current.enabled,
      has_key: current.key !== undefined,
      base_path: "/router/v1",
      max_request_body_bytes: current.maxRequestBodyBytes,
      ledger_retention_days: current.ledgerRetentionDays,
      upstreams: upstreams.length,
      routes: routes.length,
      ...routing,
    } satisfies RouterStatus;
  };
  app.get("/router/status", async () => status());
  app.put("/router/settings", async (request) => {
    const input = body(request.body);
    const { enabled, max_request_body_bytes, ledger_retention_days, ...routing } = input;
    if (enabled !== undefined && typeof enabled !== "boolean") throw invalid("enabled must be true or false");
    for (const [name, value] of [
      ["max_request_body_bytes", max_request_body_bytes],
      ["ledger_retention_days", ledger_retention_days],
    ] as const) {
      if (value !== undefined && (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0)) {
        throw invalid(`${name} must be a positive integer`);
      }
    }
    if (Object.keys(routing).length > 0) guarded(() => router().config.saveSettings(routing));
    settings.update({
      ...(enabled !== undefined ? { enabled: enabled as boolean } : {}),
      ...(max_request_body_bytes !== undefined ? { maxRequestBodyBytes: max_request_body_bytes as number } : {}),
      ...(ledger_retention_days !== undefined ? { ledgerRetentionDays: ledger_retention_days as number } : {}),
    });
    return status();
  });
  app.post("/router/key/regenerate", async () => {
    settings.update({ regenerateKey: true });
    return { regenerated: true };
  });

  app.get("/router/upstreams", async () => router().config.snapshot().upstreams satisfies readonly RouterUpstream[]);
  app.post("/router/upstreams", async (request, reply) => {
    const input = await upstreamInput(request.body);
    return reply.code(201).send(guarded(() => router().config.saveUpstream(input)));
  });
  // An upstream is named by its id or its slug; an unknown one is 404, not a validation error.
  app.patch<IdParams>("/router/upstreams/:id", async (request) => {
    const existing = router().config.findUpstream(request.params.id);
    if (!existing) throw new DomainError("upstream_not_found");
    const input = await upstreamInput(request.body, existing);
    return guarded(() => router().config.saveUpstream(input, request.params.id));
  });
  app.delete<IdParams>("/router/upstreams/:id", async (request, reply) => {
    if (!router().config.findUpstream(request.params.id)) throw new DomainError("upstream_not_found");
    guarded(() => router().config.deleteUpstream(request.params.id));
    return reply.code(204).send();
  });

  app.get("/router/routes", async () => router().config.snapshot().routes satisfies readonly RouterRoute[]);
  app.post("/router/routes", async (request, reply) =>
    reply.code(201).send(guarded(() => router().config.saveRoute(body(request.body)))),
  );
  app.patch<IdParams>("/router/routes/:id", async (request) => {
    if (!router().config.findRoute(request.params.id)) throw new DomainError("router_route_not_found");
    return guarded(() => router().config.saveRoute(body(request.body), request.params.id));
  });
  app.delete<IdParams>("/router/routes/:id", async (request, reply) => {
    if (!router().config.findRoute(request.params.id)) throw new DomainError("router_route_not_found");
    guarded(() => router().config.deleteRoute(request.params.id));
    return reply.code(204).send();
  });

  // Effort mapping (docs/router.md): families with their automatic tables, and the two override sets.
  const effort = () => routerModule().effortView(router().config.snapshot());
  app.get("/router/effort", async () => effort());
  app.put<IdParams>("/router/effort/families/:id", async (request) => {
    if (!routerModule().familyById(request.params.id)) throw new DomainError("effort_family_not_found");
    guarded(() => router().config.saveEffortOverride("family", request.params.id, body(request.body)));
    return effort();
  });
  app.delete<IdParams>("/router/effort/families/:id", async (request, reply) => {
    if (!router().config.snapshot().effort?.families[request.params.id]) {
      throw new DomainError("family_override_not_found");
    }
    router().config.saveEffortOverride("family", request.params.id, null);
    return reply.code(204).send();
  });
  // A model is `provider/model` (slashes inside): it travels in the body, and in the query string to delete.
  app.put("/router/effort/models", async (request) => {
    const { model, ...set } = body(request.body);
    if (typeof model !== "string") throw invalid("model must be a provider/model string");
    guarded(() => router().config.saveEffortOverride("model", model, set));
    return effort();
  });
  app.delete("/router/effort/models", async (request, reply) => {
    const model = (request.query as Record<string, string | undefined>).model;
    if (model === undefined || !router().config.snapshot().effort?.models[model]) {
      throw new DomainError("model_override_not_found");
    }
    router().config.saveEffortOverride("model", model, null);
    return reply.code(204).send();
  });

  app.get("/router/activity", async (request) => {
    const raw = (request.query as Record<string, string | undefined>).limit;
    const limit = raw === undefined ? 50 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw invalid("limit must be an integer 1-500");
    return router().ledger.activity(limit);
  });
};
