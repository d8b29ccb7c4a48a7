import { AccountInputError, type RouterServices } from "@notify/router";
import type { FastifyPluginAsync } from "fastify";
import { invalid } from "../../domain/errors.js";

export interface UiRouterAccountsOptions {
  router: () => RouterServices;
}

type IdParams = { Params: { id: string } };

/**
 * /ui/api/router/accounts: saved provider accounts whose keys an upstream can use (`credential_ref`
 * `api_account:<id>`, docs/router.md "Subscriptions and saved accounts"). The key is write-only: it is sealed on
 * POST and never returned (`has_key`); an account is removed whole (no edit: a new key is a new account).
 * `POST /router/accounts/reconcile` runs smart switching rule 7 (one `plan_signin_a` provider per signed-in
 * account) on demand.
 */
export const uiRouterAccountsRoutes: FastifyPluginAsync<UiRouterAccountsOptions> = async (app, { router }) => {
  app.get("/router/accounts", async () => router().config.accounts.list());
  app.post("/router/accounts", async (request, reply) => {
    const body = request.body;
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw invalid("request body must be a JSON object");
    }
    try {
      return reply.code(201).send(router().config.accounts.create(body as Record<string, unknown>));
    } catch (error) {
      if (error instanceof AccountInputError) throw invalid(error.message);
      throw error;
    }
  });
  app.delete<IdParams>("/router/accounts/:id", async (request, reply) => {
    if (!router().config.accounts.delete(request.params.id)) {
      return reply.code(404).send({ error: "account not found" });
    }
    return reply.code(204).send();
  });
  app.post("/router/accounts/reconcile", async () => router().reconcileAccounts());
};
