import { z } from "zod";
import { EFFORT_LEVELS, type EffortLevel, MAX_COMBO_TARGETS } from "./constants.js";

export {
  EFFORT_LEVELS,
  type EffortLevel,
  MAX_COMBO_TARGETS,
  SWITCH_STRATEGIES,
  type SwitchStrategy,
} from "./constants.js";

/**
 * /ui/api/router shapes of the Routing and Effort mapping pages (spec 3; docs/router.md, Management routes). The
 * router validates its own writes; these name what the page sends and reads, so the page copies no type.
 */

/** POST /ui/api/router/routes, and PATCH /ui/api/router/routes/:idOrName (any subset). */
export const RouterRouteInput = z.strictObject({
  name: z.string().min(1).max(64),
  kind: z.enum(["alias", "combo"]),
  targets: z.array(z.string().min(1)).min(1).max(MAX_COMBO_TARGETS),
  enabled: z.boolean(),
});
export type RouterRouteInput = z.infer<typeof RouterRouteInput>;
export const RouterRoutePatch = RouterRouteInput.partial();
export type RouterRoutePatch = z.infer<typeof RouterRoutePatch>;

/** A value a level maps to; `null` is an explicit omit (no effort field is sent). */
export const EffortValue = z.string().min(1).max(32).nullable();
export type EffortValue = z.infer<typeof EffortValue>;

/** An override set, per family or per provider/model: a level (or the default) left out keeps what lies below. */
export const EffortOverrideSet = z.strictObject({
  levels: z.partialRecord(z.enum(EFFORT_LEVELS), EffortValue).optional(),
  default: EffortValue.optional(),
});
export type EffortOverrideSet = z.infer<typeof EffortOverrideSet>;

/** PUT /ui/api/router/effort/models. */
export const EffortModelOverrideInput = EffortOverrideSet.extend({ model: z.string().min(3).max(300) });
export type EffortModelOverrideInput = z.infer<typeof EffortModelOverrideInput>;

/** Every level's value and the default, as requests get them. */
export interface EffortTableView {
  levels: Record<EffortLevel, EffortValue>;
  default: EffortValue;
}

export interface EffortFamilyView {
  id: string;
  label: string;
  /** A regular expression's source, matched against the model ID without a vendor prefix, lower-cased. */
  pattern: string;
  /** Accepted values, lowest first; empty when the family takes no effort setting. */
  accepted: string[];
  automatic: EffortTableView;
  override: EffortOverrideSet | null;
  effective: EffortTableView;
}

/** GET /ui/api/router/effort (and the answer of its PUTs). */
export interface EffortView {
  levels: EffortLevel[];
  families: EffortFamilyView[];
  /** Per provider/model override sets. */
  models: Record<string, EffortOverrideSet>;
}
