import { type EffortOverrideSet, type EffortView, EffortOverrideSet as OverrideSetShape } from "@notify/contracts/ui";
import type { EffortScope } from "@notify/router";
import type { RouterOperation } from "./router-rehearsal.js";
import { isObject, jsonEqual, type Step, ui, unknownKeys } from "./section.js";

/**
 * `router.effort` of an apply file: effort override sets (docs/router.md, "Effort mapping"), per family id and per
 * `provider/model`, each `{levels?: {<level>: value | null}, default?: value | null}` or `null` to remove the set.
 * A listed set replaces the stored one whole. Structure is checked here; the value rules (known family, bounded,
 * monotonic) are the router's own, rehearsed before the first change (router-rehearsal.ts).
 */

/** The router's scopes of an override set (issue 34: each enum once). */
export type { EffortScope } from "@notify/router";

export interface EffortEntry {
  path: string;
  scope: EffortScope;
  name: string;
  /** null: remove the stored set. */
  set: EffortOverrideSet | null;
}

export interface EffortDocument {
  /** Only the lists the file has: --prune acts within those. */
  families?: EffortEntry[];
  models?: EffortEntry[];
}

const LISTS = { families: "family", models: "model" } as const;

/** Structural checks of `router.effort`; problems name paths and keys. */
export function parseEffort(value: unknown, problems: string[]): EffortDocument | undefined {
  const path = "router.effort";
  if (!isObject(value)) {
    problems.push(`${path} must be an object with families and/or models`);
    return undefined;
  }
  unknownKeys(value, Object.keys(LISTS), path, problems);
  const document: EffortDocument = {};
  for (const [list, scope] of Object.entries(LISTS) as [keyof typeof LISTS, EffortScope][]) {
    const sets = value[list];
    if (sets === undefined) continue;
    if (!isObject(sets)) {
      problems.push(
        `${path}.${list} must be an object of ${scope === "family" ? "family id" : "provider/model"} to override set`,
      );
      continue;
    }
    document[list] = Object.entries(sets).flatMap(([name, set]): EffortEntry[] => {
      const entryPath = `${path}.${list}.${name}`;
      if (set === null) return [{ path: entryPath, scope, name, set: null }];
      const parsed = OverrideSetShape.safeParse(set);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const where = issue.path.length > 0 ? `.${issue.path.join(".")}` : "";
          problems.push(
            `${entryPath}${where}: ${issue.message} (an override set is {levels: {low..max: value or null}, default})`,
          );
        }
        return [];
      }
      return [{ path: entryPath, scope, name, set: parsed.data }];
    });
  }
  return document;
}

/** A step, the write it makes (for the rehearsal), and how a refusal of that write is reported. */
export interface PlannedEffort {
  step: Step;
  operation?: RouterOperation;
  problem?: (refusal: string) => string;
}

const kindOf = (scope: EffortScope) => (scope === "family" ? "effort family" : "effort model");

/** The stored sets by scope and name, as GET /ui/api/router/effort shows them. */
export function storedSets(view: EffortView): {
  families: Record<string, EffortOverrideSet>;
  models: Record<string, EffortOverrideSet>;
} {
  const families: Record<string, EffortOverrideSet> = {};
  for (const family of view.families) if (family.override) families[family.id] = family.override;
  return { families, models: view.models };
}

const pathOf = (scope: EffortScope, name: string) =>
  scope === "family"
    ? `/router/effort/families/${encodeURIComponent(name)}`
    : `/router/effort/models?model=${encodeURIComponent(name)}`;

/**
 * The saves (families first: a model's set is checked on top of its family's) and, with --prune, the removals of
 * stored sets the file's lists do not name (models first). Sets equal to the stored one are unchanged.
 */
export function planEffort(
  document: EffortDocument,
  view: EffortView,
  prune: boolean,
): { saves: PlannedEffort[]; removals: PlannedEffort[] } {
  const stored = storedSets(view);
  const saves: PlannedEffort[] = [];
  for (const entry of [...(document.families ?? []), ...(document.models ?? [])]) {
    const current = (entry.scope === "family" ? stored.families : stored.models)[entry.name];
    const kind = kindOf(entry.scope);
    if (entry.set === null) {
      saves.push(
        current
          ? removal(entry.scope, entry.name)
          : { step: { changes: [{ action: "unchanged", kind, name: entry.name }] } },
      );
      continue;
    }
    if (current && jsonEqual(current, entry.set)) {
      saves.push({ step: { changes: [{ action: "unchanged", kind, name: entry.name }] } });
      continue;
    }
    const set = entry.set;
    const body = entry.scope === "family" ? set : { model: entry.name, ...set };
    const method = "PUT";
    const path = entry.scope === "family" ? pathOf("family", entry.name) : "/router/effort/models";
    saves.push({
      step: {
        changes: [
          current
            ? {
                action: "update",
                kind,
                name: entry.name,
                fields: ["levels", "default"].filter(
                  (field) => !jsonEqual(current[field as "levels"], set[field as "levels"]),
                ),
              }
            : { action: "create", kind, name: entry.name },
        ],
        run: async (client) => {
          await ui(client, method, path, body);
        },
      },
      operation: { op: "save-effort", scope: entry.scope, name: entry.name, set },
      problem: (refusal) => `${entry.path}: ${refusal}`,
    });
  }
  const removals: PlannedEffort[] = [];
  if (prune) {
    for (const [list, scope] of [
      ["models", "model"],
      ["families", "family"],
    ] as const) {
      const named = document[list];
      if (!named) continue;
      const names = new Set(named.map((entry) => entry.name));
      for (const name of Object.keys(stored[list])) if (!names.has(name)) removals.push(removal(scope, name));
    }
  }
  return { saves, removals };
}

function removal(scope: EffortScope, name: string): PlannedEffort {
  return {
    step: {
      changes: [{ action: "delete", kind: kindOf(scope), name }],
      run: async (client) => {
        await ui(client, "DELETE", pathOf(scope, name));
      },
    },
    operation: { op: "delete-effort", scope, name },
  };
}
