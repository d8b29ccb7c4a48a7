import type { DatabaseSync, StatementSync } from "node:sqlite";
import { EFFORT_LEVELS, familyById, familyOf } from "../effort/families.js";
import { automaticTable, type EffortOverride, effortTable, overrideProblem } from "../effort/mapping.js";

/** docs/router.md, "Effort mapping": one per family id, one per `provider/model`. */
export interface EffortOverrides {
  families: Record<string, EffortOverride>;
  models: Record<string, EffortOverride>;
}

export type EffortScope = "family" | "model";

/** Why an override set's shape is wrong, or undefined: `{levels?: {<level>: value | null}, default?: value | null}`. */
function shapeProblem(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return "an override set must be an object";
  for (const field of Object.keys(input)) {
    if (field !== "levels" && field !== "default") return `unknown override field: ${field}`;
  }
  const { levels, default: fallback } = input as { levels?: unknown; default?: unknown };
  const value = (candidate: unknown): boolean =>
    candidate === null || (typeof candidate === "string" && candidate.length >= 1 && candidate.length <= 32);
  if (levels !== undefined) {
    if (typeof levels !== "object" || levels === null || Array.isArray(levels)) return "levels must be an object";
    for (const [level, target] of Object.entries(levels)) {
      if (!(EFFORT_LEVELS as readonly string[]).includes(level)) return `unknown effort level: ${level}`;
      if (!value(target)) return `levels.${level} must be an effort value or null (omit)`;
    }
  }
  if (fallback !== undefined && !value(fallback)) return "default must be an effort value or null (omit)";
  return undefined;
}

/** The stored override sets (table effort_overrides of router.db) and their rules: bounded and monotonic. */
export class EffortOverrideStore {
  private readonly select: StatementSync;
  private readonly upsert: StatementSync;
  private readonly remove: StatementSync;

  constructor(db: DatabaseSync) {
    this.select = db.prepare("SELECT scope, name, override FROM effort_overrides ORDER BY scope, name");
    this.upsert = db.prepare(`INSERT INTO effort_overrides (scope, name, override, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (scope, name) DO UPDATE SET override = excluded.override, updated_at = excluded.updated_at`);
    this.remove = db.prepare("DELETE FROM effort_overrides WHERE scope = ? AND name = ?");
  }

  all(): EffortOverrides {
    const out: EffortOverrides = { families: {}, models: {} };
    for (const row of this.select.all() as { scope: string; name: string; override: string }[]) {
      (row.scope === "family" ? out.families : out.models)[row.name] = JSON.parse(row.override) as EffortOverride;
    }
    return out;
  }

  /**
   * The problem with storing `input` for `name`, or undefined. A family must exist; a model is `provider/model`.
   * The set is checked on top of what is below it (the automatic table, and for a model its family's override).
   */
  problem(scope: EffortScope, name: string, input: unknown, current: EffortOverrides): string | undefined {
    const shape = shapeProblem(input);
    if (shape) return shape;
    const set = input as EffortOverride;
    if (scope === "family") {
      const family = familyById(name);
      if (!family) return `unknown effort family: ${name}`;
      return overrideProblem(set, automaticTable(family));
    }
    const slash = name.indexOf("/");
    if (slash <= 0 || slash === name.length - 1 || name.length > 300) return "model must be provider/model";
    const model = name.slice(slash + 1);
    const familyId = familyOf(model)?.id;
    const familySet = familyId ? current.families[familyId] : undefined;
    return overrideProblem(set, effortTable(model), familySet ? [familySet] : []);
  }

  save(scope: EffortScope, name: string, set: EffortOverride | null, nowIso: string): void {
    if (set === null) this.remove.run(scope, name);
    else this.upsert.run(scope, name, JSON.stringify(set), nowIso);
  }
}
