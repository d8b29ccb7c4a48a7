import type { BrokerClient } from "../../client/client.js";

/**
 * One top-level section of a `notify apply` file (docs/apply.md). A run goes through three phases, and only the
 * last one writes:
 * 1. parse: structural checks of every section, without the broker;
 * 2. plan: each section reads the broker's current state, checks references, and returns its steps;
 * 3. run: the steps, in order (sections in the order of SECTIONS, each section ordering its own steps).
 * Any problem in phases 1 and 2 stops the run before anything changes.
 */
export interface ApplySection {
  /** The top-level key of the file this section reads. */
  key: string;
  /**
   * Every secret value the section's raw value carries, found before (and whether or not) it parses: nothing the
   * command prints, errors included, may contain one.
   */
  secrets(value: unknown): string[];
  /** Structural checks; problems name the path and never quote a value (it could be a secret). */
  parse(value: unknown, problems: string[]): ParsedSection | undefined;
}

export interface ParsedSection {
  /** Reads the broker and returns the steps; writes nothing. Problems found here also stop the run. */
  plan(context: PlanContext, problems: string[]): Promise<Step[]>;
}

export interface PlanContext {
  client: BrokerClient;
  /** `--prune`: delete what the file does not name, within the sections (and sub-sections) it has. */
  prune: boolean;
  /** The apply file's directory: paths in the file (sound files) are relative to it. */
  baseDir: string;
}

export type ChangeAction = "create" | "update" | "delete" | "unchanged";

/** One reported change: a line on stderr, an entry in the --json summary. */
export interface Change {
  action: ChangeAction;
  /** What is changed: `provider`, `route`, `type`, ... */
  kind: string;
  name: string;
  /** For updates: the fields that differ (secret values are never compared, so `secrets` is always listed). */
  fields?: string[];
  /** Why a change happens that the file does not spell out (a route deleted with its provider). */
  note?: string;
}

/** One broker call (or none, for unchanged entries) and the changes it makes. */
export interface Step {
  changes: Change[];
  run?: (client: BrokerClient) => Promise<void>;
}

/** A /ui/api request (the bearer token; `X-Notify-UI: 1` on changes). */
export function ui<T>(client: BrokerClient, method: string, path: string, body?: unknown): Promise<T> {
  return client.request<T>(method, `/ui/api${path}`, { ui: true, ...(body === undefined ? {} : { body }) });
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Pushes a problem for every key of `value` outside `known`, naming them (keys are names, never secret values). */
export function unknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  path: string,
  problems: string[],
) {
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    problems.push(
      `${path}: unknown key${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")} (expected ${known.join(", ")})`,
    );
  }
}

/** Deep equality of JSON values, object key order ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a).filter((key) => a[key] !== undefined);
  const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
  return keys.length === otherKeys.length && keys.every((key) => jsonEqual(a[key], b[key]));
}
