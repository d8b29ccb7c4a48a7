import { z } from "zod";

/**
 * Attention routing (DESIGN.md, "Attention routing"; docs/routing.md): the options a delivery route carries on top
 * of its gates, and the presence the broker reports. The shapes only; the policy lives in the broker
 * (packages/broker/src/routing/policy.ts).
 */

export const MAX_DELAY_SECONDS = 86_400;
export const ROUTE_WHEN = ["always", "away", "present"] as const;
export type RouteWhen = (typeof ROUTE_WHEN)[number];

/** Days of a quiet window, Monday first; a window belongs to the day it starts on. */
export const QUIET_DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type QuietDay = (typeof QUIET_DAYS)[number];

/** 24-hour local time, two digits each: `07:00`, `22:30` (never `24:00`; `00:00` ends a window at midnight). */
export const LOCAL_TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
const localTime = z.string().regex(LOCAL_TIME_PATTERN, "must be HH:MM, 00:00-23:59");

/**
 * A quiet window in the broker's local time. `start` after `end` crosses midnight (22:00-07:00); `start` equal to
 * `end` is a whole day from `start`. Without `days` it applies every day.
 */
export const QuietHours = z.strictObject({
  start: localTime,
  end: localTime,
  days: z
    .array(z.enum(QUIET_DAYS))
    .min(1, "must name at least one day (leave days out for every day)")
    .max(7)
    .refine((days) => new Set(days).size === days.length, "must not repeat a day")
    .optional(),
  allow_critical: z.boolean().optional(),
});
export type QuietHours = z.infer<typeof QuietHours>;

/** The routing fields, to spread into a route's own schema; each is optional and defaults as documented. */
export const routingOptionFields = {
  /** Deliver only if the item is still open this long after it was created (default 0). */
  delay_seconds: z.number().int("must be a whole number of seconds").min(0).max(MAX_DELAY_SECONDS).optional(),
  /** `always` (default), `away` or `present`. */
  when: z.enum(ROUTE_WHEN).optional(),
  /** Nothing delivered inside the window; null or absent for none. */
  quiet_hours: QuietHours.nullable().optional(),
};

export const RoutingOptions = z.strictObject(routingOptionFields);
export type RoutingOptions = z.infer<typeof RoutingOptions>;

export const PRESENCE_STATES = ["present", "away", "unknown"] as const;
export type PresenceStateName = (typeof PRESENCE_STATES)[number];

/** One signal the broker combines: `screensaver` (session bus) or `web` (a visible /ui page). */
export interface PresenceSource {
  name: string;
  state: PresenceStateName;
  detail: string;
}

/** GET /ui/api/presence. `since` is when the combined state last changed (ISO 8601 UTC). */
export interface PresenceResponse {
  state: PresenceStateName;
  since: string;
  sources: PresenceSource[];
}

/**
 * POST /ui/api/presence/activity: a /ui page says a person used it (`visible: true`) or that it was hidden
 * (`visible: false`). `page` is a random id per page load, so one hidden tab does not cancel another's activity.
 */
export const PresenceActivityBody = z.strictObject({
  page: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, "must be 8-64 letters, digits, _ or -"),
  visible: z.boolean(),
});
export type PresenceActivityBody = z.infer<typeof PresenceActivityBody>;

/**
 * The answer to an activity report: how often the page should report while it is visible and used, a fraction of
 * awayAfterSeconds (at most 30 s), so that its activity never goes stale between two reports.
 */
export interface PresenceActivityResponse {
  report_every_seconds: number;
}

/** A whole number of seconds in words: `45 s`, `2 min`, `1 h 30 min`, `2 min 5 s`. */
export function durationWords(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const parts: string[] = [];
  if (hours > 0) parts.push(`${hours} h`);
  if (minutes > 0) parts.push(`${minutes} min`);
  if (rest > 0 || parts.length === 0) parts.push(`${rest} s`);
  return parts.join(" ");
}

/**
 * A route's routing options in one plain-language line (`notify outbound list`, the Outbound page):
 * `when away, or after 2 min; quiet 22:00-07:00 except critical`. Defaults read `at once`.
 */
export function routingSummary(options: {
  delay_seconds?: number | null | undefined;
  when?: RouteWhen | null | undefined;
  quiet_hours?: QuietHours | null | undefined;
}): string {
  const delay = options.delay_seconds ?? 0;
  const when = options.when ?? "always";
  let timing: string;
  if (when === "always") timing = delay > 0 ? `after ${durationWords(delay)}` : "at once";
  else timing = delay > 0 ? `when ${when}, or after ${durationWords(delay)}` : `when ${when}`;
  const quiet = options.quiet_hours;
  if (!quiet) return timing;
  const days = quiet.days ? ` ${quiet.days.join(",")}` : "";
  const critical = quiet.allow_critical ? " except critical" : "";
  return `${timing}; quiet ${quiet.start}-${quiet.end}${days}${critical}`;
}
