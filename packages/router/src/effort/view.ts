import type { ConfigSnapshot } from "../config/records.js";
import { EFFORT_FAMILIES, EFFORT_LEVELS } from "./families.js";
import { automaticTable, type EffortOverride, type EffortTable, layered } from "./mapping.js";

export interface EffortFamilyView {
  id: string;
  label: string;
  /** The pattern matched against the model ID (without a vendor prefix, lower-cased). */
  pattern: string;
  accepted: readonly string[];
  automatic: Omit<EffortTable, "accepted">;
  override: EffortOverride | null;
  /** What requests get: the automatic table under the family override. */
  effective: Omit<EffortTable, "accepted">;
}

export interface EffortView {
  levels: readonly string[];
  families: EffortFamilyView[];
  /** Per provider/model override sets. */
  models: Record<string, EffortOverride>;
}

const tableOnly = (table: EffortTable): Omit<EffortTable, "accepted"> => ({
  levels: table.levels,
  default: table.default,
});

/** The effort families and stored override sets, for the Effort mapping page and `GET /ui/api/router/effort`. */
export function effortView(snapshot: ConfigSnapshot): EffortView {
  const overrides = snapshot.effort ?? { families: {}, models: {} };
  return {
    levels: EFFORT_LEVELS,
    families: EFFORT_FAMILIES.map((family) => {
      const automatic = automaticTable(family);
      const override = overrides.families[family.id] ?? null;
      return {
        id: family.id,
        label: family.label,
        pattern: family.pattern.source,
        accepted: family.accepted,
        automatic: tableOnly(automatic),
        override,
        effective: tableOnly(layered(automatic, override ?? undefined)),
      };
    }),
    models: overrides.models,
  };
}
