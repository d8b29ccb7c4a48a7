import type { RouterServices } from "@notify/router";
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import type { LazyRouter, RouterModule } from "../../model-router/lazy-router.js";
import { sendError } from "../errors.js";
import { frameworkErrors, lazyCompilers } from "../fastify-options.js";

/** Where the provider router answers (docs/router.md, "Endpoints"). */
export const ROUTER_PREFIX = "/router/v1";

export interface RouterMountOptions {
  /** The router, built on first use (router/lazy-router.ts). */
  host: LazyRouter;
  /** config.json's RouterEnabled: a router switched on is built once the broker listens. */
  enabled: () => boolean;
  warn: (message: string) => void;
}

/**
 * /router/v1: everything the router's plugin would match (its routes and its 404, every method) is handed, before
 * its body is read, to the router's own fastify instance (`routerApp`), built on the first such request. The model
 * endpoints of a built router are answered on its lane (http/app.ts) and never come here. Its body limit is the
 * router's own (RouterMaxRequestBodyBytes, docs/router.md, "Limits"), so the broker's is not applied here
 * (http/app.ts).
 */
export const routerMount: FastifyPluginAsync<RouterMountOptions> = async (scope, { host, enabled, warn }) => {
  scope.addHook("onRequest", async (request, reply) => {
    const mounted = await host.mount();
    reply.hijack();
    mounted.app.routing(request.raw, reply.raw);
    return reply;
  });
  const handedOn = async (): Promise<void> => {};
  scope.all("/", handedOn);
  scope.all("/*", handedOn);
  scope.setNotFoundHandler(handedOn);

  // Switched on at start: built once the broker listens, so /health does not wait for it.
  scope.addHook("onListen", (done) => {
    if (enabled()) host.mount().catch((error: Error) => warn(`router: cannot start: ${error.message}`));
    done();
  });
  scope.addHook("onClose", async () => {
    await host.close();
  });
};

/**
 * The fastify instance that answers /router/v1 behind `routerMount`: the router's plugin, with the broker's 404 and
 * URL errors. Closes the services when it cannot start.
 */
export async function routerApp(
  routerPlugin: RouterModule["routerPlugin"],
  services: RouterServices,
): Promise<FastifyInstance> {
  const inner = Fastify({
    frameworkErrors,
    logger: false,
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: { compilersFactory: lazyCompilers as never },
  });
  inner.setNotFoundHandler((_request, reply) => {
    sendError(reply, "not_found");
  });
  inner.register(routerPlugin, { prefix: ROUTER_PREFIX, router: services });
  try {
    await inner.ready();
  } catch (error) {
    await services.close();
    throw error;
  }
  return inner;
}
