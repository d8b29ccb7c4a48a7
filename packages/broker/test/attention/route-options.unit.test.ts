import { PresenceActivityBody, QuietHours, RoutingOptions } from "@notify/contracts";
import { describe, expect, it } from "vitest";

// docs/routing.md, "Route options": delay_seconds 0-86400, when always|away|present, quiet_hours {start, end, days?,
// allow_critical?} with HH:MM local times. The schema `notify apply` and the web page will validate routes with.

const firstProblem = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.success ? undefined : `${result.error?.issues[0]?.path.join(".")}: ${result.error?.issues[0]?.message}`;

describe("RoutingOptions", () => {
  it("accepts the limits and every when; every field is optional", () => {
    for (const delay_seconds of [0, 1, 86_400]) expect(RoutingOptions.safeParse({ delay_seconds }).success).toBe(true);
    for (const when of ["always", "away", "present"]) expect(RoutingOptions.safeParse({ when }).success).toBe(true);
    expect(RoutingOptions.parse({})).toEqual({});
    expect(RoutingOptions.parse({ quiet_hours: null })).toEqual({ quiet_hours: null });
  });

  it("refuses a delay outside 0-86400 or not whole, an unknown when, an unknown key", () => {
    expect(firstProblem(RoutingOptions.safeParse({ delay_seconds: -1 }))).toMatch(/^delay_seconds: /);
    expect(firstProblem(RoutingOptions.safeParse({ delay_seconds: 86_401 }))).toMatch(/^delay_seconds: /);
    expect(firstProblem(RoutingOptions.safeParse({ delay_seconds: 1.5 }))).toBe(
      "delay_seconds: must be a whole number of seconds",
    );
    expect(firstProblem(RoutingOptions.safeParse({ when: "idle" }))).toMatch(/^when: /);
    expect(RoutingOptions.safeParse({ delay: 5 }).success).toBe(false);
  });
});

describe("QuietHours", () => {
  it("takes HH:MM 00:00-23:59, days mon..sun, allow_critical", () => {
    const window = { start: "22:00", end: "07:00", days: ["fri", "sat"], allow_critical: true };
    expect(QuietHours.parse(window)).toEqual(window);
    expect(QuietHours.safeParse({ start: "00:00", end: "23:59" }).success).toBe(true);
  });

  it("refuses other times, unknown or repeated days, an empty day list, unknown keys", () => {
    for (const start of ["24:00", "7:00", "07:60", "07:00:00", " 07:00", "0700"]) {
      expect(firstProblem(QuietHours.safeParse({ start, end: "08:00" }))).toBe("start: must be HH:MM, 00:00-23:59");
    }
    expect(firstProblem(QuietHours.safeParse({ start: "22:00", end: "07:00", days: ["monday"] }))).toMatch(
      /^days\.0: /,
    );
    expect(firstProblem(QuietHours.safeParse({ start: "22:00", end: "07:00", days: ["mon", "mon"] }))).toBe(
      "days: must not repeat a day",
    );
    expect(firstProblem(QuietHours.safeParse({ start: "22:00", end: "07:00", days: [] }))).toMatch(/^days: must name/);
    expect(QuietHours.safeParse({ start: "22:00", end: "07:00", timezone: "UTC" }).success).toBe(false);
    expect(QuietHours.safeParse({ start: "22:00" }).success).toBe(false);
  });
});

describe("PresenceActivityBody", () => {
  it("a page id of 8-64 safe characters and a visibility", () => {
    expect(PresenceActivityBody.safeParse({ page: "a1b2c3d4", visible: true }).success).toBe(true);
    expect(PresenceActivityBody.safeParse({ page: "short", visible: true }).success).toBe(false);
    expect(PresenceActivityBody.safeParse({ page: "a1b2c3d4<script>", visible: true }).success).toBe(false);
    expect(PresenceActivityBody.safeParse({ page: "a1b2c3d4", visible: "yes" }).success).toBe(false);
  });
});
