import type { RouterServices } from "@notify/router";
import type { FastifyPluginAsync } from "fastify";
import { DomainError, invalid } from "../../domain/errors.js";
import { routerModule } from "../../model-router/lazy-router.js";

export interface UiRouterAccountsOptions {
  router: () => RouterServices;
}

type IdParams = { Params: { id: string } };

/**
 * /ui/api/router/accounts: saved provider accounts whose keys an upstream can use (`credential_ref`
 * `api_account:<id>`, docs/router.md "Subscriptions and saved accounts"). The key is write-only: it is sealed on
 * POST and never returned (`has_key`); an account is removed whole (no edit: a new key is a new account).
 * `from_tool: "codex"` instead of `key` saves the plain API key that tool holds (read only when asked, sealed like
 * a typed key, never returned). `POST /router/accounts/reconcile` runs smart switching rule 7 (one `plan_signin_a` provider per signed-in
 * account) on demand.
 */
export const uiRouterAccountsRoutes: FastifyPluginAsync<UiRouterAccountsOptions> = async (app, { router }) => {
  app.get("/router/accounts", async () => router().config.accounts.list());
  app.post("/router/accounts", async (request, reply) => {
    const body = request.body;
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw invalid("request body must be a JSON object");
    }
    // `from_tool` instead of `key`: the plain key that tool holds for the provider, read now because the owner asked.
    const { AccountInputError, isKeyTool, TOOL_KEY_SOURCES } = routerModule();
    const { from_tool: fromTool, ...fields } = body as Record<string, unknown>;
    if (fromTool !== undefined) {
      if (!isKeyTool(fromTool)) throw invalid(`from_tool must be one of ${Object.keys(TOOL_KEY_SOURCES).join(", ")}`);
      if (fields.key !== undefined) throw invalid("send key or from_tool, not both");
      const held = router().toolApiKey(fromTool);
      if (!held) throw invalid(`${fromTool} holds no API key`);
      if (fields.provider !== undefined && fields.provider !== held.provider) {
        throw invalid(`${fromTool} holds a key for provider ${held.provider}`);
      }
      fields.provider = held.provider;
      fields.key = held.key;
    }
    try {
      return reply.code(201).send(router().config.accounts.create(fields));
    } catch (error) {
      if (error instanceof AccountInputError) throw invalid(error.message);
      throw error;
    }
  });
  app.delete<IdParams>("/router/accounts/:id", async (request, reply) => {
    if (!router().config.accounts.delete(request.params.id)) {
      throw new DomainError("account_not_found");
    }
    return reply.code(204).send();
  });
  app.post("/router/accounts/reconcile", async () => router().reconcileAccounts());
};
