import type { PresenceStateName, QuietHours, RouteWhen } from "@notify/contracts";
import { describe, expect, it } from "vitest";
import {
  decide,
  normalizeRouteOptions,
  type PresenceView,
  type RoutedItem,
  type RouteTiming,
  type RoutingDecision,
} from "../../src/attention/policy.js";
import type { Priority } from "../../src/notifications/types.js";

// Issue 24, "Must show": the policy as pure functions over an injected clock and presence, every combination of
// delay, when, quiet hours and settle time. Times are seconds after the item's creation.

const ZONE = "Europe/Berlin";
/** Wednesday 14 January 2026, 22:58:00 in Berlin (CET, UTC+1). */
const T0 = Date.parse("2026-01-14T21:58:00Z");
const at = (seconds: number) => T0 + seconds * 1000;
/** Quiet from 22:00 to 23:03 local: the item is created inside it and the window ends 300 s later. */
const QUIET: QuietHours = { start: "22:00", end: "23:03" };
const QUIET_END = 300;
const DELAY = 120;
const CHANGE_AT = 60;

type PresencePlan = "present" | "away" | "unknown" | "present->away" | "away->present";
const PLANS: PresencePlan[] = ["present", "away", "unknown", "present->away", "away->present"];

function presenceAt(plan: PresencePlan, t: number): PresenceView {
  if (!plan.includes("->")) return { state: plan as PresenceStateName, since: at(-3600) };
  const [before, after] = plan.split("->") as [PresenceStateName, PresenceStateName];
  return t < at(CHANGE_AT) ? { state: before, since: at(-3600) } : { state: after, since: at(CHANGE_AT) };
}

type Outcome = number | "never" | "held";

/** A decision without its reason: what the outbox acts on. */
const timeOf = (decision: RoutingDecision) =>
  decision.action === "wait" ? { action: decision.action, until: decision.until } : { action: decision.action };

/**
 * What the outbox will do: decide at creation, again at every `until` it is given, at every presence change and
 * when the item settles; stop at the first deliver or never. Along the way, each `until` must be exact: one
 * millisecond before it the answer is the same wait, at it the answer is different.
 */
function run(item: RoutedItem, route: RouteTiming, plan: PresencePlan): Outcome {
  let now = item.createdAt;
  for (let step = 0; step < 20; step++) {
    const context = (t: number) => ({ now: t, presence: presenceAt(plan, t), timeZone: ZONE });
    const decision = decide(item, route, context(now));
    if (decision.action === "deliver") return (now - T0) / 1000;
    if (decision.action === "never") return "never";
    if (decision.until !== null) {
      expect(decision.until).toBeGreaterThan(now);
      const before = decision.until - 1;
      if (plan.includes("->") && before >= at(CHANGE_AT) && now < at(CHANGE_AT)) {
        // The presence changes first: checked from there on.
      } else if (item.settledAt === undefined || item.settledAt > before) {
        expect(timeOf(decide(item, route, context(before)))).toEqual(timeOf(decision));
      }
      expect(timeOf(decide(item, route, context(decision.until)))).not.toEqual(timeOf(decision));
    }
    const events = [decision.until ?? Number.POSITIVE_INFINITY];
    if (plan.includes("->") && now < at(CHANGE_AT)) events.push(at(CHANGE_AT));
    if (item.settledAt !== undefined && item.settledAt > now) events.push(item.settledAt);
    const next = Math.min(...events);
    if (next === Number.POSITIVE_INFINITY) return "held";
    now = next;
  }
  throw new Error("no outcome after 20 decisions");
}

/** When each (delay, when, presence) delivers without quiet hours or settling: seconds, or held for presence. */
const NATURAL: Record<string, Record<PresencePlan, number | "held">> = {
  "0 always": { present: 0, away: 0, unknown: 0, "present->away": 0, "away->present": 0 },
  "120 always": { present: 120, away: 120, unknown: 120, "present->away": 120, "away->present": 120 },
  // Without a delay, `away` waits for the person to go; unknown is no reason to hold (docs/routing.md).
  "0 away": { present: "held", away: 0, unknown: 0, "present->away": CHANGE_AT, "away->present": 0 },
  // With a delay, at once when away, after the delay otherwise; unknown counts as present.
  "120 away": { present: 120, away: 0, unknown: 120, "present->away": CHANGE_AT, "away->present": 0 },
  "0 present": { present: 0, away: "held", unknown: 0, "present->away": 0, "away->present": CHANGE_AT },
  "120 present": { present: 0, away: 120, unknown: 0, "present->away": 0, "away->present": CHANGE_AT },
};

type QuietPlan = "none" | "quiet" | "quiet, critical allowed" | "quiet, critical not allowed" | "quiet, high allowed";
const QUIET_PLANS: { name: QuietPlan; quiet?: QuietHours; priority: Priority; held: boolean }[] = [
  { name: "none", priority: "normal", held: false },
  { name: "quiet", quiet: QUIET, priority: "normal", held: true },
  { name: "quiet, critical allowed", quiet: { ...QUIET, allow_critical: true }, priority: "critical", held: false },
  { name: "quiet, critical not allowed", quiet: QUIET, priority: "critical", held: true },
  { name: "quiet, high allowed", quiet: { ...QUIET, allow_critical: true }, priority: "high", held: true },
];
const SETTLES: (number | undefined)[] = [undefined, 30, 90, 200, 600];

/**
 * Routes without a delay that wait for a presence: held by quiet hours, they go at the window's end only if the
 * presence still matches then. These two plans have changed it by then.
 */
const GONE_BY_QUIET_END = new Set(["0 away away->present", "0 present present->away"]);

function expected(route: string, plan: PresencePlan, quietHeld: boolean, settledAt: number | undefined): Outcome {
  const natural = NATURAL[route]?.[plan];
  if (natural === undefined) throw new Error("table gap");
  let delivered: number | "held" = natural;
  if (natural !== "held" && quietHeld) {
    delivered = GONE_BY_QUIET_END.has(`${route} ${plan}`) ? "held" : Math.max(natural, QUIET_END);
  }
  if (settledAt === undefined) return delivered;
  if (delivered === "held" || settledAt <= delivered) return "never";
  return delivered;
}

describe("issue 24: delay x when x presence x quiet hours x settle time", () => {
  const rows: [string, RouteTiming, RoutedItem, PresencePlan, Outcome][] = [];
  for (const delay of [0, DELAY])
    for (const when of ["always", "away", "present"] as RouteWhen[])
      for (const plan of PLANS)
        for (const quiet of QUIET_PLANS)
          for (const settle of SETTLES)
            for (const kind of ["notification", "question"] as const) {
              const route: RouteTiming = {
                delaySeconds: delay,
                when,
                ...(quiet.quiet ? { quietHours: quiet.quiet } : {}),
              };
              const item: RoutedItem = {
                kind,
                createdAt: T0,
                priority: quiet.priority,
                ...(settle !== undefined ? { settledAt: at(settle) } : {}),
              };
              const name = `${kind}, delay ${delay}, when ${when}, ${plan}, ${quiet.name}, settled ${settle ?? "never"}`;
              rows.push([name, route, item, plan, expected(`${delay} ${when}`, plan, quiet.held, settle)]);
            }

  it(`covers ${2 * 3 * 5 * 5 * 5 * 2} combinations`, () => {
    expect(rows).toHaveLength(1500);
  });

  it.each(rows)("%s", (_name, route, item, plan, outcome) => {
    expect(run(item, route, plan)).toEqual(outcome);
  });
});

describe("decide: single decisions and their reasons", () => {
  const item: RoutedItem = { kind: "question", createdAt: T0, priority: "normal" };
  const present = { state: "present" as const, since: at(-10) };
  const away = { state: "away" as const, since: at(-5) };
  const unknown = { state: "unknown" as const, since: at(-5) };
  const ctx = (seconds: number, presence: PresenceView) => ({ now: at(seconds), presence, timeZone: ZONE });
  const timing = (delaySeconds: number, when: RouteWhen): RouteTiming => ({ delaySeconds, when });

  it("defaults: no options deliver at once (the routes as they were before issue 24)", () => {
    const route = normalizeRouteOptions({});
    expect(route).toEqual({ delaySeconds: 0, when: "always" });
    expect(decide(item, route, ctx(0, unknown))).toEqual({ action: "deliver", reason: "immediate" });
  });

  it("normalizes snake_case options; quiet_hours null is none", () => {
    expect(normalizeRouteOptions({ delay_seconds: 90, when: "away", quiet_hours: null })).toEqual({
      delaySeconds: 90,
      when: "away",
    });
    expect(normalizeRouteOptions({ quiet_hours: QUIET }).quietHours).toEqual(QUIET);
  });

  it("a presence-driven delivery carries the presence it went on (the timeline's 'because away')", () => {
    const decision = decide(item, timing(DELAY, "away"), ctx(10, away));
    expect(decision).toEqual({ action: "deliver", reason: "presence", presence: away });
  });

  it("the delay's end is the reason once it has run out, whatever the presence", () => {
    expect(decide(item, timing(DELAY, "away"), ctx(DELAY, present))).toEqual({
      action: "deliver",
      reason: "delay_elapsed",
    });
  });

  it("waiting on the delay names its due time; waiting on presence alone names none", () => {
    const delayWait: RoutingDecision = { action: "wait", until: at(DELAY), reason: "delay" };
    expect(decide(item, timing(DELAY, "away"), ctx(0, present))).toEqual(delayWait);
    expect(decide(item, timing(DELAY, "away"), ctx(0, unknown))).toEqual(delayWait);
    expect(decide(item, timing(0, "away"), ctx(0, present))).toEqual({
      action: "wait",
      until: null,
      reason: "presence",
    });
  });

  it("settled at or before now is never; a settle time after now is the future and changes nothing yet", () => {
    const route = timing(DELAY, "always");
    expect(decide({ ...item, settledAt: at(5) }, route, ctx(5, present))).toEqual({ action: "never" });
    expect(decide({ ...item, settledAt: at(6) }, route, ctx(5, present))).toEqual({
      action: "wait",
      until: at(DELAY),
      reason: "delay",
    });
  });

  it("inside quiet hours a due item waits for the window's end; a critical one goes when allowed", () => {
    const route = { ...timing(0, "always"), quietHours: QUIET };
    expect(decide(item, route, ctx(0, present))).toEqual({
      action: "wait",
      until: at(QUIET_END),
      reason: "quiet_hours",
    });
    const critical = { ...item, priority: "critical" as const };
    const allowing = { ...route, quietHours: { ...QUIET, allow_critical: true } };
    expect(decide(critical, allowing, ctx(0, present))).toEqual({
      action: "deliver",
      reason: "critical_in_quiet_hours",
    });
  });

  it("a delay that runs out inside quiet hours names the window's end, not the delay's", () => {
    const route = { ...timing(60, "always"), quietHours: QUIET };
    expect(decide(item, route, ctx(0, present))).toEqual({ action: "wait", until: at(QUIET_END), reason: "delay" });
  });
});
