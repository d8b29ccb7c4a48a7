import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigSnapshot } from "@notify/router";
import { routedSelectors, type Selector } from "./selectors.js";

/**
 * Host A's model catalogue (docs/connectors.md, "The catalogue"). Codex reads the file named by `model_catalog_json` in
 * config.toml instead of its built-in list: a `ModelsResponse`, `{"models": [ModelInfo, ...]}`, at least one entry
 * (codex-rs/protocol/src/openai_models.rs `ModelInfo`/`ModelsResponse`; the key is listed in the pinned 0.169.0
 * binary's `ConfigToml` and documented at https://ngrok.com/docs/ai-gateway/agents/codex "Loads model details from
 * the catalog you saved"). The field set below follows the entries Codex 0.169.0 bundles.
 */

/** The router's own short instructions: every generated entry carries them instead of a vendor's system prompt. */
export const ROUTER_INSTRUCTIONS = [
  "You are a coding agent working in the user's terminal through the Notify provider router.",
  "Read the repository before changing it, make small verifiable changes, and run commands with the shell tool",
  "to inspect files and check your work. Say briefly what you did and what is left.",
].join(" ");

/**
 * Every entry declares this window (docs/connectors.md, "The catalogue": every entry declares a 200k context window).
 */
export const CONTEXT_WINDOW = 200_000;

/**
 * `shell_command`: one ordinary function-call tool taking a command string (Codex `ConfigShellToolType::ShellCommand`).
 * Never `local`, the host's built-in local-shell item type that other upstreams cannot carry.
 */
export const SHELL_TYPE = "shell_command";

const EFFORTS = [
  ["low", "Fast responses with lighter reasoning"],
  ["medium", "Balances speed and reasoning depth"],
  ["high", "Greater reasoning depth for complex problems"],
  ["xhigh", "Extra high reasoning depth"],
] as const;

type Entry = Record<string, unknown>;

/** A catalogue entry for a routed selector that has no entry of the host's own to copy. */
export function routedEntry(selector: Selector, priority: number): Entry {
  const description =
    selector.kind === "model"
      ? `${selector.upstream?.label ?? ""} through the Notify router`.trim()
      : `Notify router ${selector.kind}`;
  return {
    slug: selector.id,
    display_name: selector.id,
    description,
    default_reasoning_level: "medium",
    supported_reasoning_levels: EFFORTS.map(([effort, text]) => ({ effort, description: text })),
    shell_type: SHELL_TYPE,
    visibility: "list",
    supported_in_api: true,
    priority,
    availability_nux: null,
    upgrade: null,
    base_instructions: ROUTER_INSTRUCTIONS,
    model_messages: null,
    supports_reasoning_summaries: false,
    default_reasoning_summary: "none",
    support_verbosity: false,
    default_verbosity: null,
    apply_patch_tool_type: "freeform",
    web_search_tool_type: "text",
    truncation_policy: { mode: "tokens", limit: 10_000 },
    supports_parallel_tool_calls: false,
    supports_image_detail_original: false,
    context_window: CONTEXT_WINDOW,
    max_context_window: CONTEXT_WINDOW,
    effective_context_window_percent: 95,
    experimental_supported_tools: [],
    input_modalities: ["text", "image"],
    prefer_websockets: false,
    use_responses_lite: false,
    supports_search_tool: false,
    tool_mode: "direct",
    additional_speed_tiers: [],
    service_tiers: [],
  };
}

/**
 * The host's own cached model list (`<CODEX_HOME>/models_cache.json`, `{fetched_at, etag, client_version, models}`,
 * written by Codex after it fetches `/models`), or [] when there is none or it cannot be read.
 */
export function hostCachedModels(accountDir: string): Entry[] {
  try {
    const parsed = JSON.parse(readFileSync(join(accountDir, "models_cache.json"), "utf8")) as { models?: unknown };
    return Array.isArray(parsed.models)
      ? parsed.models.filter((entry): entry is Entry => entry !== null && typeof entry === "object")
      : [];
  } catch {
    return [];
  }
}

/**
 * One entry per `provider/model`, alias and `combo/<name>`, in GET /router/v1/models order. A model of a
 * `plan_signin_a` upstream (the host's own subscription) copies the host's cached entry for that model with only
 * slug, display name and priority changed, so it keeps the vendor's own prompt and tools; every other entry is
 * the router's generic one.
 */
export function buildCodexCatalog(snapshot: ConfigSnapshot, hostModels: Entry[]): { models: Entry[] } {
  const models = routedSelectors(snapshot).map((selector, index) => {
    const own =
      selector.kind === "model" && selector.upstream?.auth === "plan_signin_a"
        ? hostModels.find((entry) => entry.slug === selector.model)
        : undefined;
    if (own) return { ...structuredClone(own), slug: selector.id, display_name: selector.id, priority: index };
    return routedEntry(selector, index);
  });
  return { models };
}
