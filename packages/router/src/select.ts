import type { ConfigSnapshot, Route, Upstream } from "./config/records.js";
import { isNativeFamily, nativeUpstream } from "./native.js";
import { expandSameModel, sameModelKey, sameModelTargets } from "./smart-switching.js";

export interface Target {
  upstream: Upstream;
  /** The native model ID, verbatim (further slashes kept). */
  model: string;
  /** The agent's own vendor with the client's own credential (selection rule 3). */
  native?: true;
}

export interface SelectionOptions {
  /**
   * Selection rule 3 applies: a messages-wire request whose client kept its own vendor credential. The vendor's
   * base URL comes with it (config key RouterNativeBaseUrl).
   */
  native?: { baseUrl: string };
}

export type RouteKind = "explicit" | "alias" | "combo" | "native" | "model_list" | "default";

export type SelectionError = "no_enabled_target" | "ambiguous_model" | "missing_model" | "unknown_model";

export type Selection =
  | { ok: true; targets: Target[]; routeKind: RouteKind; routeName: string | null }
  | { ok: false; error: SelectionError };

/** HTTP status of each selection error (docs/router.md, "Errors"). */
export const SELECTION_STATUS: Record<SelectionError, number> = {
  no_enabled_target: 503,
  ambiguous_model: 400,
  missing_model: 400,
  unknown_model: 404,
};

function enabledUpstream(snapshot: ConfigSnapshot, slug: string): Upstream | undefined {
  return snapshot.upstreams.find((upstream) => upstream.slug === slug && upstream.enabled);
}

/** Rule 2: `provider/model` where the provider part is an enabled upstream slug. */
function explicit(snapshot: ConfigSnapshot, model: string): Target | undefined {
  const slash = model.indexOf("/");
  if (slash <= 0 || slash === model.length - 1) return undefined;
  const upstream = enabledUpstream(snapshot, model.slice(0, slash));
  return upstream ? { upstream, model: model.slice(slash + 1) } : undefined;
}

function routeByName(snapshot: ConfigSnapshot, name: string): Route | undefined {
  return snapshot.routes.find((route) => route.name === name && route.enabled);
}

/** An alias or combo as its ordered targets; disabled (or vanished) upstreams are skipped. */
function expandRoute(snapshot: ConfigSnapshot, route: Route): Selection {
  const targets = route.targets.map((target) => explicit(snapshot, target)).filter((target) => target !== undefined);
  if (targets.length === 0) return { ok: false, error: "no_enabled_target" };
  return { ok: true, targets, routeKind: route.kind, routeName: route.name };
}

/** Rules 1-2, used for the model string and for the default route. */
function byRouteOrExplicit(snapshot: ConfigSnapshot, model: string): Selection | undefined {
  const name = model.startsWith("combo/") ? model.slice("combo/".length) : model;
  const route = routeByName(snapshot, name);
  if (route && (model.startsWith("combo/") ? route.kind === "combo" : true)) return expandRoute(snapshot, route);
  const target = explicit(snapshot, model);
  if (target) return { ok: true, targets: [target], routeKind: "explicit", routeName: null };
  return undefined;
}

/**
 * Route selection (docs/router.md, "Route selection"): a pure function of one configuration snapshot and the requested
 * model string. 1 combo or alias by name; 2 explicit provider/model; 3 the agent's native model (`selectNative`); 4 a
 * bare ID declared by exactly one enabled upstream (two or more: ambiguous_model); 5 the default route (also for a
 * request with no model; none set: missing_model); 6 unknown_model. With smart switching on (`switch_strategy` not
 * `off`), rule 4 takes every provider that lists the model, and every resolved list is expanded with the same
 * model at the other providers (smart-switching.ts).
 */
export function selectTargets(
  snapshot: ConfigSnapshot,
  requested: string | undefined,
  options: SelectionOptions = {},
): Selection {
  if (options.native && requested && isNativeFamily(requested) && !routeByName(snapshot, requested)) {
    return selectNative(snapshot, requested, options.native.baseUrl);
  }
  const selection = selectRouted(snapshot, requested);
  if (!selection.ok || snapshot.settings.switch_strategy === "off") return selection;
  return { ...selection, targets: expandSameModel(snapshot, selection.targets) };
}

function selectRouted(snapshot: ConfigSnapshot, requested: string | undefined): Selection {
  const switching = snapshot.settings.switch_strategy !== "off";
  if (requested !== undefined && requested !== "") {
    const direct = byRouteOrExplicit(snapshot, requested);
    if (direct) return direct;
    if (switching) {
      // Smart switching rule 3: a bare model several providers list goes to all of them, in cost-kind order.
      const listing = sameModelTargets(snapshot, requested);
      if (listing.length > 0) return { ok: true, targets: listing, routeKind: "model_list", routeName: null };
    }
    const declaring = snapshot.upstreams.filter((upstream) => upstream.enabled && upstream.models.includes(requested));
    if (declaring.length > 1) return { ok: false, error: "ambiguous_model" };
    const [only] = declaring;
    if (only)
      return { ok: true, targets: [{ upstream: only, model: requested }], routeKind: "model_list", routeName: null };
  }
  const fallback = snapshot.settings.default_route;
  if (fallback) {
    const resolved = byRouteOrExplicit(snapshot, fallback);
    if (resolved?.ok) return { ...resolved, routeKind: "default", routeName: resolved.routeName ?? fallback };
    if (resolved) return resolved;
  }
  if (requested === undefined || requested === "") return { ok: false, error: "missing_model" };
  return { ok: false, error: "unknown_model" };
}

/**
 * Selection rule 3 with Smart switching rule 6: the vendor first, then the equivalent model at the configured
 * providers, then the cross-model fallback route (`native_fallback_route`). One-way: a native target is never
 * added to any other request's list.
 */
function selectNative(snapshot: ConfigSnapshot, model: string, baseUrl: string): Selection {
  const targets: Target[] = [{ upstream: nativeUpstream(baseUrl), model, native: true }];
  const seen = new Set<string>();
  const add = (target: Target): void => {
    const key = `${target.upstream.slug}\u0000${target.model}`;
    if (seen.has(key)) return;
    seen.add(key);
    targets.push(target);
  };
  for (const target of sameModelTargets(snapshot, model)) add(target);
  const fallback = snapshot.settings.native_fallback_route;
  if (fallback) {
    const resolved = byRouteOrExplicit(snapshot, fallback);
    if (resolved?.ok) for (const target of resolved.targets) add(target);
  }
  return { ok: true, targets, routeKind: "native", routeName: null };
}

/** The group smart switching remembers a native request's state in. */
export const nativeGroup = (model: string): string => `native:${sameModelKey(model)}`;
