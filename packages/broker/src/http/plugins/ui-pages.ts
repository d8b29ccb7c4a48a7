import { isLoopbackHost } from "@notify/contracts/guards";
import type { FastifyPluginAsync } from "fastify";
import { sendError } from "../errors.js";
import { type UiPageOptions, uiPageRoutes } from "../routes/ui-pages.js";

/**
 * The web page (GET /ui, /ui/*, /ui/login): a loopback Host only, as on /ui/api (docs/api.md, "Web UI API: `/ui/api`"),
 * in this plugin's own onRequest hook. The routes keep their full paths: other methods on /ui fall through to the
 * broker's 404 as before, and an unknown GET under /ui/api is answered by the page's route (a JSON 404).
 */
export const uiPages: FastifyPluginAsync<UiPageOptions> = async (pages, options) => {
  pages.addHook("onRequest", async (request, reply) => {
    if (!isLoopbackHost(request.headers.host)) return sendError(reply, "non_loopback_host");
    return undefined;
  });

  await pages.register(uiPageRoutes, options);
};
