import { EFFORT_LEVELS, type EffortFamily, type EffortLevel, familyOf } from "./families.js";

/**
 * Effort mapping (docs/router.md, "Effort mapping"): one table per concrete model, built from the automatic table of
 * its family, then the family override, then the per-model override (each level from the first that sets it); applied
 * once per hop.
 */

/** What a level maps to: a value sent to the target, or `null` = omit the field. */
export type EffortValue = string | null;

/** An override set (per family or per provider/model): any of the five levels, and the default. */
export interface EffortOverride {
  levels?: Partial<Record<EffortLevel, EffortValue>>;
  /** Used when the request names no effort; `null` = send none. */
  default?: EffortValue;
}

export interface EffortTable {
  accepted: readonly string[];
  levels: Record<EffortLevel, EffortValue>;
  default: EffortValue;
}

/** What the mapping says for one request: leave the field as the client wrote it, set it, or remove it. */
export type EffortDecision = { kind: "set"; value: string } | { kind: "omit" };

/**
 * The automatic table (Effort mapping 3): identity where the target has the same name; a level above the target's
 * top collapses onto the top; a level between two accepted values takes the next one up (asked for more, the client
 * gets at least that much). A model that accepts no effort omits it at every level.
 */
export function automaticTable(family: EffortFamily): EffortTable {
  const ranked = family.accepted.filter((value) => value !== "none" && value !== "minimal");
  const rankOf = (level: string): number => EFFORT_LEVELS.indexOf(level as EffortLevel);
  const levels = {} as Record<EffortLevel, EffortValue>;
  for (const level of EFFORT_LEVELS) {
    if (ranked.length === 0) {
      levels[level] = null;
      continue;
    }
    if (ranked.includes(level)) {
      levels[level] = level;
      continue;
    }
    const above = ranked.find((value) => rankOf(value) > rankOf(level));
    levels[level] = above ?? (ranked[ranked.length - 1] as string);
  }
  return { accepted: family.accepted, levels, default: family.default ?? null };
}

/** The table for one concrete model: per-model override, then family override, then automatic. Unknown: none. */
export function effortTable(
  model: string,
  overrides: { family?: EffortOverride; model?: EffortOverride } = {},
): EffortTable | undefined {
  const family = familyOf(model);
  if (!family) return undefined;
  return layered(automaticTable(family), overrides.family, overrides.model);
}

/**
 * The base under a per-model override for a model of no known family: the five names as themselves. Without such an
 * override an unknown model omits effort; with one, the owner has said what the model takes.
 */
export const IDENTITY_TABLE: EffortTable = {
  accepted: EFFORT_LEVELS,
  levels: { low: "low", medium: "medium", high: "high", xhigh: "xhigh", max: "max" },
  default: null,
};

/** Lays override sets over a table, each level (and the default) from the last set that names it. */
export function layered(base: EffortTable, ...sets: (EffortOverride | undefined)[]): EffortTable {
  const table: EffortTable = { accepted: base.accepted, levels: { ...base.levels }, default: base.default };
  for (const set of sets) {
    if (!set) continue;
    for (const level of EFFORT_LEVELS) {
      const value = set.levels?.[level];
      if (value !== undefined) table.levels[level] = value;
    }
    if (set.default !== undefined) table.default = set.default;
  }
  return table;
}

/** Normalized: trimmed, lower-cased. */
export function normalizeEffort(value: string): string {
  return value.trim().toLowerCase();
}

/**
 * One request's effort for one target (Effort mapping 1-3). `requested` is the client's value as read from its
 * wire (undefined when it named none). Unknown model: omit. No effort: the table's default, or nothing. One of the
 * five names: its mapping. Another value: verbatim when the target accepts it, `minimal` as `low`, else the
 * default.
 */
export function mapEffort(requested: string | undefined, table: EffortTable | undefined): EffortDecision {
  if (!table) return { kind: "omit" };
  const decide = (value: EffortValue): EffortDecision => (value === null ? { kind: "omit" } : { kind: "set", value });
  if (requested === undefined) return decide(table.default);
  const normalized = normalizeEffort(requested);
  if ((EFFORT_LEVELS as readonly string[]).includes(normalized)) return decide(table.levels[normalized as EffortLevel]);
  if (table.accepted.includes(normalized)) return { kind: "set", value: normalized };
  if (normalized === "minimal") return decide(table.levels.low);
  return decide(table.default);
}

/**
 * Why an override set cannot be stored, or undefined (Effort mapping 4): every value is one the family accepts
 * (bounded) or `null` (omit), and the resulting table never maps a higher level to a lower value (monotonic;
 * omitted levels are skipped). For a model of no known family, values must be among the five names.
 */
export function overrideProblem(
  set: EffortOverride,
  base: EffortTable | undefined,
  under: (EffortOverride | undefined)[] = [],
): string | undefined {
  const accepted = base?.accepted ?? EFFORT_LEVELS;
  for (const [level, value] of Object.entries(set.levels ?? {})) {
    if (!(EFFORT_LEVELS as readonly string[]).includes(level)) return `unknown effort level ${JSON.stringify(level)}`;
    if (value !== null && !accepted.includes(value as string)) {
      return `${level}: ${JSON.stringify(value)} is not accepted here (one of ${accepted.join(", ") || "nothing: use null"})`;
    }
  }
  if (set.default !== undefined && set.default !== null && !accepted.includes(set.default)) {
    return `default: ${JSON.stringify(set.default)} is not accepted here`;
  }
  const table = layered(base ?? IDENTITY_TABLE, ...under, set);
  let highest = -1;
  let highestLevel = "";
  for (const level of EFFORT_LEVELS) {
    const value = table.levels[level];
    if (value === null) continue;
    const rank = accepted.indexOf(value);
    if (rank < highest) {
      return `not monotonic: ${level} maps to ${value}, below what ${highestLevel} maps to`;
    }
    highest = rank;
    highestLevel = level;
  }
  return undefined;
}
