import type { ConfigSnapshot, Upstream } from "@notify/router";

/** One model an agent can be pointed at through the router. */
export interface Selector {
  /** What the agent sends as `model`: `provider/model`, an alias name, or `combo/<name>`. */
  id: string;
  kind: "model" | "alias" | "combo";
  /** For `provider/model`: its upstream (the catalogue copies host entries for subscription sign-ins). */
  upstream?: Upstream;
  /** For `provider/model`: the native model ID after the first `/`. */
  model?: string;
}

/**
 * The selectors GET /router/v1/models lists (packages/router/src/http/models.ts): every declared model of an
 * enabled upstream as `provider/model`, every enabled alias by name, every enabled combo as `combo/<name>`.
 */
export function routedSelectors(snapshot: ConfigSnapshot): Selector[] {
  const selectors: Selector[] = [];
  for (const upstream of snapshot.upstreams) {
    if (!upstream.enabled) continue;
    for (const model of upstream.models)
      selectors.push({ id: `${upstream.slug}/${model}`, kind: "model", upstream, model });
  }
  for (const route of snapshot.routes) {
    if (!route.enabled) continue;
    selectors.push(
      route.kind === "combo" ? { id: `combo/${route.name}`, kind: "combo" } : { id: route.name, kind: "alias" },
    );
  }
  return selectors;
}

/** Whether `selector` still names something the router lists (a subagent or review model that does not is dropped). */
export function resolves(snapshot: ConfigSnapshot, selector: string): boolean {
  return routedSelectors(snapshot).some((candidate) => candidate.id === selector);
}

/**
 * The model a connection uses when none is chosen: the default route when it is listed, else the first selector.
 */
export function defaultSelector(snapshot: ConfigSnapshot): string | undefined {
  const selectors = routedSelectors(snapshot);
  const preferred = snapshot.settings.default_route;
  if (preferred !== null) {
    const match = selectors.find((selector) => selector.id === preferred || selector.id === `combo/${preferred}`);
    if (match) return match.id;
  }
  return selectors[0]?.id;
}
