import { z } from "zod";
import { ROUTER_ROUTE_KINDS } from "../enums.js";
import {
  EFFORT_LEVELS,
  type EffortLevel,
  MAX_COMBO_TARGETS,
  MAX_DECLARED_MODELS,
  RECORD_WIRES,
  ROUTE_NAME_PATTERN,
  ROUTE_TARGET_PATTERN,
  SLUG_PATTERN,
  SWITCH_STRATEGIES,
  UPSTREAM_AUTHS,
} from "./constants.js";

/**
 * /ui/api/router shapes (docs/router.md, "Management routes (`/ui/api/router`)"): the router parses its writes with
 * these schemas (packages/router/src/config/config-service.ts) and the page types what it sends from them. Each field
 * carries the one message the router answers with in its 400 `{error}` (pinned by tests and docs/apply.md), so a
 * schema issue is the user's message as it is.
 */

const says = (message: string) => ({ error: message });

/** `strictObject`'s refusal of an unknown field, named as the router words it. */
const unknownField = (record: string) => ({
  error: (issue: { code?: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown ${record} field: ${issue.keys?.[0] ?? ""}` : undefined,
});

const ENABLED = z.boolean(says("enabled must be true or false"));

const SLUG = "slug must match [a-z0-9][a-z0-9-]{0,31}";
const LABEL = "label must be 1-100 characters";
const MODELS = "models must be an array of model IDs";
const CREDENTIAL_REF = "credential_ref must be null, api_account:<id> or profile:<directory>";
const KEY = "key must be a string (or null to remove it)";

/**
 * An upstream as POST /ui/api/router/upstreams sends it, and as a PATCH leaves it (the change over the stored
 * record). Fields in the order they are checked; `base_url`'s destination rule, slug clashes and saved-account
 * references need the store and are the router's checks after this parse. `key` and `credential_ref` are
 * write-only changes: absent keeps what is stored.
 */
export const RouterUpstreamInput = z.strictObject(
  {
    slug: z.string(says(SLUG)).regex(SLUG_PATTERN, says(SLUG)),
    wire: z.enum(RECORD_WIRES, says(`wire must be one of ${RECORD_WIRES.join(", ")}`)),
    base_url: z.string(says("base_url is required")),
    label: z.string(says(LABEL)).min(1, says(LABEL)).max(100, says(LABEL)),
    models: z
      .array(z.string(says(MODELS)).min(1, says(MODELS)).max(200, says(MODELS)), says(MODELS))
      // Counted as stored, without repeats.
      .refine(
        (models) => new Set(models).size <= MAX_DECLARED_MODELS,
        says(`at most ${MAX_DECLARED_MODELS} declared models`),
      ),
    auth: z.enum(UPSTREAM_AUTHS, says(`auth must be one of ${UPSTREAM_AUTHS.join(", ")}`)),
    model_wires: z.record(
      z.string(),
      z.enum(RECORD_WIRES, { error: (issue) => `model_wires.${String(issue.path?.at(-1))} is not a wire` }),
      says("model_wires must be an object of model ID to wire"),
    ),
    credential_ref: z
      .string(says(CREDENTIAL_REF))
      .max(1024, says(CREDENTIAL_REF))
      .regex(/^(api_account|profile):.+$/, says(CREDENTIAL_REF))
      .refine(
        (ref) => !ref.startsWith("profile:") || /^profile:(\/|~\/)/.test(ref),
        says("profile:<directory> must name an absolute or ~/ directory"),
      )
      .nullable()
      .optional(),
    key: z.string(says(KEY)).max(8192, says(KEY)).nullable().optional(),
    enabled: ENABLED.optional(),
  },
  unknownField("upstream"),
);
export type RouterUpstreamInput = z.infer<typeof RouterUpstreamInput>;

const NAME = "name must be 1-64 letters, digits, dots, dashes or underscores";
const TARGETS = "targets must be an array of provider/model strings";

const routeShape = {
  name: z.string(says(NAME)).regex(ROUTE_NAME_PATTERN, says(NAME)),
  kind: z.enum(ROUTER_ROUTE_KINDS, says("kind must be alias or combo")),
  targets: z.array(z.string(says(TARGETS)).regex(ROUTE_TARGET_PATTERN, says(TARGETS)), says(TARGETS)),
  enabled: ENABLED,
};

/**
 * POST /ui/api/router/routes, and the route a PATCH leaves. An alias has exactly one target, a combo 1 to
 * MAX_COMBO_TARGETS (docs/router.md, "Limits"); that every target's provider is an upstream is the router's check after
 * this parse.
 */
export const RouterRouteInput = z.strictObject(routeShape, unknownField("route")).superRefine((route, context) => {
  const count = route.targets.length;
  if (route.kind === "alias" && count !== 1) {
    context.addIssue({ code: "custom", path: ["targets"], message: "an alias has exactly one target" });
  } else if (route.kind === "combo" && (count < 1 || count > MAX_COMBO_TARGETS)) {
    context.addIssue({ code: "custom", path: ["targets"], message: `a combo has 1-${MAX_COMBO_TARGETS} targets` });
  }
});
export type RouterRouteInput = z.infer<typeof RouterRouteInput>;
/** PATCH /ui/api/router/routes/:idOrName: any subset (the router checks the route it leaves). */
export const RouterRoutePatch = z.strictObject(routeShape, unknownField("route")).partial();
export type RouterRoutePatch = z.infer<typeof RouterRoutePatch>;

const routeReference = (field: string) => {
  const message = `${field} must be a provider/model, an alias or combo name, or null`;
  return z.string(says(message)).min(1, says(message)).max(300, says(message)).nullable().optional();
};

/** The router's part of PUT /ui/api/router/settings (the broker keeps `enabled` and the two limits). */
export const RouterRoutingSettingsInput = z.strictObject(
  {
    default_route: routeReference("default_route"),
    native_fallback_route: routeReference("native_fallback_route"),
    switch_strategy: z
      .enum(SWITCH_STRATEGIES, says(`switch_strategy must be one of ${SWITCH_STRATEGIES.join(", ")}`))
      .optional(),
  },
  unknownField("settings"),
);
export type RouterRoutingSettingsInput = z.infer<typeof RouterRoutingSettingsInput>;

/**
 * Parses `value` with a /ui/api/router schema and answers the first problem in check order: an unknown field
 * first (the router refused those before looking at values), then fields in schema order, then rules across them.
 */
export function parseRouterInput<T>(
  schema: z.ZodType<T>,
  value: unknown,
): { ok: true; value: T } | { ok: false; message: string } {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues;
  const first = issues.find((issue) => issue.code === "unrecognized_keys") ?? issues[0];
  return { ok: false, message: first?.message ?? "invalid router configuration" };
}

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
