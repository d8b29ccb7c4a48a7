import { describe, expect, it } from "vitest";
import { RoutingOptions } from "../src/routing.js";
import {
  daysWords,
  durationWords,
  type QuietDay,
  type QuietHoursWindow,
  type RouteWhen,
  routingSummary,
} from "../src/ui/routing-summary.js";

// Issue 24 item 5: one plain-language line per route, the same on the Outbound page and in `notify outbound list`
// (docs/routing.md). The words of every combination of delay, when and quiet hours.

const NIGHT: QuietHoursWindow = { start: "22:00", end: "07:00" };
const NIGHT_CRITICAL: QuietHoursWindow = { ...NIGHT, allow_critical: true };
const WORK_NIGHTS: QuietHoursWindow = { start: "18:00", end: "09:00", days: ["mon", "tue", "wed", "thu", "fri"] };
const WEEKEND: QuietHoursWindow = { start: "00:00", end: "00:00", days: ["sat", "sun"], allow_critical: true };
const FROM_NINE: QuietHoursWindow = { start: "09:00", end: "09:00", days: ["wed"] };

describe("routingSummary", () => {
  // [delay_seconds, when, timing words]: every delay shape against every when.
  const timings: [number | undefined, RouteWhen | undefined, string][] = [
    [undefined, undefined, "at once"],
    [0, "always", "at once"],
    [undefined, "away", "when away"],
    [0, "present", "when present"],
    [45, undefined, "after 45 s"],
    [120, "always", "after 2 min"],
    [120, "away", "when away, or after 2 min"],
    [125, "present", "when present, or after 2 min 5 s"],
    [5_400, "away", "when away, or after 1 h 30 min"],
    [86_400, "always", "after 24 h"],
  ];
  // [quiet_hours, words after the timing]
  const windows: [QuietHoursWindow | null | undefined, string][] = [
    [undefined, ""],
    [null, ""],
    [NIGHT, "; quiet 22:00-07:00"],
    [NIGHT_CRITICAL, "; quiet 22:00-07:00 except critical"],
    [WORK_NIGHTS, "; quiet 18:00-09:00 Mon-Fri"],
    [WEEKEND, "; quiet all day Sat, Sun except critical"],
    [FROM_NINE, "; quiet 24 h from 09:00 Wed"],
  ];
  for (const [delay_seconds, when, timing] of timings) {
    for (const [quiet_hours, quiet] of windows) {
      it(`${JSON.stringify({ delay_seconds, when, quiet_hours })} reads "${timing}${quiet}"`, () => {
        expect(routingSummary({ delay_seconds, when, quiet_hours })).toBe(`${timing}${quiet}`);
      });
    }
  }

  it("reads the issue's example, and nulls as the defaults", () => {
    expect(routingSummary({ when: "away", delay_seconds: 120, quiet_hours: NIGHT_CRITICAL })).toBe(
      "when away, or after 2 min; quiet 22:00-07:00 except critical",
    );
    expect(routingSummary({ delay_seconds: null, when: null, quiet_hours: null })).toBe("at once");
    expect(routingSummary({})).toBe("at once");
  });

  it("takes a stored route as it comes from the broker (extra fields ignored)", () => {
    const route = { id: "rte_1", name: "Phone", enabled: true, delay_seconds: 600, quiet_hours: WORK_NIGHTS };
    expect(routingSummary(route)).toBe("after 10 min; quiet 18:00-09:00 Mon-Fri");
  });
});

describe("daysWords", () => {
  const cases: [QuietDay[] | undefined, string][] = [
    [undefined, ""],
    [["mon", "tue", "wed", "thu", "fri", "sat", "sun"], ""],
    [["sun", "sat", "fri", "thu", "wed", "tue", "mon"], ""],
    [["mon"], "Mon"],
    [["sat", "sun"], "Sat, Sun"],
    [["sun", "sat"], "Sat, Sun"],
    [["mon", "tue", "wed"], "Mon-Wed"],
    [["mon", "tue", "wed", "thu", "fri"], "Mon-Fri"],
    [["mon", "wed", "fri"], "Mon, Wed, Fri"],
    [["mon", "wed", "thu", "fri"], "Mon, Wed-Fri"],
    [["mon", "tue", "thu", "fri", "sat"], "Mon, Tue, Thu-Sat"],
    [["sun", "mon"], "Mon, Sun"],
    [["tue", "wed", "thu", "fri", "sat", "sun"], "Tue-Sun"],
  ];
  for (const [days, words] of cases) {
    it(`${JSON.stringify(days)} reads "${words}"`, () => expect(daysWords(days)).toBe(words));
  }
});

describe("durationWords", () => {
  it("says hours, minutes and seconds, leaving out zero parts", () => {
    expect([0, 1, 59, 60, 61, 3_600, 3_660, 3_601, 86_400].map(durationWords)).toEqual([
      "0 s",
      "1 s",
      "59 s",
      "1 min",
      "1 min 1 s",
      "1 h",
      "1 h 1 min",
      "1 h 1 s",
      "24 h",
    ]);
  });
});

describe("the broker's words for a bad option (what the page shows next to the field)", () => {
  const problem = (body: unknown) => {
    const result = RoutingOptions.safeParse(body);
    const issue = result.success ? undefined : result.error.issues[0];
    return issue && `${issue.path.join(".")}: ${issue.message}`;
  };
  it("names the field and says what it must be", () => {
    expect(problem({ delay_seconds: -60 })).toBe("delay_seconds: must be 0-86400 seconds (at most 24 h)");
    expect(problem({ delay_seconds: 86_401 })).toBe("delay_seconds: must be 0-86400 seconds (at most 24 h)");
    expect(problem({ delay_seconds: 1.5 })).toBe("delay_seconds: must be a whole number of seconds");
    expect(problem({ delay_seconds: "2 min" })).toBe("delay_seconds: must be a whole number of seconds");
    expect(problem({ quiet_hours: { start: "22:00" } })).toBe("quiet_hours.end: must be HH:MM, 00:00-23:59");
    expect(problem({ quiet_hours: { start: "22:00", end: "" } })).toBe("quiet_hours.end: must be HH:MM, 00:00-23:59");
    expect(problem({ quiet_hours: { start: "22:00", end: "07:00", days: [] } })).toBe(
      "quiet_hours.days: must name at least one day (leave days out for every day)",
    );
  });
});
