import type { QuietHours } from "@notify/contracts";
import { QUIET_DAYS } from "@notify/contracts/routing-summary";
import { instantOf, localDateTime } from "./local-time.js";

const DAY_MS = 86_400_000;

/** `HH:MM` as minutes past midnight; the route's schema (contracts routing.ts) has checked the format. */
function minutesOf(time: string): number {
  const match = /^(\d\d):(\d\d)$/.exec(time);
  if (!match) throw new RangeError(`quiet hours: ${time} is not HH:MM`);
  return Number(match[1]) * 60 + Number(match[2]);
}

function dayApplies(window: QuietHours, weekday: number): boolean {
  const name = QUIET_DAYS[((weekday % 7) + 7) % 7];
  return window.days === undefined || (name !== undefined && window.days.includes(name));
}

/**
 * The end of the quiet window `instant` lies in, or undefined when it lies in none. A window belongs to the day it
 * starts on (Friday's 22:00-07:00 ends Saturday 07:00); `start` = `end` is 24 hours from `start`. Membership is read
 * on the wall clock, so a clock change inside a window lengthens or shortens it by the hour the clock moved.
 */
export function quietWindowEnd(window: QuietHours, instant: number, timeZone: string): number | undefined {
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const local = localDateTime(instant, timeZone);
  const { year, month, day, weekday, minutes } = local;
  if (start < end) {
    if (minutes >= start && minutes < end && dayApplies(window, weekday)) {
      return instantOf(year, month, day, end, timeZone);
    }
    return undefined;
  }
  // Crossing midnight (or a whole day): the part after `start` belongs to today, the part before `end` to yesterday.
  if (minutes >= start && dayApplies(window, weekday)) return instantOf(year, month, day + 1, end, timeZone);
  if (minutes < end && dayApplies(window, weekday - 1)) return instantOf(year, month, day, end, timeZone);
  return undefined;
}

/**
 * The first instant at or after `instant` outside every quiet window (days may chain windows: Saturday and Sunday
 * 00:00-00:00 end Monday 00:00). Bounded: a window covering every day forever is refused by `start` = `end` being
 * one day each, so eight steps always reach its end.
 */
export function quietUntil(window: QuietHours, instant: number, timeZone: string): number {
  let current = instant;
  for (let step = 0; step < 8; step++) {
    const end = quietWindowEnd(window, current, timeZone);
    // A window's end is always after the instant inside it; guard against a zone's oddities all the same.
    if (end === undefined || end <= current) return current;
    current = end;
  }
  // Quiet every day of the week, all day: the window never ends. A week on, checked again.
  return current + DAY_MS;
}
