import type { FastifyPluginAsync } from "fastify";
import type { PresentationSettingsFile } from "../../config/presentation-settings.js";
import { parseBody, uiSchemas } from "../ui/zod-body.js";

export interface UiPresentationOptions {
  presentation: PresentationSettingsFile;
}

/**
 * /ui/api/presentation: the presentation keys (docs/desktop.md, "Local presentation rules"); a PUT changes the keys it
 * names and keeps the others.
 */
export const uiPresentationRoutes: FastifyPluginAsync<UiPresentationOptions> = async (app, { presentation }) => {
  app.get("/presentation", async () => presentation.get());
  app.put("/presentation", async (request) =>
    presentation.update(parseBody((await uiSchemas()).PresentationPatch, request.body)),
  );
};
