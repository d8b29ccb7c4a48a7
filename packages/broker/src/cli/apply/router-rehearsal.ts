import { DatabaseSync } from "node:sqlite";
import {
  type EffortScope,
  type KeySealer,
  migrateRouterDatabase,
  type Route,
  RouterConfig,
  RouterConfigError,
  type RouterSettings,
  type Upstream,
} from "@notify/router";

/** One planned write to the router's configuration, in the terms of /ui/api/router. */
export type RouterOperation =
  | { op: "save-upstream"; slug: string; exists: boolean; body: Record<string, unknown> }
  | { op: "save-route"; name: string; exists: boolean; body: Record<string, unknown> }
  | { op: "save-settings"; body: Record<string, unknown> }
  | { op: "delete-route"; name: string }
  | { op: "delete-upstream"; slug: string }
  | { op: "save-effort"; scope: EffortScope; name: string; set: unknown }
  | { op: "delete-effort"; scope: EffortScope; name: string };

/** Stands in for the broker's sealer: the rehearsal only needs to know that a key is held, never the key. */
const placeholderSealer: KeySealer = {
  seal: () => "rehearsal",
  open: () => ({}),
};

/**
 * Rehearses the planned writes, in order, on an in-memory copy of the broker's router configuration, with the
 * router's own validator (RouterConfig): every rule the broker would apply on /ui/api/router (slug pattern, wires,
 * the destination rule, alias and combo targets, targets naming a known upstream, and the deletion rules) is checked
 * here before the first real change, without a second copy of those rules. Returns the refusal of each operation
 * that fails (undefined for those that pass); a refused operation is skipped, so later ones see the state the
 * broker would have.
 */
export function rehearse(
  current: {
    upstreams: Upstream[];
    routes: Route[];
    settings: RouterSettings;
    effort?: { families: Record<string, unknown>; models: Record<string, unknown> };
  },
  operations: RouterOperation[],
): (string | undefined)[] {
  const db = new DatabaseSync(":memory:");
  try {
    migrateRouterDatabase(db);
    const config = new RouterConfig(db, placeholderSealer);
    try {
      // The broker's state, as it is; ids differ from the broker's, so everything below goes by slug and name.
      for (const upstream of current.upstreams) {
        const { id: _id, has_key, created_at: _created, updated_at: _updated, ...fields } = upstream;
        config.saveUpstream(has_key ? { ...fields, key: "held" } : fields);
      }
      for (const { name, kind, targets, enabled } of current.routes) config.saveRoute({ name, kind, targets, enabled });
      config.saveSettings({ ...current.settings });
    } catch (error) {
      if (!(error instanceof RouterConfigError)) throw error;
      throw new Error(`the broker's router configuration does not pass the router's own checks (${error.message})`);
    }
    // Stored effort sets, families first (a model's set was checked on top of its family's). A family set saved
    // after a model's is not re-checked against it (docs/router.md), so a stored set may not pass again: it is
    // left out of the copy rather than failing the whole plan; the broker still judges every real write.
    for (const [scope, sets] of [
      ["family", current.effort?.families ?? {}],
      ["model", current.effort?.models ?? {}],
    ] as const) {
      for (const [name, set] of Object.entries(sets)) {
        try {
          config.saveEffortOverride(scope, name, set);
        } catch (error) {
          if (!(error instanceof RouterConfigError)) throw error;
        }
      }
    }

    return operations.map((operation) => {
      try {
        switch (operation.op) {
          case "save-upstream":
            config.saveUpstream(operation.body, operation.exists ? operation.slug : undefined);
            break;
          case "save-route":
            config.saveRoute(operation.body, operation.exists ? operation.name : undefined);
            break;
          case "save-settings":
            config.saveSettings(operation.body);
            break;
          case "delete-route":
            config.deleteRoute(operation.name);
            break;
          case "delete-upstream":
            config.deleteUpstream(operation.slug);
            break;
          case "save-effort":
            config.saveEffortOverride(operation.scope, operation.name, operation.set);
            break;
          case "delete-effort":
            config.saveEffortOverride(operation.scope, operation.name, null);
            break;
          default: {
            const _exhaustive: never = operation;
            return _exhaustive;
          }
        }
        return undefined;
      } catch (error) {
        if (error instanceof RouterConfigError) return error.message;
        throw error;
      }
    });
  } finally {
    db.close();
  }
}
