import type { FastifyPluginAsync } from "fastify";
import { updateConfigFile } from "../../config/config-file.js";
import { parseTypeDefinitions } from "../../config/settings.js";
import { invalid } from "../../domain/errors.js";
import type { NotificationService } from "../../notifications/service.js";
import { TypeRegistry } from "../../notifications/type-ids.js";

export interface UiTypesOptions {
  dataDir: string;
  notifications: NotificationService;
  initial: TypeRegistry;
}

/**
 * /ui/api/types: custom notification type definitions. They are local presentation policy held in config.json
 * (docs/desktop.md, "Local presentation rules", rule 7); a PUT replaces the whole list, writes config.json atomically
 * (other keys kept) and takes effect at once.
 */
export const uiTypeRoutes: FastifyPluginAsync<UiTypesOptions> = async (app, options) => {
  let registry = options.initial;
  app.get("/types", async () => registry.all());
  app.put("/types", async (request) => {
    if (!Array.isArray(request.body)) throw invalid("body must be an array of type definitions");
    const problems: string[] = [];
    const definitions = parseTypeDefinitions(request.body, (message) =>
      problems.push(message.replace("config.json: ", "")),
    );
    if (problems.length > 0) throw invalid(problems.join("; "));
    const ids = new Set<string>();
    for (const definition of definitions) {
      if (ids.has(definition.id)) throw invalid(`type ${definition.id} is defined twice`);
      ids.add(definition.id);
    }
    updateConfigFile(options.dataDir, (contents) => {
      contents.notificationTypes = definitions;
    });
    registry = new TypeRegistry(definitions);
    options.notifications.setTypes(registry);
    return registry.all();
  });
};
