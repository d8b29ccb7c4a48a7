import { routingOptionFields } from "@notify/contracts";
import {
  ROUTE_NOISE_FIELDS,
  ROUTE_ROUTING_FIELDS,
  type RouteNoiseField,
  type RouteRoutingField,
} from "@notify/contracts/routing-summary";
import { isTypeId } from "../../notifications/type-ids.js";
import { PRIORITIES, type Priority } from "../../notifications/types.js";
import { isObject, unknownKeys } from "./section.js";

/** The `outbound` section of an apply file as written, checked for structure only (docs/apply.md). */

const OUTBOUND_KEYS = ["providers", "routes"] as const;
const PROVIDER_KEYS = ["name", "kind", "settings", "secrets", "enabled"] as const;
const ROUTE_KEYS = [
  "name",
  "provider",
  "enabled",
  "minimumPriority",
  "typeId",
  "project",
  "agent",
  "includeMessage",
  "delay_seconds",
  "when",
  "quiet_hours",
  "digest_seconds",
  "replace_finished",
] as const;
/**
 * A route's attention routing options (docs/routing.md) and noise options (docs/outbound.md, "Less noise"): absent
 * keeps the broker's value, null clears it.
 */
export const ROUTING_FIELDS = [...ROUTE_ROUTING_FIELDS, ...ROUTE_NOISE_FIELDS] as const;
export type RoutingField = RouteRoutingField | RouteNoiseField;
/** Route gates: absent leaves the broker's value, null clears it, a string sets it (trimmed, as the broker does). */
export const GATES = [
  { field: "typeId", max: 64 },
  { field: "project", max: 200 },
  { field: "agent", max: 100 },
] as const;
export type Gate = (typeof GATES)[number]["field"];

export interface ProviderEntry {
  path: string;
  name: string;
  kind: string;
  settings: Record<string, unknown>;
  /** A string sets the secret, null removes it; secrets not named are left as they are. */
  secrets?: Record<string, string | null>;
  enabled?: boolean;
}

export interface RouteEntry {
  path: string;
  name: string;
  /** A provider name (in the file or the broker), or an existing provider's id. */
  provider: string;
  enabled?: boolean;
  minimumPriority?: Priority;
  includeMessage?: boolean;
  gates: Partial<Record<Gate, string | null>>;
  routing: Partial<Record<RoutingField, unknown>>;
}

export interface OutboundDocument {
  providers?: ProviderEntry[];
  routes?: RouteEntry[];
}

/** Every string secret value under providers[].secrets, found on the raw value whether or not it parses. */
export function outboundSecrets(value: unknown): string[] {
  const providers = isObject(value) && Array.isArray(value.providers) ? value.providers : [];
  return providers.flatMap((provider: unknown) =>
    isObject(provider) && isObject(provider.secrets)
      ? Object.values(provider.secrets).filter((secret): secret is string => typeof secret === "string")
      : [],
  );
}

/** Structural checks of `outbound`; problems name paths, never values. */
export function parseOutbound(value: unknown, problems: string[]): OutboundDocument | undefined {
  if (!isObject(value)) {
    problems.push("outbound must be an object with providers and/or routes");
    return undefined;
  }
  const before = problems.length;
  unknownKeys(value, OUTBOUND_KEYS, "outbound", problems);
  const document: OutboundDocument = {};
  if (value.providers !== undefined) {
    document.providers = parseList(value.providers, "outbound.providers", problems, parseProvider);
  }
  if (value.routes !== undefined) {
    document.routes = parseList(value.routes, "outbound.routes", problems, parseRoute);
  }
  return problems.length > before ? undefined : document;
}

function parseList<T extends { name: string; path: string }>(
  value: unknown,
  path: string,
  problems: string[],
  parseEntry: (entry: Record<string, unknown>, path: string, problems: string[]) => T | undefined,
): T[] {
  if (!Array.isArray(value)) {
    problems.push(`${path} must be a list`);
    return [];
  }
  const entries: T[] = [];
  const names = new Set<string>();
  value.forEach((item, index) => {
    const itemPath = `${path}[${index}]`;
    if (!isObject(item)) {
      problems.push(`${itemPath} must be an object`);
      return;
    }
    const entry = parseEntry(item, itemPath, problems);
    if (!entry) return;
    if (names.has(entry.name)) problems.push(`${itemPath}.name: ${entry.name} is named twice in ${path}`);
    names.add(entry.name);
    entries.push(entry);
  });
  return entries;
}

function parseProvider(item: Record<string, unknown>, path: string, problems: string[]): ProviderEntry | undefined {
  const before = problems.length;
  unknownKeys(item, PROVIDER_KEYS, path, problems);
  const name = nameField(item.name, `${path}.name`, problems);
  if (typeof item.kind !== "string" || item.kind === "") problems.push(`${path}.kind must be a provider kind`);
  if (!isObject(item.settings)) problems.push(`${path}.settings must be an object`);
  optionalBoolean(item.enabled, `${path}.enabled`, problems);
  if (item.secrets !== undefined) {
    if (!isObject(item.secrets)) {
      problems.push(`${path}.secrets must be an object of secret names to values`);
    } else {
      for (const [secret, value] of Object.entries(item.secrets)) {
        if (value !== null && (typeof value !== "string" || value.length < 1 || value.length > 4096)) {
          problems.push(`${path}.secrets.${secret} must be a string of 1-4096 characters, or null to remove it`);
        }
      }
    }
  }
  if (problems.length > before || name === undefined) return undefined;
  const entry: ProviderEntry = {
    path,
    name,
    kind: item.kind as string,
    settings: item.settings as Record<string, unknown>,
  };
  if (item.secrets !== undefined) entry.secrets = item.secrets as Record<string, string | null>;
  if (item.enabled !== undefined) entry.enabled = item.enabled as boolean;
  return entry;
}

function parseRoute(item: Record<string, unknown>, path: string, problems: string[]): RouteEntry | undefined {
  const before = problems.length;
  unknownKeys(item, ROUTE_KEYS, path, problems);
  const name = nameField(item.name, `${path}.name`, problems);
  if (typeof item.provider !== "string" || item.provider.trim() === "") {
    problems.push(`${path}.provider must name a provider`);
  }
  optionalBoolean(item.enabled, `${path}.enabled`, problems);
  optionalBoolean(item.includeMessage, `${path}.includeMessage`, problems);
  if (
    item.minimumPriority !== undefined &&
    (typeof item.minimumPriority !== "string" || !(PRIORITIES as readonly string[]).includes(item.minimumPriority))
  ) {
    problems.push(`${path}.minimumPriority must be one of ${PRIORITIES.join(", ")}`);
  }
  const gates: RouteEntry["gates"] = {};
  for (const { field, max } of GATES) {
    if (!Object.hasOwn(item, field)) continue;
    const value = item[field];
    if (value === null) {
      gates[field] = null;
    } else if (typeof value !== "string" || value.trim() === "" || value.length > max) {
      problems.push(`${path}.${field} must be a string of 1-${max} characters, or null for any`);
    } else if (field === "typeId" && !isTypeId(value.trim().replaceAll("-", "_").toLowerCase())) {
      problems.push(`${path}.typeId must be a type ID`);
    } else {
      gates[field] = value.trim();
    }
  }
  const routing: RouteEntry["routing"] = {};
  for (const field of ROUTING_FIELDS) {
    if (!Object.hasOwn(item, field)) continue;
    const value = item[field];
    if (value === null) {
      routing[field] = null;
      continue;
    }
    const parsed = routingOptionFields[field].safeParse(value);
    if (parsed.success) routing[field] = parsed.data;
    else {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${field}.${issue.path.join(".")}` : field;
      problems.push(`${path}.${where}: ${issue?.message ?? "is not valid"}`);
    }
  }
  if (problems.length > before || name === undefined) return undefined;
  const entry: RouteEntry = { path, name, provider: item.provider as string, gates, routing };
  if (item.enabled !== undefined) entry.enabled = item.enabled as boolean;
  if (item.includeMessage !== undefined) entry.includeMessage = item.includeMessage as boolean;
  if (item.minimumPriority !== undefined) entry.minimumPriority = item.minimumPriority as Priority;
  return entry;
}

/** Names are the upsert keys: 1-100 characters, as the broker requires. */
function nameField(value: unknown, path: string, problems: string[]): string | undefined {
  if (typeof value !== "string" || value.trim() === "" || value.length > 100) {
    problems.push(`${path} must be a string of 1-100 characters`);
    return undefined;
  }
  return value;
}

function optionalBoolean(value: unknown, path: string, problems: string[]): void {
  if (value !== undefined && typeof value !== "boolean") problems.push(`${path} must be true or false`);
}
