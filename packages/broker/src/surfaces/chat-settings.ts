import { invalid } from "../domain/errors.js";
import { httpUrl, onlyFields, settingsObject } from "../outbox/providers/settings.js";

/** What the chat apps' providers (telegram/, slack/, discord/ `send.ts`) check of their settings alike. */

/** A `kind` provider's settings: an object with none but `fields` (a typo is refused, not ignored). */
export function chatSettings(raw: unknown, kind: string, fields: readonly string[]): Record<string, unknown> {
  const settings = settingsObject(raw, kind);
  onlyFields(settings, fields, kind);
  return settings;
}

/** `allowedUserIds`, required: 1-100 user ids, each a string matching `id`; otherwise a 400 saying `problem`. */
export function allowedUserIds(value: unknown, id: RegExp, problem: string): string[] {
  if (
    !Array.isArray(value) ||
    value.length < 1 ||
    value.length > 100 ||
    !value.every((entry) => typeof entry === "string" && id.test(entry))
  ) {
    throw invalid(problem);
  }
  return value as string[];
}

/** `apiBaseUrl`: an http(s) URL without its trailing slashes, or the chat app's own (`fallback`) when absent. */
export function apiBaseUrl(value: unknown, fallback: string): string {
  return value === undefined ? fallback : httpUrl(value, "apiBaseUrl").replace(/\/+$/, "");
}
