/**
 * Attention routing's plain values and words (docs/routing.md), in a module that loads no zod: the web page's
 * Outbound form and route list import it as values, `notify outbound list` prints the same summary, and the schema
 * in ../routing.ts validates with the same limits and messages. So the page and the CLI say the same thing, and
 * the page's bundle ships no schema library.
 */

export const MAX_DELAY_SECONDS = 86_400;
export const ROUTE_WHEN = ["always", "away", "present"] as const;
/** What the broker knows of the person (docs/routing.md, "Presence"). */
export const PRESENCE_STATES = ["present", "away", "unknown"] as const;
export type PresenceStateName = (typeof PRESENCE_STATES)[number];
export type RouteWhen = (typeof ROUTE_WHEN)[number];

/** A route's attention routing options (docs/routing.md), in the order a problem with them is reported. */
export const ROUTE_ROUTING_FIELDS = ["delay_seconds", "when", "quiet_hours"] as const;
export type RouteRoutingField = (typeof ROUTE_ROUTING_FIELDS)[number];

/**
 * A route's noise options (issue 37, item 4; docs/outbound.md, "Less noise"): `digest_seconds` (0-3600, default 0:
 * one message per item) gathers the items of a window into one message; `replace_finished` (default true) lets a
 * session's next "finished" notification replace its last one where the provider can edit a message.
 */
export const ROUTE_NOISE_FIELDS = ["digest_seconds", "replace_finished"] as const;
export type RouteNoiseField = (typeof ROUTE_NOISE_FIELDS)[number];
export const MAX_DIGEST_SECONDS = 3600;

/** Days of a quiet window, Monday first; a window belongs to the day it starts on. */
export const QUIET_DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type QuietDay = (typeof QUIET_DAYS)[number];

/** 24-hour local time, two digits each: `07:00`, `22:30` (never `24:00`; `00:00` ends a window at midnight). */
export const LOCAL_TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * What the broker answers for a bad routing option, after the option's path (`quiet_hours.end: must be HH:MM,
 * 00:00-23:59`). The schema uses these; the page shows the broker's answer next to the field it names.
 */
export const ROUTING_MESSAGES = {
  delayWhole: "must be a whole number of seconds",
  delayRange: `must be 0-${MAX_DELAY_SECONDS} seconds (at most 24 h)`,
  localTime: "must be HH:MM, 00:00-23:59",
  daysEmpty: "must name at least one day (leave days out for every day)",
  daysRepeated: "must not repeat a day",
  digestWhole: "must be a whole number of seconds",
  digestRange: `must be 0-${MAX_DIGEST_SECONDS} seconds (0: one message per item)`,
  replaceBoolean: "must be true or false",
} as const;

/** A quiet window as the summary reads it (the schema's `QuietHours`, without zod). */
export interface QuietHoursWindow {
  start: string;
  end: string;
  days?: readonly QuietDay[] | undefined;
  allow_critical?: boolean | undefined;
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

const DAY_NAMES: Record<QuietDay, string> = {
  mon: "Mon",
  tue: "Tue",
  wed: "Wed",
  thu: "Thu",
  fri: "Fri",
  sat: "Sat",
  sun: "Sun",
};

/**
 * Days in words, Monday first: three or more days in a row read as a range (`Mon-Fri`), the rest one by one
 * (`Sat, Sun`, `Mon, Wed-Fri`). Every day (or none given) reads as the empty string: the window applies daily.
 */
export function daysWords(days: readonly QuietDay[] | undefined): string {
  if (!days) return "";
  const picked = QUIET_DAYS.map((day) => days.includes(day));
  if (picked.every(Boolean)) return "";
  const parts: string[] = [];
  for (let index = 0; index < QUIET_DAYS.length; index++) {
    if (!picked[index]) continue;
    let last = index;
    while (last + 1 < QUIET_DAYS.length && picked[last + 1]) last++;
    const first = DAY_NAMES[QUIET_DAYS[index] as QuietDay];
    const end = DAY_NAMES[QUIET_DAYS[last] as QuietDay];
    if (last - index >= 2) parts.push(`${first}-${end}`);
    else for (let day = index; day <= last; day++) parts.push(DAY_NAMES[QUIET_DAYS[day] as QuietDay]);
    index = last;
  }
  return parts.join(", ");
}

/** A quiet window in words: `quiet 22:00-07:00`, `quiet all day Sat, Sun`, `quiet 24 h from 09:00 Mon-Fri`. */
function quietWords(quiet: QuietHoursWindow): string {
  const span =
    quiet.start !== quiet.end
      ? `${quiet.start}-${quiet.end}`
      : quiet.start === "00:00"
        ? "all day"
        : `24 h from ${quiet.start}`;
  const days = daysWords(quiet.days);
  return `quiet ${span}${days ? ` ${days}` : ""}${quiet.allow_critical ? " except critical" : ""}`;
}

/**
 * A route's routing options in one plain-language line, the same on the Outbound page and in `notify outbound
 * list`: `when away, or after 2 min; quiet 22:00-07:00 except critical`. Defaults read `at once`.
 */
export function routingSummary(options: {
  delay_seconds?: number | null | undefined;
  when?: RouteWhen | null | undefined;
  quiet_hours?: QuietHoursWindow | null | undefined;
  digest_seconds?: number | null | undefined;
}): string {
  const delay = options.delay_seconds ?? 0;
  const when = options.when ?? "always";
  let timing: string;
  if (when === "always") timing = delay > 0 ? `after ${durationWords(delay)}` : "at once";
  else timing = delay > 0 ? `when ${when}, or after ${durationWords(delay)}` : `when ${when}`;
  const quiet = options.quiet_hours;
  const digest = options.digest_seconds ?? 0;
  const parts = [timing];
  if (quiet) parts.push(quietWords(quiet));
  if (digest > 0) parts.push(`digest every ${durationWords(digest)}`);
  return parts.join("; ");
}
