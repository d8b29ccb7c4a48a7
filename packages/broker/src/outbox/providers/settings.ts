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
