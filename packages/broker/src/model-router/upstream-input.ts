import {
  destinationProblem,
  normalizedBaseUrl,
  presetBySlug,
  presetForBaseUrl,
  RECORD_WIRES,
  type RecordWire,
  type Upstream,
  wireModels,
} from "@notify/router";
import { invalid } from "../domain/errors.js";
import { FetchProblem, otherToolKeyFor } from "./model-fetch.js";
import type { OtherTools } from "./other-tools.js";

/**
 * Two fields an upstream save may carry beyond the record's own (docs/router.md, Presets), turned into record fields
 * before the router's own rules run:
 * - `preset`: fills wire, base_url, auth, label and (for a new upstream) slug where the body leaves them out.
 * - `key_source` (`codex`, `claude_code`): the plain key that tool holds for the same provider, read now and sealed
 *   like a typed key; never returned.
 * And whenever `models` is sent without `model_wires`, a preset's prefix rules (the named one, or the one whose
 * base URL this is) fill `model_wires` and leave out models on a wire the router does not speak.
 */
export function prepareUpstreamInput(
  input: Record<string, unknown>,
  existing: Upstream | undefined,
  tools: OtherTools,
): Record<string, unknown> {
  const { preset: presetSlug, key_source: keySource, ...fields } = input;
  let preset = undefined as ReturnType<typeof presetBySlug>;
  if (presetSlug !== undefined) {
    if (typeof presetSlug !== "string" || !presetBySlug(presetSlug)) throw invalid("unknown preset");
    preset = presetBySlug(presetSlug);
  }
  if (preset) {
    fields.wire ??= existing ? undefined : preset.wire;
    fields.base_url ??= existing ? undefined : preset.base_url;
    fields.auth ??= existing ? undefined : preset.auth;
    fields.label ??= existing ? undefined : preset.label;
    fields.slug ??= existing ? undefined : preset.slug;
    for (const field of ["wire", "base_url", "auth", "label", "slug"]) {
      if (fields[field] === undefined) delete fields[field];
    }
  }
  const baseUrl = fields.base_url ?? existing?.base_url;
  const wire = fields.wire ?? existing?.wire;
  const rules =
    preset?.prefix_rules ??
    (typeof baseUrl === "string" && destinationProblem(baseUrl) === undefined
      ? presetForBaseUrl(normalizedBaseUrl(baseUrl))?.prefix_rules
      : undefined);
  if (
    rules !== undefined &&
    fields.model_wires === undefined &&
    Array.isArray(fields.models) &&
    fields.models.every((model) => typeof model === "string") &&
    typeof wire === "string" &&
    (RECORD_WIRES as readonly string[]).includes(wire)
  ) {
    const wired = wireModels(rules, wire as RecordWire, fields.models as string[]);
    fields.models = wired.models;
    fields.model_wires = wired.model_wires;
  }
  if (keySource !== undefined) {
    if (fields.key !== undefined) throw invalid("send key or key_source, not both");
    if (typeof baseUrl !== "string") throw invalid("base_url is required");
    const problem = destinationProblem(baseUrl);
    if (problem) throw invalid(problem);
    try {
      fields.key = otherToolKeyFor(tools, keySource, normalizedBaseUrl(baseUrl));
    } catch (error) {
      if (error instanceof FetchProblem) throw invalid(error.message);
      throw error;
    }
  }
  return fields;
}
