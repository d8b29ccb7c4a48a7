import { invalid } from "../../domain/errors.js";

/** Shared settings checks for adapters; each throws a 400 naming the field. */
export function settingsObject(settings: unknown, kind: string): Record<string, unknown> {
  if (settings === undefined || settings === null) return {};
  if (typeof settings !== "object" || Array.isArray(settings)) throw invalid(`${kind} settings must be an object`);
  return settings as Record<string, unknown>;
}

export function httpUrl(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalid(`${field} is required and must be an http(s) URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field} must be an http(s) URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalid(`${field} must be an http(s) URL`);
  if (url.username || url.password) throw invalid(`${field} must not carry user info; put credentials in secrets`);
  return url.toString();
}

export function optionalString(value: unknown, field: string, max = 500): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.length < 1 || value.length > max) {
    throw invalid(`${field} must be a string of 1-${max} characters`);
  }
  return value;
}

export function requiredString(value: unknown, field: string, max = 500): string {
  const text = optionalString(value, field, max);
  if (text === undefined) throw invalid(`${field} is required`);
  return text;
}

/** Rejects settings fields the adapter does not know, so a typo is not silently ignored. */
export function onlyFields(settings: Record<string, unknown>, allowed: readonly string[], kind: string): void {
  for (const field of Object.keys(settings)) {
    if (!allowed.includes(field)) throw invalid(`unknown ${kind} setting: ${field}`);
  }
}

export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalid(`${field} must be true or false`);
  return value;
}

export function optionalHttpUrl(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  return httpUrl(value, field);
}

/** A list of 1-`maxItems` strings of 1-`maxLength` characters, none of them matching `forbidden`. */
export function optionalStringList(
  value: unknown,
  field: string,
  maxItems: number,
  maxLength: number,
  forbidden = /[\r\n]/,
): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    !Array.isArray(value) ||
    value.length < 1 ||
    value.length > maxItems ||
    !value.every(
      (item) => typeof item === "string" && item.length >= 1 && item.length <= maxLength && !forbidden.test(item),
    )
  ) {
    throw invalid(`${field} must be a list of 1-${maxItems} strings of 1-${maxLength} characters`);
  }
  return value as string[];
}

/** One of a fixed set of strings. */
export function optionalChoice<T extends string>(value: unknown, field: string, choices: readonly T[]): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !(choices as readonly string[]).includes(value)) {
    throw invalid(`${field} must be one of ${choices.join(", ")}`);
  }
  return value as T;
}

/**
 * A secret that is itself a URL (Slack and Discord webhooks). Secrets are not checked on write, so a bad one is
 * found here, at send time; the caller turns undefined into a final `provider_secret_invalid` that names nothing.
 */
export function secretHttpUrl(value: string | undefined): URL | undefined {
  if (value === undefined) return undefined;
  try {
    return new URL(httpUrl(value, "secret"));
  } catch {
    return undefined;
  }
}

/**
 * Joins a base URL (which may carry a path prefix, e.g. behind a reverse proxy) and a relative path. The path is
 * resolved as `./path`, so a first segment with a colon (Telegram's `bot<id>:<secret>`) is not read as a scheme.
 */
export function joinUrl(base: string, path: string): string {
  const url = new URL(base);
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
  return new URL(`./${path}`, url).toString();
}

/** A secret sent as a header value: visible ASCII only, so it cannot end the header or be refused by undici. */
export function headerSafe(value: string): boolean {
  return /^[\x21-\x7e]{1,4096}$/.test(value);
}
