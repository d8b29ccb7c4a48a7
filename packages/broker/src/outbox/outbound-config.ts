import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { ROUTE_NOISE_FIELDS, ROUTE_ROUTING_FIELDS } from "@notify/contracts/routing-summary";
import { DomainError, invalid } from "../domain/errors.js";
import { isTypeId } from "../notifications/type-ids.js";
import { PRIORITIES, type Priority } from "../notifications/types.js";
import type { OutboundRoute, ProviderAdapter, ProviderProfile } from "./types.js";

/**
 * The configuration half of outbound delivery: what a provider profile or a route may be, checked in the order the
 * API reports problems. OutboundService stores what passes and routes notifications with it.
 */

/**
 * The contract's routing schemas, and with them zod (about 95 modules), load when a route's routing options are first
 * checked, not at broker start (issue 22 part 6; test/startup/lean-start.e2e.test.ts).
 */
const requireModule = createRequire(import.meta.url);
const routingFields = (): typeof import("@notify/contracts").routingOptionFields =>
  (requireModule("@notify/contracts") as typeof import("@notify/contracts")).routingOptionFields;

export const providerNotFound = (): DomainError => new DomainError("validation", "provider not found");

export interface ProfileInput {
  kind?: unknown;
  name?: unknown;
  settings?: unknown;
  /** Write-only: values replace the named secrets; `null` removes one. */
  secrets?: unknown;
  enabled?: unknown;
}

export interface RouteInput {
  name?: unknown;
  provider?: unknown;
  enabled?: unknown;
  minimumPriority?: unknown;
  typeId?: unknown;
  project?: unknown;
  agent?: unknown;
  includeMessage?: unknown;
  /** Attention routing (docs/routing.md): absent keeps the route's value, null puts the default back. */
  delay_seconds?: unknown;
  when?: unknown;
  quiet_hours?: unknown;
  /** Less noise (docs/outbound.md, "Less noise"): absent keeps the route's value, null puts the default back. */
  digest_seconds?: unknown;
  replace_finished?: unknown;
}

/** How the checks find the profiles and routes that exist (names are unique). */
export interface ConfigLookups {
  findProfile(idOrName: string): ProviderProfile | undefined;
  findRoute(idOrName: string): OutboundRoute | undefined;
}

/** A profile's kind, name, settings and enabled flag from an input and the profile it updates, checked. */
export function profileFieldsFromInput(
  input: ProfileInput,
  existing: ProviderProfile | undefined,
  adapters: ReadonlyMap<string, ProviderAdapter>,
  lookups: Pick<ConfigLookups, "findProfile">,
): { kind: string; adapter: ProviderAdapter; name: string; settings: Record<string, unknown>; enabled: boolean } {
  const kind = input.kind ?? existing?.kind;
  if (typeof kind !== "string" || !adapters.has(kind)) {
    throw invalid(`kind must be one of ${[...adapters.keys()].join(", ")}`);
  }
  const adapter = adapters.get(kind) as ProviderAdapter;
  const name = input.name ?? existing?.name;
  if (typeof name !== "string" || name.trim().length < 1 || name.length > 100) {
    throw invalid("name must be 1-100 characters");
  }
  const clash = lookups.findProfile(name);
  if (clash && clash.id !== existing?.id) throw invalid(`a provider named ${name} already exists`);
  const settings = adapter.parseSettings(input.settings ?? existing?.settings);
  const enabled = input.enabled === undefined ? (existing?.enabled ?? false) : input.enabled;
  if (typeof enabled !== "boolean") throw invalid("enabled must be true or false");
  return { kind, adapter, name, settings, enabled };
}

/** A route from an input and the route it updates, checked (new routes start disabled unless told). */
export function routeFromInput(
  input: RouteInput,
  existing: OutboundRoute | undefined,
  lookups: ConfigLookups,
  nowIso: string,
): OutboundRoute {
  const name = input.name ?? existing?.name;
  if (typeof name !== "string" || name.trim().length < 1 || name.length > 100) {
    throw invalid("name must be 1-100 characters");
  }
  const clash = lookups.findRoute(name);
  if (clash && clash.id !== existing?.id) throw invalid(`a route named ${name} already exists`);
  const providerRef = input.provider ?? existing?.providerId;
  const provider = typeof providerRef === "string" ? lookups.findProfile(providerRef) : undefined;
  if (!provider) throw invalid("provider must name an existing provider profile (id or name)");
  const minimumPriority = input.minimumPriority ?? existing?.minimumPriority ?? "low";
  if (typeof minimumPriority !== "string" || !(PRIORITIES as readonly string[]).includes(minimumPriority)) {
    throw invalid(`minimumPriority must be one of ${PRIORITIES.join(", ")}`);
  }
  const enabled = input.enabled === undefined ? (existing?.enabled ?? false) : input.enabled;
  const includeMessage = input.includeMessage === undefined ? (existing?.includeMessage ?? true) : input.includeMessage;
  if (typeof enabled !== "boolean") throw invalid("enabled must be true or false");
  if (typeof includeMessage !== "boolean") throw invalid("includeMessage must be true or false");
  const route: OutboundRoute = {
    id: existing?.id ?? `rte_${randomBytes(12).toString("hex")}`,
    name,
    providerId: provider.id,
    enabled,
    minimumPriority: minimumPriority as Priority,
    includeMessage,
    createdAt: existing?.createdAt ?? nowIso,
    updatedAt: nowIso,
  };
  const typeId = optionalGate(input, existing, "typeId", 64);
  if (typeId !== undefined) {
    if (!isTypeId(typeId.replaceAll("-", "_").toLowerCase())) throw invalid("typeId must be a type ID");
    route.typeId = typeId;
  }
  const project = optionalGate(input, existing, "project", 200);
  if (project !== undefined) route.project = project;
  const agent = optionalGate(input, existing, "agent", 100);
  if (agent !== undefined) route.agent = agent;
  routingOptions(input, existing, route);
  return route;
}

/**
 * The routing options onto `route`, checked with the contract's `routingOptionFields`: absent keeps the existing
 * route's value, null clears it. A value equal to its default is not stored (`0`, `always`), so a route reads the
 * same whether it was given the default or nothing.
 */
function routingOptions(input: RouteInput, existing: OutboundRoute | undefined, route: OutboundRoute): void {
  for (const field of ROUTE_ROUTING_FIELDS) {
    const value = Object.hasOwn(input, field) ? input[field] : existing?.[field];
    if (value === undefined || value === null) continue;
    const parsed = routingFields()[field].safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${field}.${issue.path.join(".")}` : field;
      throw invalid(`${where}: ${issue?.message ?? "is not valid"}`, where);
    }
    if (field === "delay_seconds" && parsed.data !== 0) route.delay_seconds = parsed.data as number;
    if (field === "when" && parsed.data !== "always") route.when = parsed.data as OutboundRoute["when"] & string;
    if (field === "quiet_hours" && parsed.data)
      route.quiet_hours = parsed.data as NonNullable<OutboundRoute["quiet_hours"]>;
  }
  for (const field of ROUTE_NOISE_FIELDS) {
    const value = Object.hasOwn(input, field) ? input[field] : existing?.[field];
    if (value === undefined || value === null) continue;
    const parsed = routingFields()[field].safeParse(value);
    if (!parsed.success) throw invalid(`${field}: ${parsed.error.issues[0]?.message ?? "is not valid"}`, field);
    if (field === "digest_seconds" && parsed.data !== 0) route.digest_seconds = parsed.data as number;
    if (field === "replace_finished" && parsed.data === false) route.replace_finished = false;
  }
}

export function mergeSecrets(
  current: Record<string, string>,
  change: unknown,
  adapter: ProviderAdapter,
): Record<string, string> {
  if (change === undefined || change === null) return current;
  if (typeof change !== "object" || Array.isArray(change)) throw invalid("secrets must be an object of strings");
  const known = [...adapter.secrets.required, ...adapter.secrets.optional];
  const merged = { ...current };
  for (const [name, value] of Object.entries(change)) {
    if (!known.includes(name)) throw invalid(`unknown secret for ${adapter.kind}: ${name}`);
    if (value === null) delete merged[name];
    else if (typeof value === "string" && value.length > 0 && value.length <= 4096) merged[name] = value;
    else throw invalid(`secret ${name} must be a string of 1-4096 characters, or null to remove it`);
  }
  return merged;
}

function optionalGate(
  input: RouteInput,
  existing: OutboundRoute | undefined,
  field: "typeId" | "project" | "agent",
  max: number,
): string | undefined {
  const value = Object.hasOwn(input, field) ? input[field] : existing?.[field];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || value.trim().length === 0 || value.length > max) {
    throw invalid(`${field} must be 1-${max} characters`);
  }
  return value.trim();
}
