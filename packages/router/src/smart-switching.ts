import { PRESET_KINDS, type PresetKind } from "@notify/contracts/enums";
import type { ConfigSnapshot, SwitchStrategy, Upstream } from "./config/records.js";
import { FLAT_PLAN_BASES } from "./presets/catalogue.js";
import type { Selection, Target } from "./select.js";

/**
 * Smart switching (docs/router.md, "Smart switching"): expansion of a resolved target list with the same model at every
 * other enabled provider that lists it, in cost-kind order, and the per-group start of `ordered`, `sticky` and
 * `round_robin`. Expansion is a pure function of the snapshot; the strategies' memory is `SwitchState`.
 */

/** Rule 1: IDs equal after ignoring case and any vendor path prefix (`vendor/model`); versions stay distinct. */
export function sameModelKey(model: string): string {
  const slash = model.lastIndexOf("/");
  return (slash === -1 ? model : model.slice(slash + 1)).toLowerCase();
}

/** Rule 2's cost kinds, a preset's kinds; the contract lists them in rule 2's order (per token last). */
export type CostKind = PresetKind;
const COST_ORDER: readonly CostKind[] = PRESET_KINDS;

/**
 * Where flat-plan services live: a host, or `host/path` when one host also serves other kinds (filled from the preset
 * catalogue, presets/catalogue.ts).
 */
export const FLAT_PLAN_HOSTS: ReadonlySet<string> = FLAT_PLAN_BASES;

/** Whether a base URL lies under one of the flat-plan places (a whole host, or a path prefix on a segment boundary). */
export function isFlatPlanUrl(baseUrl: string, flatPlanHosts: ReadonlySet<string> = FLAT_PLAN_HOSTS): boolean {
  try {
    return isFlatPlan(new URL(baseUrl), flatPlanHosts);
  } catch {
    return false;
  }
}

function isFlatPlan(url: URL, flatPlanHosts: ReadonlySet<string>): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (flatPlanHosts.has(host)) return true;
  const place = `${host}${url.pathname}`.replace(/\/+$/, "");
  for (const base of flatPlanHosts) {
    if (place === base || place.startsWith(`${base}/`)) return true;
  }
  return false;
}

/**
 * Rule 2's cost kind: a subscription via another tool's sign-in (`plan_signin_a`, `plan_signin_b`), a flat plan (by
 * host or base path), a server on this computer (a loopback base URL), else billed per token.
 */
export function costKind(upstream: Upstream, flatPlanHosts: ReadonlySet<string> = FLAT_PLAN_HOSTS): CostKind {
  if (upstream.auth === "plan_signin_a" || upstream.auth === "plan_signin_b") return "subscription";
  let url: URL;
  try {
    url = new URL(upstream.base_url);
  } catch {
    return "per_token";
  }
  if (isFlatPlan(url, flatPlanHosts)) return "flat_plan";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "127.0.0.1" || host === "::1" || host === "localhost") return "local";
  return "per_token";
}

/**
 * Every enabled upstream that lists the same model, as targets with that upstream's own declared ID, in cost-kind
 * order and, within a kind, the order the providers were added (the snapshot's order: created_at, then slug).
 */
export function sameModelTargets(
  snapshot: ConfigSnapshot,
  model: string,
  flatPlanHosts: ReadonlySet<string> = FLAT_PLAN_HOSTS,
): Target[] {
  const key = sameModelKey(model);
  const found: { target: Target; kind: number; order: number }[] = [];
  snapshot.upstreams.forEach((upstream, order) => {
    if (!upstream.enabled) return;
    const declared = upstream.models.find((candidate) => sameModelKey(candidate) === key);
    if (declared === undefined) return;
    found.push({
      target: { upstream, model: declared },
      kind: COST_ORDER.indexOf(costKind(upstream, flatPlanHosts)),
      order,
    });
  });
  found.sort((a, b) => a.kind - b.kind || a.order - b.order);
  return found.map((entry) => entry.target);
}

const targetKey = (target: Target): string => `${target.upstream.slug}\u0000${target.model}`;

/**
 * Rule 4: the route's own chain first, then the same-model fallbacks of every target in chain order, without
 * repeating a target already in the list.
 */
export function expandSameModel(
  snapshot: ConfigSnapshot,
  chain: readonly Target[],
  flatPlanHosts: ReadonlySet<string> = FLAT_PLAN_HOSTS,
): Target[] {
  const seen = new Set(chain.map(targetKey));
  const out = [...chain];
  for (const target of chain) {
    for (const fallback of sameModelTargets(snapshot, target.model, flatPlanHosts)) {
      const key = targetKey(fallback);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(fallback);
    }
  }
  return out;
}

/** The group a strategy remembers its start for: the route (alias, combo, default) or else the model. */
export function switchGroup(selection: Extract<Selection, { ok: true }>, requested: string | undefined): string {
  if (selection.routeKind === "alias" || selection.routeKind === "combo" || selection.routeKind === "default") {
    return `route:${selection.routeName ?? ""}`;
  }
  return `model:${sameModelKey(requested ?? "")}`;
}

/**
 * Rule 5's memory, in memory only: `sticky` keeps the last target that completed successfully in its group until
 * it fails; `round_robin` rotates the starting target per group; `ordered` (and `off`) start at the first target.
 */
/** Groups remembered per map at most: a client naming ever new explicit models cannot grow the memory without end. */
export const MAX_SWITCH_GROUPS = 10_000;

/** Sets a key, first forgetting everything when the map is full (the state is a hint; losing it is harmless). */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= MAX_SWITCH_GROUPS) map.clear();
  map.set(key, value);
}

export class SwitchState {
  private readonly sticky = new Map<string, string>();
  private readonly turns = new Map<string, number>();
  /** Native groups whose vendor refused, until when (rule 6: retried after its bounded cooldown). */
  private readonly nativeRest = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The order for a native request (rule 6): the vendor first unless it is resting after a refusal that a fallback
   * answered. In `sticky` mode the kept fallback leads until it fails; in every other mode the vendor is retried
   * once its bounded cooldown ends.
   */
  orderNative(strategy: SwitchStrategy, group: string, targets: readonly Target[]): Target[] {
    // Sticky: the kept target leads (a routed fallback once the vendor refused), and with none kept, the vendor.
    if (strategy === "sticky") return this.order("sticky", group, targets);
    const ordered = [...targets];
    const until = this.nativeRest.get(group);
    if (until === undefined) return ordered;
    if (until <= this.now()) {
      this.nativeRest.delete(group);
      return ordered;
    }
    const routed = ordered.filter((target) => target.native !== true);
    // The vendor is rested only while a fallback is left to take the request.
    return routed.length > 0 ? [...routed, ...ordered.filter((target) => target.native === true)] : ordered;
  }

  /** The vendor refused a native request that a fallback then took (rule 6). */
  nativeRefused(group: string, cooldownMs: number): void {
    remember(this.nativeRest, group, this.now() + Math.max(cooldownMs, 1_000));
  }

  /** The order to try `targets` in for one request of `group`. */
  order(strategy: SwitchStrategy, group: string, targets: readonly Target[]): Target[] {
    if (targets.length < 2) return [...targets];
    if (strategy === "sticky") {
      const kept = this.sticky.get(group);
      const index = kept === undefined ? -1 : targets.findIndex((target) => targetKey(target) === kept);
      return index <= 0 ? [...targets] : [targets[index] as Target, ...targets.filter((_, at) => at !== index)];
    }
    if (strategy === "round_robin") {
      const turn = this.turns.get(group) ?? 0;
      remember(this.turns, group, turn + 1);
      const start = turn % targets.length;
      return [...targets.slice(start), ...targets.slice(0, start)];
    }
    return [...targets];
  }

  succeeded(strategy: SwitchStrategy, group: string, target: Target): void {
    if (strategy === "sticky") remember(this.sticky, group, targetKey(target));
    if (target.native) this.nativeRest.delete(group);
  }

  failed(group: string, target: Target): void {
    if (this.sticky.get(group) === targetKey(target)) this.sticky.delete(group);
  }

  /** The kept target of a group (tests and the status page). */
  kept(group: string): string | undefined {
    return this.sticky.get(group);
  }

  /** How many groups are remembered, per map (tests). */
  size(): { sticky: number; turns: number; nativeRest: number } {
    return { sticky: this.sticky.size, turns: this.turns.size, nativeRest: this.nativeRest.size };
  }
}
