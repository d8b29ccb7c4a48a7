import type { ModelListSource } from "@notify/contracts/enums";
import {
  destinationProblem,
  normalizedBaseUrl,
  type Preset,
  presetBySlug,
  presetForBaseUrl,
  RECORD_WIRES,
  type RecordWire,
  type RouterConfig,
  ruleWireFor,
  type Upstream,
} from "@notify/router";
import { fetchModelList, MAX_FETCHED_MODELS, ModelListError } from "./model-list-fetch.js";
import {
  isKeySource,
  keyOrigin,
  OtherToolError,
  type OtherTools,
  readCodexModelCache,
  readOtherToolKey,
} from "./other-tools.js";

/**
 * POST /ui/api/router/models/fetch as a service (docs/router.md, "Fetching model lists"): which base URL, which key,
 * which list, and each model's wire. Nothing is saved. The route maps `FetchProblem` to its status and `{error}`.
 */

export class FetchProblem extends Error {
  constructor(
    readonly status: 400 | 404 | 502,
    message: string,
  ) {
    super(message);
    this.name = "FetchProblem";
  }
}

export interface FetchedModel {
  id: string;
  wire: RecordWire;
}

export interface FetchResult {
  models: FetchedModel[];
  /** More than 500 models were listed; the first 500 are here. */
  truncated: boolean;
  /** Models left out because their wire is one the router does not speak. */
  left_out: number;
  /** `provider`: the provider's own list; `host_cache`: the host tool's cached list. */
  source: ModelListSource;
}

export interface ModelFetchDeps {
  config: () => RouterConfig;
  tools: OtherTools;
  version: string;
  /** Test hook: a smaller reply cap. */
  maxBytes?: number;
}

const FIELDS = ["preset", "base_url", "wire", "key", "key_source", "upstream"];

const bad = (message: string): never => {
  throw new FetchProblem(400, message);
};

/** A key another tool holds, for a base URL of that tool's provider only. */
export function otherToolKeyFor(tools: OtherTools, source: unknown, baseUrl: string): string {
  if (!isKeySource(source)) bad("key_source must be codex or claude_code");
  const origin = keyOrigin(tools, source as "codex");
  if (new URL(baseUrl).origin !== new URL(origin).origin) {
    bad(`key_source ${String(source)} holds a key for ${origin} only`);
  }
  try {
    return readOtherToolKey(tools, source as "codex");
  } catch (error) {
    if (error instanceof OtherToolError) bad(error.message);
    throw error;
  }
}

function stringField(body: Record<string, unknown>, field: string, max: number): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length < 1 || value.length > max) {
    bad(`${field} must be a string of 1-${max} characters`);
  }
  return value as string;
}

export async function fetchModels(deps: ModelFetchDeps, body: Record<string, unknown>): Promise<FetchResult> {
  for (const field of Object.keys(body)) if (!FIELDS.includes(field)) bad(`unknown field: ${field}`);
  const presetSlug = stringField(body, "preset", 64);
  const upstreamRef = stringField(body, "upstream", 64);
  const typedKey = stringField(body, "key", 8192);
  const typedBase = stringField(body, "base_url", 2048);
  const typedWire = stringField(body, "wire", 32);
  if (typedKey !== undefined && body.key_source !== undefined) bad("send key or key_source, not both");
  let preset: Preset | undefined;
  if (presetSlug !== undefined) preset = presetBySlug(presetSlug) ?? bad(`unknown preset: ${presetSlug}`);
  let upstream: Upstream | undefined;
  if (upstreamRef !== undefined) {
    upstream = deps.config().findUpstream(upstreamRef);
    if (!upstream) throw new FetchProblem(404, "upstream not found");
  }
  const rawBase = typedBase ?? upstream?.base_url ?? preset?.base_url ?? bad("base_url is required");
  const problem = destinationProblem(rawBase as string);
  if (problem) bad(problem);
  const baseUrl = normalizedBaseUrl(rawBase as string);
  const wire = typedWire ?? upstream?.wire ?? preset?.wire ?? "chat_wire";
  if (!(RECORD_WIRES as readonly string[]).includes(wire)) bad(`wire must be one of ${RECORD_WIRES.join(", ")}`);
  const rules = (preset ?? presetForBaseUrl(baseUrl))?.prefix_rules ?? [];
  const wireOf = (id: string): RecordWire | null =>
    upstream?.model_wires[id] ?? ruleWireFor(rules, wire as RecordWire, id);

  const auth = preset?.auth ?? upstream?.auth ?? "api_key";
  let ids: string[];
  let source: FetchResult["source"];
  if (preset?.model_list === "host_cache" || auth !== "api_key") {
    // A subscription has no public list: the host tool's own cache, and no request leaves the machine.
    try {
      ids = readCodexModelCache(deps.tools);
    } catch (error) {
      if (error instanceof OtherToolError) throw new FetchProblem(502, error.message);
      throw error;
    }
    source = "host_cache";
  } else {
    let key: string | undefined = typedKey;
    if (key === undefined && body.key_source !== undefined) key = otherToolKeyFor(deps.tools, body.key_source, baseUrl);
    // The stored key goes only where it was saved for: the same base URL, unchanged.
    if (key === undefined && body.key_source === undefined && upstream?.has_key && upstream.base_url === baseUrl) {
      try {
        key = deps.config().openKey(upstream);
      } catch {
        throw new FetchProblem(502, "the stored key cannot be opened");
      }
    }
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": `notify-router/${deps.version}`,
    };
    if (wire === "messages_wire") {
      headers["anthropic-version"] = "2023-06-01";
      if (key !== undefined) headers["x-api-key"] = key;
    } else if (key !== undefined) {
      headers.authorization = `Bearer ${key}`;
    }
    try {
      ids = await fetchModelList({
        url: `${baseUrl}/models`,
        headers,
        ...(deps.maxBytes !== undefined ? { maxBytes: deps.maxBytes } : {}),
      });
    } catch (error) {
      if (error instanceof ModelListError) throw new FetchProblem(502, error.message);
      throw error;
    }
    source = "provider";
  }

  const models: FetchedModel[] = [];
  let leftOut = 0;
  let truncated = false;
  for (const id of ids) {
    const modelWire = wireOf(id);
    if (modelWire === null) {
      leftOut++;
      continue;
    }
    if (models.length === MAX_FETCHED_MODELS) {
      truncated = true;
      break;
    }
    models.push({ id, wire: modelWire });
  }
  return { models, truncated, left_out: leftOut, source };
}
