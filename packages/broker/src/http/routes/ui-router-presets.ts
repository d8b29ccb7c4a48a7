import type { RouterServices } from "@notify/router";
import type { FastifyPluginAsync } from "fastify";
import { DomainError, invalid } from "../../domain/errors.js";
import { routerModule } from "../../model-router/lazy-router.js";
import { KEY_SOURCE_LABELS, type OtherTools } from "../../model-router/other-tools.js";
import { VERSION } from "../../version.js";

export interface UiRouterPresetOptions {
  router: () => RouterServices;
  tools: OtherTools;
  /** Test hook: a smaller model-list cap than 4 MiB. */
  maxModelListBytes?: number;
}

/** The catalogue as the page shows it; which tools may hold a key is static (nothing is read to list it). */
const presetList = () =>
  routerModule().PRESETS.map((preset) => ({
    slug: preset.slug,
    label: preset.label,
    kind: preset.kind,
    wire: preset.wire,
    base_url: preset.base_url,
    auth: preset.auth,
    needs_key: preset.needs_key,
    prefix_rules: preset.prefix_rules,
    model_list: preset.model_list,
    key_sources: preset.key_sources.map((id) => ({ id, label: KEY_SOURCE_LABELS[id] })),
    aggregator: preset.aggregator === true,
    source: preset.source,
  }));
let presets: ReturnType<typeof presetList> | undefined;

/**
 * /ui/api/router/presets and /ui/api/router/models/fetch (docs/router.md, Presets and Fetching model lists).
 * Registered next to ui-router.ts under the same /ui/api hooks (loopback Host, X-Notify-UI on changes, session).
 */
export const uiRouterPresetRoutes: FastifyPluginAsync<UiRouterPresetOptions> = async (app, options) => {
  app.get("/router/presets", async () => {
    presets ??= presetList();
    return presets;
  });
  app.post("/router/models/fetch", async (request) => {
    const body = request.body;
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw invalid("request body must be a JSON object");
    }
    const { FetchProblem, fetchModels } = await import("../../model-router/model-fetch.js");
    try {
      return await fetchModels(
        {
          config: () => options.router().config,
          tools: options.tools,
          version: VERSION,
          ...(options.maxModelListBytes !== undefined ? { maxBytes: options.maxModelListBytes } : {}),
        },
        body as Record<string, unknown>,
      );
    } catch (error) {
      if (error instanceof FetchProblem) {
        throw new DomainError("model_fetch_failed", error.message, { status: error.status });
      }
      throw error;
    }
  });
};
