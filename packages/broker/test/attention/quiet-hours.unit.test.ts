import type { QuietHours } from "@notify/contracts";
import { describe, expect, it } from "vitest";
import { instantOf, isTimeZone, localDateTime, offsetAt } from "../../src/attention/local-time.js";
import { quietUntil, quietWindowEnd } from "../../src/attention/quiet-hours.js";

// Issue 24, item 3: quiet hours in local time, with days, windows crossing midnight and clock changes. The zone is
// given per call; the process's TZ plays no part, so each case names the zone it is about.

const BERLIN = "Europe/Berlin";
const NEW_YORK = "America/New_York";
const utc = (text: string) => Date.parse(text);
const NIGHT: QuietHours = { start: "22:00", end: "07:00" };

describe("local time through Intl", () => {
  it("reads the wall clock of a zone: weekday Monday = 0, minutes since midnight", () => {
    // Friday 16 January 2026, 23:30 in Berlin (UTC+1).
    expect(localDateTime(utc("2026-01-16T22:30:00Z"), BERLIN)).toEqual({
      year: 2026,
      month: 1,
      day: 16,
      weekday: 4,
      minutes: 23 * 60 + 30,
    });
    expect(localDateTime(utc("2026-01-16T22:30:00Z"), "Asia/Kolkata").minutes).toBe(4 * 60);
    expect(offsetAt(utc("2026-07-01T12:00:00Z"), BERLIN)).toBe(2 * 3_600_000);
  });

  it("finds the instant of a wall-clock reading: the first of a doubled one, the jump for a skipped one", () => {
    expect(instantOf(2026, 1, 16, 7 * 60, BERLIN)).toBe(utc("2026-01-16T06:00:00Z"));
    // 29 March 2026: Berlin's clocks jump from 02:00 to 03:00; 02:30 never shows.
    expect(instantOf(2026, 3, 29, 2 * 60 + 30, BERLIN)).toBe(utc("2026-03-29T01:00:00Z"));
    // 25 October 2026: 02:30 shows twice, in summer time first.
    expect(instantOf(2026, 10, 25, 2 * 60 + 30, BERLIN)).toBe(utc("2026-10-25T00:30:00Z"));
    // A day past the month's end rolls over.
    expect(instantOf(2026, 1, 32, 0, BERLIN)).toBe(utc("2026-01-31T23:00:00Z"));
  });

  it("knows which zones exist", () => {
    expect(isTimeZone(BERLIN)).toBe(true);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
  });
});

describe("a quiet window's end", () => {
  it("22:00-07:00 crosses midnight: inside from 22:00 to 06:59, the end excluded", () => {
    // Wednesday 14 January 2026 in Berlin.
    expect(quietWindowEnd(NIGHT, utc("2026-01-14T20:59:00Z"), BERLIN)).toBeUndefined();
    expect(quietWindowEnd(NIGHT, utc("2026-01-14T21:00:00Z"), BERLIN)).toBe(utc("2026-01-15T06:00:00Z"));
    expect(quietWindowEnd(NIGHT, utc("2026-01-15T05:59:59Z"), BERLIN)).toBe(utc("2026-01-15T06:00:00Z"));
    expect(quietWindowEnd(NIGHT, utc("2026-01-15T06:00:00Z"), BERLIN)).toBeUndefined();
  });

  it("a window belongs to the day it starts on: Friday's night ends Saturday morning, Saturday's does not start", () => {
    const fridays: QuietHours = { ...NIGHT, days: ["fri"] };
    // Friday 16 January 23:00 and Saturday 17 January 06:00 in Berlin: Friday's window.
    expect(quietWindowEnd(fridays, utc("2026-01-16T22:00:00Z"), BERLIN)).toBe(utc("2026-01-17T06:00:00Z"));
    expect(quietWindowEnd(fridays, utc("2026-01-17T05:00:00Z"), BERLIN)).toBe(utc("2026-01-17T06:00:00Z"));
    // Saturday 23:00 and Friday 06:00 (Thursday's night) are outside.
    expect(quietWindowEnd(fridays, utc("2026-01-17T22:00:00Z"), BERLIN)).toBeUndefined();
    expect(quietWindowEnd(fridays, utc("2026-01-16T05:00:00Z"), BERLIN)).toBeUndefined();
  });

  it("a same-day window on weekdays only", () => {
    const office: QuietHours = { start: "09:00", end: "17:00", days: ["mon", "tue", "wed", "thu", "fri"] };
    expect(quietWindowEnd(office, utc("2026-01-16T09:00:00Z"), BERLIN)).toBe(utc("2026-01-16T16:00:00Z"));
    expect(quietWindowEnd(office, utc("2026-01-17T09:00:00Z"), BERLIN)).toBeUndefined();
  });

  it("the same instant in another zone is another wall-clock time", () => {
    // 21:30 UTC: 22:30 in Berlin (inside), 16:30 in New York (outside).
    expect(quietWindowEnd(NIGHT, utc("2026-01-14T21:30:00Z"), BERLIN)).toBeDefined();
    expect(quietWindowEnd(NIGHT, utc("2026-01-14T21:30:00Z"), NEW_YORK)).toBeUndefined();
    expect(quietWindowEnd(NIGHT, utc("2026-01-15T03:30:00Z"), NEW_YORK)).toBe(utc("2026-01-15T12:00:00Z"));
  });
});

describe("clock changes inside a window (DST)", () => {
  it("spring: the night of 28-29 March 2026 in Berlin ends at 07:00 summer time, eight hours after it began", () => {
    const start = utc("2026-03-28T21:00:00Z");
    const end = quietWindowEnd(NIGHT, start, BERLIN);
    expect(end).toBe(utc("2026-03-29T05:00:00Z"));
    expect(((end ?? 0) - start) / 3_600_000).toBe(8);
  });

  it("autumn: the night of 24-25 October 2026 in Berlin ends at 07:00 winter time, ten hours after it began", () => {
    const start = utc("2026-10-24T20:00:00Z");
    const end = quietWindowEnd(NIGHT, start, BERLIN);
    expect(end).toBe(utc("2026-10-25T06:00:00Z"));
    expect(((end ?? 0) - start) / 3_600_000).toBe(10);
  });

  it("New York springs forward on 8 March 2026: 07:00 EDT is 11:00 UTC", () => {
    expect(quietWindowEnd(NIGHT, utc("2026-03-08T04:00:00Z"), NEW_YORK)).toBe(utc("2026-03-08T11:00:00Z"));
    // The night before the change ends at 07:00 EST.
    expect(quietWindowEnd(NIGHT, utc("2026-03-07T04:00:00Z"), NEW_YORK)).toBe(utc("2026-03-07T12:00:00Z"));
  });

  it("an end the clock skips is the moment it jumps; an end it shows twice is the first", () => {
    const early: QuietHours = { start: "01:00", end: "02:30" };
    // 01:30 CET on 29 March: the window ends when 02:00 becomes 03:00.
    expect(quietWindowEnd(early, utc("2026-03-29T00:30:00Z"), BERLIN)).toBe(utc("2026-03-29T01:00:00Z"));
    // 01:30 CEST on 25 October: the first 02:30.
    expect(quietWindowEnd(early, utc("2026-10-24T23:30:00Z"), BERLIN)).toBe(utc("2026-10-25T00:30:00Z"));
  });
});

describe("quietUntil: the first instant outside every window", () => {
  it("outside a window is now", () => {
    const now = utc("2026-01-14T12:00:00Z");
    expect(quietUntil(NIGHT, now, BERLIN)).toBe(now);
  });

  it("start = end is a whole day; days chain: a quiet weekend ends Monday 00:00", () => {
    const weekend: QuietHours = { start: "00:00", end: "00:00", days: ["sat", "sun"] };
    // Saturday 17 January 10:00 in Berlin.
    expect(quietUntil(weekend, utc("2026-01-17T09:00:00Z"), BERLIN)).toBe(utc("2026-01-18T23:00:00Z"));
  });

  it("a window that never ends still answers (a week on, to be asked again)", () => {
    const always: QuietHours = { start: "06:00", end: "06:00" };
    const now = utc("2026-01-14T12:00:00Z");
    expect(quietUntil(always, now, BERLIN)).toBeGreaterThan(now + 7 * 86_400_000);
  });
});
