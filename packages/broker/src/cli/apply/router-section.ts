import type { EffortView } from "@notify/contracts/ui";
import type { Route, Upstream } from "@notify/router";
import type { BrokerClient } from "../../client/client.js";
import type { RouterStatus } from "../router-api.js";
import {
  parseRouter,
  type RouteEntry,
  type RouterDocument,
  routerSecrets,
  SETTINGS_KEYS,
  UPSTREAM_FIELDS,
  type UpstreamEntry,
} from "./router-document.js";
import { planEffort, storedSets } from "./router-effort.js";
import { type RouterOperation, rehearse } from "./router-rehearsal.js";
import { type ApplySection, type Change, jsonEqual, type PlanContext, type Step, ui } from "./section.js";

/**
 * `router`: the provider router's switch, settings, upstreams, routes and effort override sets (docs/router.md),
 * through /ui/api/router. Upstreams are upserted by slug, routes by name, effort sets by family id and provider/model.
 * Order: upstreams, then routes (a route names its upstreams), then effort sets (router-effort.ts), then the
 * settings and the switch (a default route may name a route created just before), then with --prune the routes
 * and then the upstreams the file does not name (the router refuses to delete what a route or a setting still
 * names, so the routes that named an upstream go first), then the effort sets it does not name. Fields an entry leaves out keep the broker's value;
 * new upstreams get the router's defaults (disabled, auth api_key), new routes are enabled.
 */
export const routerSection: ApplySection = {
  key: "router",
  // Best effort over the raw value, so even a file that fails to parse cannot echo an upstream key.
  secrets: routerSecrets,
  parse(value, problems) {
    const document = parseRouter(value, problems);
    return document && { plan: (context, planProblems) => planRouter(document, context, planProblems) };
  },
};

/** A step, the write it makes (for the rehearsal), and how a refusal of that write is reported. */
interface Planned {
  step: Step;
  operation?: RouterOperation;
  problem?: (refusal: string) => string;
}

/** The routing part of the settings, which the router validates; the rest are config.json keys. */
const ROUTING_FIELDS = ["default_route", "switch_strategy", "native_fallback_route"] as const;

async function planRouter(document: RouterDocument, context: PlanContext, problems: string[]): Promise<Step[]> {
  const { client } = context;
  const [status, upstreams, routes, effortView] = await Promise.all([
    ui<RouterStatus>(client, "GET", "/router/status"),
    ui<Upstream[]>(client, "GET", "/router/upstreams"),
    ui<Route[]>(client, "GET", "/router/routes"),
    // Read only when the file has effort sets to plan.
    document.effort ? ui<EffortView>(client, "GET", "/router/effort") : undefined,
  ]);
  const effort = effortView
    ? planEffort(document.effort ?? {}, effortView, context.prune)
    : { saves: [], removals: [] };
  const planned: Planned[] = [];
  for (const entry of document.upstreams ?? []) {
    const existing = upstreams.find((upstream) => upstream.slug === entry.slug);
    planned.push(planUpstream(entry, existing));
  }
  for (const entry of document.routes ?? []) {
    const existing = routes.find((route) => route.name === entry.name);
    planned.push(planRoute(entry, existing));
  }
  planned.push(...effort.saves);
  const settings = planSettings(document, status);
  if (settings) planned.push(settings);
  // --prune acts only within the sub-sections the file has: no `routes` list, no route pruned.
  if (context.prune && document.routes) {
    const named = new Set(document.routes.map((entry) => entry.name));
    for (const route of routes.filter((candidate) => !named.has(candidate.name))) {
      planned.push({
        step: {
          changes: [{ action: "delete", kind: route.kind, name: route.name }],
          run: (client) => remove(client, `/router/routes/${encodeURIComponent(route.id)}`),
        },
        operation: { op: "delete-route", name: route.name },
        problem: (refusal) =>
          `router.routes: --prune cannot delete ${route.kind} ${route.name}, which the file does not name: ${refusal}`,
      });
    }
  }
  if (context.prune && document.upstreams) {
    const named = new Set(document.upstreams.map((entry) => entry.slug));
    for (const upstream of upstreams.filter((candidate) => !named.has(candidate.slug))) {
      planned.push({
        step: {
          changes: [{ action: "delete", kind: "upstream", name: upstream.slug }],
          run: (client) => remove(client, `/router/upstreams/${encodeURIComponent(upstream.id)}`),
        },
        operation: { op: "delete-upstream", slug: upstream.slug },
        problem: (refusal) =>
          `router.upstreams: --prune cannot delete upstream ${upstream.slug}, which the file does not name: ${refusal}`,
      });
    }
  }

  planned.push(...effort.removals);

  const withOperations = planned.filter((item) => item.operation !== undefined);
  const refusals = rehearse(
    {
      upstreams,
      routes,
      settings: {
        default_route: status.default_route,
        switch_strategy: status.switch_strategy,
        native_fallback_route: status.native_fallback_route,
      },
      ...(effortView ? { effort: storedSets(effortView) } : {}),
    },
    withOperations.map((item) => item.operation as RouterOperation),
  );
  refusals.forEach((refusal, index) => {
    const problem = withOperations[index]?.problem;
    if (refusal !== undefined && problem) problems.push(problem(refusal));
  });
  return planned.map((item) => item.step);
}

function planUpstream(entry: UpstreamEntry, existing: Upstream | undefined): Planned {
  const problem = (refusal: string) => `${entry.path}: ${refusal}`;
  if (!existing) {
    const body: Record<string, unknown> = { slug: entry.slug, ...entry.fields };
    if (typeof entry.key === "string") body.key = entry.key;
    return {
      step: {
        changes: [{ action: "create", kind: "upstream", name: entry.slug }],
        run: async (client) => {
          await ui(client, "POST", "/router/upstreams", body);
        },
      },
      operation: { op: "save-upstream", slug: entry.slug, exists: false, body },
      problem,
    };
  }
  const body: Record<string, unknown> = {};
  for (const field of UPSTREAM_FIELDS) {
    const desired = entry.fields[field];
    if (desired !== undefined && !sameUpstreamField(field, desired, existing)) body[field] = desired;
  }
  // The key is write-only: it cannot be read back to compare, so a key in the file is sent (and sealed again) on
  // every run, as outbound secrets are. A null is sent only when the broker holds a key.
  if (typeof entry.key === "string" || (entry.key === null && existing.has_key)) body.key = entry.key;
  const path = `/router/upstreams/${encodeURIComponent(existing.id)}`;
  const step = updateStep("upstream", entry.slug, body, path);
  return step.run
    ? { step, operation: { op: "save-upstream", slug: entry.slug, exists: true, body }, problem }
    : { step };
}

/** The router stores base_url without trailing slashes and models without duplicates: compare as it stores. */
function sameUpstreamField(field: (typeof UPSTREAM_FIELDS)[number], desired: unknown, existing: Upstream): boolean {
  if (field === "base_url") return typeof desired === "string" && desired.replace(/\/+$/, "") === existing.base_url;
  if (field === "models") return Array.isArray(desired) && jsonEqual([...new Set(desired)], existing.models);
  return jsonEqual(desired, existing[field]);
}

function planRoute(entry: RouteEntry, existing: Route | undefined): Planned {
  const kind = entry.fields.kind === "alias" || entry.fields.kind === "combo" ? entry.fields.kind : existing?.kind;
  const label = kind ?? "route";
  const problem = (refusal: string) => `${entry.path}: ${refusal}`;
  if (!existing) {
    const body: Record<string, unknown> = { name: entry.name, ...entry.fields };
    return {
      step: {
        changes: [{ action: "create", kind: label, name: entry.name }],
        run: async (client) => {
          await ui(client, "POST", "/router/routes", body);
        },
      },
      operation: { op: "save-route", name: entry.name, exists: false, body },
      problem,
    };
  }
  const body = Object.fromEntries(
    Object.entries(entry.fields).filter(([field, desired]) => !jsonEqual(desired, existing[field as keyof Route])),
  );
  const step = updateStep(label, entry.name, body, `/router/routes/${encodeURIComponent(existing.id)}`);
  return step.run ? { step, operation: { op: "save-route", name: entry.name, exists: true, body }, problem } : { step };
}

/** `router.enabled` and `router.settings` in one PUT /ui/api/router/settings of the fields that differ. */
function planSettings(document: RouterDocument, status: RouterStatus): Planned | undefined {
  if (document.enabled === undefined && document.settings === undefined) return undefined;
  const body: Record<string, unknown> = {};
  if (document.enabled !== undefined && document.enabled !== status.enabled) body.enabled = document.enabled;
  for (const field of SETTINGS_KEYS) {
    const desired = document.settings?.[field];
    if (desired !== undefined && !jsonEqual(desired, status[field])) body[field] = desired;
  }
  const step = updateStep("router", "settings", body, "/router/settings", "PUT");
  const routing = Object.fromEntries(ROUTING_FIELDS.filter((field) => field in body).map((f) => [f, body[f]]));
  if (Object.keys(routing).length === 0) return { step };
  return {
    step,
    operation: { op: "save-settings", body: routing },
    problem: (refusal) => `router.settings: ${refusal}`,
  };
}

/** A PATCH (or PUT) of the fields that differ, or an unchanged entry when none do. */
function updateStep(kind: string, name: string, body: Record<string, unknown>, path: string, method = "PATCH"): Step {
  const fields = Object.keys(body);
  if (fields.length === 0) return { changes: [{ action: "unchanged", kind, name }] };
  const change: Change = { action: "update", kind, name, fields };
  return {
    changes: [change],
    run: async (client) => {
      await ui(client, method, path, body);
    },
  };
}

async function remove(client: BrokerClient, path: string): Promise<void> {
  await ui(client, "DELETE", path);
}
