import { type EffortDocument, parseEffort } from "./router-effort.js";
import { isObject, unknownKeys } from "./section.js";

/**
 * The `router` section of an apply file as written, checked for structure only (docs/apply.md). The value rules
 * (slug pattern, wires, the destination rule, alias and combo target counts, ...) are the router's own: the plan
 * phase rehearses the changes with its validator (router-rehearsal.ts) rather than copying them here.
 */

const ROUTER_KEYS = ["enabled", "settings", "upstreams", "routes", "effort"] as const;
export const SETTINGS_KEYS = [
  "default_route",
  "switch_strategy",
  "native_fallback_route",
  "max_request_body_bytes",
  "ledger_retention_days",
] as const;
/** Upstream fields besides `slug` (the upsert key) and `key` (write-only), in the order they are compared. */
export const UPSTREAM_FIELDS = [
  "label",
  "wire",
  "base_url",
  "models",
  "enabled",
  "auth",
  "model_wires",
  "credential_ref",
] as const;
/** Route fields besides `name` (the upsert key). */
export const ROUTE_FIELDS = ["kind", "targets", "enabled"] as const;

/** The longest key the router accepts (config-service.ts). */
const MAX_KEY_LENGTH = 8192;

export type SettingsField = (typeof SETTINGS_KEYS)[number];
export type UpstreamField = (typeof UPSTREAM_FIELDS)[number];
export type RouteField = (typeof ROUTE_FIELDS)[number];

export interface UpstreamEntry {
  path: string;
  slug: string;
  /** Only the fields the file gives; the others keep the broker's value (or its default for a new upstream). */
  fields: Partial<Record<UpstreamField, unknown>>;
  /** A string sets the key, null removes it, absent leaves it. */
  key?: string | null;
}

export interface RouteEntry {
  path: string;
  name: string;
  fields: Partial<Record<RouteField, unknown>>;
}

export interface RouterDocument {
  enabled?: boolean;
  settings?: Partial<Record<SettingsField, unknown>>;
  upstreams?: UpstreamEntry[];
  routes?: RouteEntry[];
  effort?: EffortDocument;
}

/** Every string under upstreams[].key, found on the raw value whether or not it parses. */
export function routerSecrets(value: unknown): string[] {
  const upstreams = isObject(value) && Array.isArray(value.upstreams) ? value.upstreams : [];
  return upstreams.flatMap((upstream: unknown) =>
    isObject(upstream) && typeof upstream.key === "string" ? [upstream.key] : [],
  );
}

/** Structural checks of `router`; problems name paths, never values. */
export function parseRouter(value: unknown, problems: string[]): RouterDocument | undefined {
  if (!isObject(value)) {
    problems.push("router must be an object with enabled, settings, upstreams, routes and/or effort");
    return undefined;
  }
  const before = problems.length;
  unknownKeys(value, ROUTER_KEYS, "router", problems);
  const document: RouterDocument = {};
  if (value.enabled !== undefined) {
    if (typeof value.enabled === "boolean") document.enabled = value.enabled;
    else problems.push("router.enabled must be true or false");
  }
  if (value.settings !== undefined) {
    const settings = parseSettings(value.settings, problems);
    if (settings) document.settings = settings;
  }
  if (value.upstreams !== undefined) {
    document.upstreams = parseList(value.upstreams, "router.upstreams", "slug", problems, parseUpstream);
  }
  if (value.routes !== undefined) {
    document.routes = parseList(value.routes, "router.routes", "name", problems, parseRoute);
  }
  if (value.effort !== undefined) {
    const effort = parseEffort(value.effort, problems);
    if (effort) document.effort = effort;
  }
  return problems.length > before ? undefined : document;
}

function parseSettings(value: unknown, problems: string[]): RouterDocument["settings"] | undefined {
  const path = "router.settings";
  if (!isObject(value)) {
    problems.push(`${path} must be an object`);
    return undefined;
  }
  unknownKeys(value, SETTINGS_KEYS, path, problems);
  for (const field of ["default_route", "native_fallback_route"] as const) {
    const route = value[field];
    if (route !== undefined && route !== null && (typeof route !== "string" || route === "")) {
      problems.push(`${path}.${field} must be a provider/model, an alias or combo name, or null`);
    }
  }
  if (value.switch_strategy !== undefined && typeof value.switch_strategy !== "string") {
    problems.push(`${path}.switch_strategy must be a string`);
  }
  // The broker checks these two itself, before the routing fields, on PUT /ui/api/router/settings.
  for (const field of ["max_request_body_bytes", "ledger_retention_days"] as const) {
    const number = value[field];
    if (number !== undefined && (typeof number !== "number" || !Number.isSafeInteger(number) || number <= 0)) {
      problems.push(`${path}.${field} must be a positive integer`);
    }
  }
  return Object.fromEntries(SETTINGS_KEYS.filter((field) => value[field] !== undefined).map((f) => [f, value[f]]));
}

function parseList<T>(
  value: unknown,
  path: string,
  keyField: "slug" | "name",
  problems: string[],
  parseEntry: (entry: Record<string, unknown>, path: string, key: string, problems: string[]) => T | undefined,
): T[] {
  if (!Array.isArray(value)) {
    problems.push(`${path} must be a list`);
    return [];
  }
  const entries: T[] = [];
  const keys = new Set<string>();
  value.forEach((item, index) => {
    const itemPath = `${path}[${index}]`;
    if (!isObject(item)) {
      problems.push(`${itemPath} must be an object`);
      return;
    }
    const key = item[keyField];
    if (typeof key !== "string" || key === "") {
      problems.push(`${itemPath}.${keyField} is required (a string)`);
    } else if (keys.has(key)) {
      problems.push(`${itemPath}.${keyField}: ${key} is named twice in ${path}`);
    } else {
      keys.add(key);
    }
    const entry = parseEntry(item, itemPath, typeof key === "string" ? key : "", problems);
    if (entry) entries.push(entry);
  });
  return entries;
}

function parseUpstream(
  item: Record<string, unknown>,
  path: string,
  slug: string,
  problems: string[],
): UpstreamEntry | undefined {
  unknownKeys(item, ["slug", ...UPSTREAM_FIELDS, "key"], path, problems);
  for (const field of ["label", "wire", "base_url", "auth"] as const) optionalString(item, field, path, problems);
  optionalBoolean(item, "enabled", path, problems);
  if (item.models !== undefined && !isStringList(item.models)) {
    problems.push(`${path}.models must be a list of model IDs`);
  }
  if (
    item.model_wires !== undefined &&
    !(isObject(item.model_wires) && Object.values(item.model_wires).every((wire) => typeof wire === "string"))
  ) {
    problems.push(`${path}.model_wires must be an object of model ID to wire`);
  }
  if (item.credential_ref !== undefined && item.credential_ref !== null && typeof item.credential_ref !== "string") {
    problems.push(`${path}.credential_ref must be a string (api_account:<id> or profile:<directory>) or null`);
  }
  const key = item.key;
  if (key !== undefined && key !== null && (typeof key !== "string" || key.length < 1 || key.length > MAX_KEY_LENGTH)) {
    problems.push(`${path}.key must be a string of 1-${MAX_KEY_LENGTH} characters, or null to remove it`);
  }
  const entry: UpstreamEntry = {
    path,
    slug,
    fields: Object.fromEntries(UPSTREAM_FIELDS.filter((field) => item[field] !== undefined).map((f) => [f, item[f]])),
  };
  if (key === null || typeof key === "string") entry.key = key;
  return entry;
}

function parseRoute(item: Record<string, unknown>, path: string, name: string, problems: string[]): RouteEntry {
  unknownKeys(item, ["name", ...ROUTE_FIELDS], path, problems);
  optionalString(item, "kind", path, problems);
  optionalBoolean(item, "enabled", path, problems);
  if (item.targets !== undefined && !isStringList(item.targets)) {
    problems.push(`${path}.targets must be a list of provider/model strings`);
  }
  return {
    path,
    name,
    fields: Object.fromEntries(ROUTE_FIELDS.filter((field) => item[field] !== undefined).map((f) => [f, item[f]])),
  };
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function optionalString(item: Record<string, unknown>, field: string, path: string, problems: string[]): void {
  if (item[field] !== undefined && typeof item[field] !== "string") problems.push(`${path}.${field} must be a string`);
}

function optionalBoolean(item: Record<string, unknown>, field: string, path: string, problems: string[]): void {
  if (item[field] !== undefined && typeof item[field] !== "boolean") {
    problems.push(`${path}.${field} must be true or false`);
  }
}
