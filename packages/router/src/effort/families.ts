/**
 * Effort families (docs/router.md, "Effort mapping"): models grouped by model ID (not by aggregator name), each with
 * the effort values its vendor accepts, lowest first. Sources, per family, are listed in docs/router.md.
 */
import { EFFORT_LEVELS } from "@notify/contracts/ui-constants";

/** The five effort names, lowest first: the contract's list (issue 34: each enum once). */
export { EFFORT_LEVELS, type EffortLevel } from "@notify/contracts/ui-constants";

export interface EffortFamily {
  id: string;
  label: string;
  /** Matched against the model ID without a vendor path prefix, lower-cased. */
  pattern: RegExp;
  /** Accepted values, lowest effort first; empty when the model takes no effort setting at all. */
  accepted: readonly string[];
  /** Used when the request names no effort (none: the field stays absent). */
  default?: string;
}

/** Most specific first: the first family whose pattern matches wins. */
export const EFFORT_FAMILIES: readonly EffortFamily[] = [
  {
    id: "claude-xhigh",
    label: "Claude with xhigh (Opus 4.7 and later, Sonnet 5 and later)",
    pattern: /^claude-(opus-4-([7-9]|\d\d)|(opus|sonnet|haiku)-([5-9]|\d\d))/,
    accepted: EFFORT_LEVELS,
  },
  {
    id: "claude-max",
    label: "Claude with max (Opus 4.6, Sonnet 4.6)",
    pattern: /^claude-(opus|sonnet)-4-6/,
    accepted: ["low", "medium", "high", "max"],
  },
  {
    id: "claude-opus-4-5",
    label: "Claude Opus 4.5",
    pattern: /^claude-opus-4-5/,
    accepted: ["low", "medium", "high"],
  },
  {
    id: "claude-no-effort",
    label: "Other Claude models (no effort setting)",
    pattern: /^claude-/,
    accepted: [],
  },
  {
    id: "gpt-xhigh",
    label: "GPT with xhigh (gpt-5.1-codex-max, GPT-5.2 and later)",
    pattern: /^gpt-(5\.1-codex-max|5\.([2-9]|\d\d)|([6-9]|\d\d))/,
    accepted: ["none", "low", "medium", "high", "xhigh"],
  },
  {
    id: "gpt-5.1",
    label: "GPT-5.1",
    pattern: /^gpt-5\.1/,
    accepted: ["none", "low", "medium", "high"],
  },
  {
    id: "gpt-5",
    label: "GPT-5 (gpt-5, -mini, -nano, -codex)",
    pattern: /^gpt-5(-|$)/,
    accepted: ["minimal", "low", "medium", "high"],
  },
  {
    id: "openai-reasoning",
    label: "o-series and gpt-oss",
    pattern: /^(o[1-9](-|$)|gpt-oss)/,
    accepted: ["low", "medium", "high"],
  },
  {
    id: "gemini-3",
    label: "Gemini 3 (thinking level)",
    pattern: /^gemini-3/,
    accepted: ["low", "high"],
  },
  {
    id: "grok-mini",
    label: "Grok 3 mini",
    pattern: /^grok-3-mini/,
    accepted: ["low", "high"],
  },
];

/** The model ID as families match it: without a vendor path prefix, lower-cased. */
export function familyKey(model: string): string {
  const slash = model.lastIndexOf("/");
  return (slash === -1 ? model : model.slice(slash + 1)).toLowerCase();
}

export function familyOf(model: string): EffortFamily | undefined {
  const key = familyKey(model);
  return EFFORT_FAMILIES.find((family) => family.pattern.test(key));
}

export function familyById(id: string): EffortFamily | undefined {
  return EFFORT_FAMILIES.find((family) => family.id === id);
}
