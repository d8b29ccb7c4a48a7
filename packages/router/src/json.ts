import { invalidRequest } from "./translation-error.js";

/** Small guards for bodies that arrive as `unknown` from JSON.parse. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, what: string): JsonObject {
  if (!isObject(value)) throw invalidRequest(`${what} must be an object`);
  return value;
}

export function requireArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw invalidRequest(`${what} must be an array`);
  return value;
}

export function requireString(value: unknown, what: string): string {
  if (typeof value !== "string") throw invalidRequest(`${what} must be a string`);
  return value;
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function optionalNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function optionalBoolean(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/** A count from a usage object: absent, null or garbage reads as 0. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** Parses a chunk; `undefined` marks a chunk that is not a JSON object. */
export function parseObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Arguments JSON as an object; a tool call whose arguments are not an object becomes `{}` on block wires. */
export function parseArguments(argumentsJson: string): JsonObject {
  const parsed = argumentsJson.trim() === "" ? {} : parseObject(argumentsJson);
  return parsed ?? {};
}

/** `T` with every field that may be `undefined` turned into an optional field that, when present, is defined. */
export type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/**
 * Only the keys that are defined. With `exactOptionalPropertyTypes` an optional field must be absent, not
 * `undefined`, and a wire body should not carry fields the client never sent.
 */
export function definedOnly<const T extends object>(value: T): Defined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Defined<T>;
}
