import type { RecordWire } from "../config/records.js";
import type { PrefixRule } from "./catalogue.js";

/**
 * A preset's prefix rules applied to model IDs (docs/router.md, "Presets"): which wire each model is served on, the
 * `model_wires` a saved upstream carries, and the models left out because their wire is one the router does not
 * speak. Pure functions; no HTTP, no storage.
 */

/** The part of a model ID rules match: lower-cased, without a vendor path prefix (`vendor/model`). */
function familyKey(model: string): string {
  const slash = model.lastIndexOf("/");
  return (slash === -1 ? model : model.slice(slash + 1)).toLowerCase();
}

/** The wire one model is served on: the first rule whose prefix starts its ID, else the upstream's own wire. */
export function ruleWireFor(rules: readonly PrefixRule[], wire: RecordWire, model: string): RecordWire | null {
  const key = familyKey(model);
  for (const rule of rules) if (key.startsWith(rule.prefix.toLowerCase())) return rule.wire;
  return wire;
}

export interface WiredModels {
  /** The models kept, in the order given, without repeats. */
  models: string[];
  /** Model ID -> wire, only for models served on a wire other than the upstream's own. */
  model_wires: Record<string, RecordWire>;
  /** Models whose wire the router does not speak. */
  left_out: string[];
}

/** Turns a model list into what an upstream record stores: the speakable models and their per-model wires. */
export function wireModels(rules: readonly PrefixRule[], wire: RecordWire, models: readonly string[]): WiredModels {
  const kept: string[] = [];
  const modelWires: Record<string, RecordWire> = {};
  const leftOut: string[] = [];
  const seen = new Set<string>();
  for (const model of models) {
    if (seen.has(model)) continue;
    seen.add(model);
    const modelWire = ruleWireFor(rules, wire, model);
    if (modelWire === null) {
      leftOut.push(model);
      continue;
    }
    kept.push(model);
    if (modelWire !== wire) modelWires[model] = modelWire;
  }
  return { models: kept, model_wires: modelWires, left_out: leftOut };
}
