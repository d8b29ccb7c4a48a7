import { z } from "zod";
import {
  LOCAL_TIME_PATTERN,
  MAX_DELAY_SECONDS,
  MAX_DIGEST_SECONDS,
  type PresenceStateName,
  QUIET_DAYS,
  ROUTE_WHEN,
  ROUTING_MESSAGES,
} from "./ui/routing-summary.js";

/**
 * Attention routing (docs/routing.md, "Route options"): the options a delivery route carries on top
 * of its gates, and the presence the broker reports. The shapes only; the policy lives in the broker
 * (packages/broker/src/attention/policy.ts). The plain values, messages and the one-line summary are zod-free in
 * ui/routing-summary.ts (the web page imports them from there) and re-exported here.
 */

export {
  daysWords,
  durationWords,
  LOCAL_TIME_PATTERN,
  MAX_DELAY_SECONDS,
  MAX_DIGEST_SECONDS,
  PRESENCE_STATES,
  type PresenceStateName,
  QUIET_DAYS,
  type QuietDay,
  type QuietHoursWindow,
  ROUTE_NOISE_FIELDS,
  ROUTE_WHEN,
  ROUTING_MESSAGES,
  type RouteNoiseField,
  type RouteWhen,
  routingSummary,
} from "./ui/routing-summary.js";

const localTime = z.string({ error: ROUTING_MESSAGES.localTime }).regex(LOCAL_TIME_PATTERN, ROUTING_MESSAGES.localTime);

/**
 * A quiet window in the broker's local time. `start` after `end` crosses midnight (22:00-07:00); `start` equal to
 * `end` is a whole day from `start`. Without `days` it applies every day.
 */
export const QuietHours = z.strictObject({
  start: localTime,
  end: localTime,
  days: z
    .array(z.enum(QUIET_DAYS))
    .min(1, ROUTING_MESSAGES.daysEmpty)
    .max(7)
    .refine((days) => new Set(days).size === days.length, ROUTING_MESSAGES.daysRepeated)
    .optional(),
  allow_critical: z.boolean().optional(),
});
export type QuietHours = z.infer<typeof QuietHours>;

/** The routing fields, to spread into a route's own schema; each is optional and defaults as documented. */
export const routingOptionFields = {
  /** Deliver only if the item is still open this long after it was created (default 0). */
  delay_seconds: z
    .number({ error: ROUTING_MESSAGES.delayWhole })
    .int(ROUTING_MESSAGES.delayWhole)
    .min(0, ROUTING_MESSAGES.delayRange)
    .max(MAX_DELAY_SECONDS, ROUTING_MESSAGES.delayRange)
    .optional(),
  /** `always` (default), `away` or `present`. */
  when: z.enum(ROUTE_WHEN).optional(),
  /** Nothing delivered inside the window; null or absent for none. */
  quiet_hours: QuietHours.nullable().optional(),
  /** Items within this many seconds go as one message (default 0: one message per item; docs/outbound.md). */
  digest_seconds: z
    .number({ error: ROUTING_MESSAGES.digestWhole })
    .int(ROUTING_MESSAGES.digestWhole)
    .min(0, ROUTING_MESSAGES.digestRange)
    .max(MAX_DIGEST_SECONDS, ROUTING_MESSAGES.digestRange)
    .optional(),
  /** A session's next "finished" notification replaces its last one where the provider can edit (default true). */
  replace_finished: z.boolean({ error: ROUTING_MESSAGES.replaceBoolean }).optional(),
};

export const RoutingOptions = z.strictObject(routingOptionFields);
export type RoutingOptions = z.infer<typeof RoutingOptions>;

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
