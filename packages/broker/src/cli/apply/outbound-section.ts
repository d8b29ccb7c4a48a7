import type { BrokerClient } from "../../client/client.js";
import { DomainError } from "../../domain/errors.js";
import { ADAPTERS } from "../../outbox/providers/registry.js";
import type { OutboundRoute, ProviderProfile } from "../../outbox/types.js";
import {
  GATES,
  type OutboundDocument,
  outboundSecrets,
  type ProviderEntry,
  parseOutbound,
  ROUTING_FIELDS,
  type RouteEntry,
  type RoutingField,
} from "./outbound-document.js";
import { secretShapeProblem } from "./secret-shapes.js";
import { type ApplySection, type Change, jsonEqual, type PlanContext, type Step, ui } from "./section.js";

interface KindInfo {
  kind: string;
  secrets: { required: string[]; optional: string[] };
}

/**
 * `outbound`: provider profiles and routes, upserted by name through /ui/api/outbound
 * (docs/outbound.md, "Delivery rules"). Order: providers, then routes (a route names its provider), then with --prune
 * the routes and then the providers the file does not name. Fields an entry leaves out keep the broker's value; new
 * entries get the broker's defaults (disabled, docs/outbound.md, "Delivery rules", rule 4).
 */
export const outboundSection: ApplySection = {
  key: "outbound",
  // Best effort over the raw value, so even a file that fails to parse cannot echo a secret.
  secrets: outboundSecrets,
  parse(value, problems) {
    const document = parseOutbound(value, problems);
    return document && { plan: (context, planProblems) => planOutbound(document, context, planProblems) };
  },
};

async function planOutbound(document: OutboundDocument, context: PlanContext, problems: string[]): Promise<Step[]> {
  const { client } = context;
  const [kinds, providers, routes] = await Promise.all([
    ui<KindInfo[]>(client, "GET", "/outbound/kinds"),
    ui<ProviderProfile[]>(client, "GET", "/outbound/providers"),
    ui<OutboundRoute[]>(client, "GET", "/outbound/routes"),
  ]);
  const providerNames = new Set((document.providers ?? []).map((provider) => provider.name));
  const routeNames = new Set((document.routes ?? []).map((route) => route.name));
  // --prune acts only within the sub-sections the file has: no `routes` list, no route pruned by name.
  // A relay provider holds an installation that only enrolling makes (the `relay` section, `notify relay enroll`):
  // pruning it, or the route that carries questions to it, would unpair every phone, so --prune leaves both alone.
  const relayIds = new Set(providers.filter((provider) => provider.kind === "relay").map((provider) => provider.id));
  const prunedProviders =
    context.prune && document.providers
      ? providers.filter((provider) => !providerNames.has(provider.name) && !relayIds.has(provider.id))
      : [];
  const prunedRoutes =
    context.prune && document.routes
      ? routes.filter((route) => !routeNames.has(route.name) && !relayIds.has(route.providerId))
      : [];

  const steps: Step[] = [];
  for (const entry of document.providers ?? []) {
    const existing = providers.find((provider) => provider.name === entry.name);
    const step = planProvider(entry, existing, kinds, problems);
    if (step) steps.push(step);
  }
  for (const entry of document.routes ?? []) {
    const providerName = resolveProvider(entry, providerNames, providers, prunedProviders, problems);
    if (providerName === undefined) continue;
    const existing = routes.find((route) => route.name === entry.name);
    const currentProvider = providers.find((provider) => provider.id === existing?.providerId)?.name;
    steps.push(planRoute(entry, providerName, existing, currentProvider));
  }
  for (const route of prunedRoutes) {
    steps.push({
      changes: [{ action: "delete", kind: "route", name: route.name }],
      run: (client) => remove(client, `/outbound/routes/${encodeURIComponent(route.id)}`),
    });
  }
  for (const provider of prunedProviders) {
    // The broker deletes a provider's routes with it; say so for those the file did not already account for.
    const cascaded = routes.filter(
      (route) => route.providerId === provider.id && !routeNames.has(route.name) && !prunedRoutes.includes(route),
    );
    steps.push({
      changes: [
        { action: "delete", kind: "provider", name: provider.name },
        ...cascaded.map(
          (route): Change => ({
            action: "delete",
            kind: "route",
            name: route.name,
            note: `with provider ${provider.name}`,
          }),
        ),
      ],
      run: (client) => remove(client, `/outbound/providers/${encodeURIComponent(provider.id)}`),
    });
  }
  return steps;
}

async function remove(client: BrokerClient, path: string): Promise<void> {
  await ui(client, "DELETE", path);
}

function planProvider(
  entry: ProviderEntry,
  existing: ProviderProfile | undefined,
  kinds: KindInfo[],
  problems: string[],
): Step | undefined {
  const kind = kinds.find((candidate) => candidate.kind === entry.kind);
  if (!kind) {
    problems.push(`${entry.path}.kind: the broker has no provider kind ${entry.kind} (it has ${kindList(kinds)})`);
    return undefined;
  }
  // The broker's own settings check, run here so a bad entry stops the run before anything changes; the settings
  // it returns are normalized as the broker stores them, so unchanged settings compare equal.
  let settings = entry.settings;
  const adapter = ADAPTERS.get(entry.kind);
  if (adapter) {
    try {
      settings = adapter.parseSettings(entry.settings);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      problems.push(`${entry.path}.settings: ${error.message}`);
      return undefined;
    }
  }
  const known = [...kind.secrets.required, ...kind.secrets.optional];
  const given = Object.entries(entry.secrets ?? {});
  const unknown = given.map(([name]) => name).filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    problems.push(
      `${entry.path}.secrets: unknown secret${unknown.length === 1 ? "" : "s"} for ${entry.kind}: ${unknown.join(", ")}` +
        ` (it takes ${known.length > 0 ? known.join(", ") : "none"})`,
    );
    return undefined;
  }
  const malformed = given
    .map(([name, value]) => (typeof value === "string" ? secretShapeProblem(entry.kind, name, value) : undefined))
    .filter((problem) => problem !== undefined);
  if (malformed.length > 0) {
    problems.push(`${entry.path}.secrets: ${malformed.join("; ")}`);
    return undefined;
  }
  const after = new Set(existing?.secretNames ?? []);
  for (const [name, value] of given) {
    if (value === null) after.delete(name);
    else after.add(name);
  }
  const missing = kind.secrets.required.filter((name) => !after.has(name));
  if (missing.length > 0) {
    problems.push(`${entry.path}.secrets: ${entry.kind} needs ${missing.join(", ")}`);
    return undefined;
  }
  // Secret values are write-only: they cannot be read back to compare, so every value in the file is sent (and
  // sealed again) on every run. A null is sent only when the broker holds that secret.
  const secrets = Object.fromEntries(
    given.filter(([name, value]) => value !== null || existing?.secretNames.includes(name)),
  );
  const hasSecrets = Object.keys(secrets).length > 0;

  if (!existing) {
    const body: Record<string, unknown> = { name: entry.name, kind: entry.kind, settings: entry.settings };
    if (hasSecrets) body.secrets = secrets;
    if (entry.enabled !== undefined) body.enabled = entry.enabled;
    return {
      changes: [{ action: "create", kind: "provider", name: entry.name }],
      run: async (client) => {
        await ui(client, "POST", "/outbound/providers", body);
      },
    };
  }
  const body: Record<string, unknown> = {};
  if (existing.kind !== entry.kind) body.kind = entry.kind;
  if (existing.kind !== entry.kind || !jsonEqual(settings, existing.settings)) body.settings = entry.settings;
  if (entry.enabled !== undefined && entry.enabled !== existing.enabled) body.enabled = entry.enabled;
  if (hasSecrets) body.secrets = secrets;
  return updateStep("provider", entry.name, body, `/outbound/providers/${encodeURIComponent(existing.id)}`);
}

function kindList(kinds: KindInfo[]): string {
  return kinds.map((kind) => kind.kind).join(", ") || "none";
}

/** The name of the provider a route entry points at, or undefined with a problem. */
function resolveProvider(
  entry: RouteEntry,
  fileProviders: Set<string>,
  providers: ProviderProfile[],
  pruned: ProviderProfile[],
  problems: string[],
): string | undefined {
  if (fileProviders.has(entry.provider)) return entry.provider;
  const existing =
    providers.find((provider) => provider.name === entry.provider) ??
    providers.find((provider) => provider.id === entry.provider);
  if (!existing) {
    problems.push(`${entry.path}.provider: no provider ${entry.provider} in the file or the broker`);
    return undefined;
  }
  if (pruned.includes(existing)) {
    problems.push(
      `${entry.path}.provider: provider ${existing.name} is not in outbound.providers, so --prune would delete it`,
    );
    return undefined;
  }
  return existing.name;
}

function planRoute(
  entry: RouteEntry,
  providerName: string,
  existing: OutboundRoute | undefined,
  currentProvider: string | undefined,
): Step {
  if (!existing) {
    const body: Record<string, unknown> = { name: entry.name, provider: providerName };
    if (entry.enabled !== undefined) body.enabled = entry.enabled;
    if (entry.minimumPriority !== undefined) body.minimumPriority = entry.minimumPriority;
    if (entry.includeMessage !== undefined) body.includeMessage = entry.includeMessage;
    for (const [field, value] of Object.entries(entry.gates)) if (value !== null) body[field] = value;
    for (const [field, value] of Object.entries(entry.routing)) if (value !== null) body[field] = value;
    return {
      changes: [{ action: "create", kind: "route", name: entry.name }],
      run: async (client) => {
        await ui(client, "POST", "/outbound/routes", body);
      },
    };
  }
  const body: Record<string, unknown> = {};
  if (providerName !== currentProvider) body.provider = providerName;
  if (entry.enabled !== undefined && entry.enabled !== existing.enabled) body.enabled = entry.enabled;
  if (entry.minimumPriority !== undefined && entry.minimumPriority !== existing.minimumPriority) {
    body.minimumPriority = entry.minimumPriority;
  }
  if (entry.includeMessage !== undefined && entry.includeMessage !== existing.includeMessage) {
    body.includeMessage = entry.includeMessage;
  }
  for (const { field } of GATES) {
    const value = entry.gates[field];
    if (value !== undefined && (value ?? undefined) !== existing[field]) body[field] = value;
  }
  for (const field of ROUTING_FIELDS) {
    if (!Object.hasOwn(entry.routing, field)) continue;
    const value = entry.routing[field];
    if (!sameRoutingValue(field, value, existing[field])) body[field] = value;
  }
  return updateStep("route", entry.name, body, `/outbound/routes/${encodeURIComponent(existing.id)}`);
}

/**
 * Whether a file's routing value equals the broker's: the broker stores no default (`0`, `always`, null), so a
 * default in the file equals an absent value there.
 */
function sameRoutingValue(field: RoutingField, value: unknown, current: unknown): boolean {
  const defaults: Record<RoutingField, unknown> = {
    delay_seconds: 0,
    when: "always",
    quiet_hours: null,
    digest_seconds: 0,
    replace_finished: true,
  };
  const normal = (v: unknown) => (v === undefined || v === null || v === defaults[field] ? null : v);
  return jsonEqual(normal(value), normal(current));
}

/** A PATCH of the fields that differ, or an unchanged entry when none do. */
function updateStep(kind: string, name: string, body: Record<string, unknown>, path: string): Step {
  const fields = Object.keys(body);
  if (fields.length === 0) return { changes: [{ action: "unchanged", kind, name }] };
  return {
    changes: [{ action: "update", kind, name, fields }],
    run: async (client) => {
      await ui(client, "PATCH", path, body);
    },
  };
}
