import type { PresenceStateName, QuietHours, RouteWhen } from "@notify/contracts";
import type { TIMELINE_HOLD_REASONS } from "@notify/contracts/ui-constants";
import type { Priority } from "../notifications/types.js";
import { quietUntil } from "./quiet-hours.js";

/**
 * Attention routing as one pure function (docs/routing.md, "Route options"): whether a route
 * delivers an item now, later, or never. No clock, no store: `now`, the item, the route's options and the presence
 * are all given, so the outbox calls it on create, at the due time it returned, and on every presence change.
 */

export interface RoutedItem {
  kind: "notification" | "question";
  /** ms since the epoch. */
  createdAt: number;
  /**
   * When the notification stopped being active or the question stopped being pending (ms), if it has. A value
   * after `now` is the future as far as this decision goes: the item counts as open.
   */
  settledAt?: number | undefined;
  priority: Priority;
}

/** A route's routing options with defaults applied (`normalizeRouteOptions`). */
export interface RouteTiming {
  delaySeconds: number;
  when: RouteWhen;
  quietHours?: QuietHours | undefined;
}

export interface PresenceView {
  state: PresenceStateName;
  /** When the state began (ms); carried into the reason of a presence-driven delivery. */
  since: number;
}

export interface PolicyContext {
  now: number;
  presence: PresenceView;
  /** IANA zone quiet hours are read in (the process's own in the broker: local-time.ts `systemTimeZone`). */
  timeZone: string;
}

/** Why an item goes now: the timeline on the web page says it in words. */
export type DeliverReason =
  /** `when: always` and no delay. */
  | "immediate"
  /** The delay ran out with the item still open. */
  | "delay_elapsed"
  /** `when` matched the presence (`away`/`present`), or an unknown presence on a route without a delay. */
  | "presence"
  /** Critical, quiet hours allow it: the same reasons apply, the window does not hold it. */
  | "critical_in_quiet_hours";

/** The contract's hold reasons, the words the delivery timeline shows (issue 34: each enum once). */
export type WaitReason = (typeof TIMELINE_HOLD_REASONS)[number];

export type RoutingDecision =
  | { action: "deliver"; reason: DeliverReason; presence?: PresenceView }
  | {
      action: "wait";
      /**
       * The earliest time the answer can change other than by a presence change (ms), or null when only a
       * presence change can (a `when: away` route without a delay while the person is present).
       */
      until: number | null;
      reason: WaitReason;
    }
  /** Settled before delivery: nothing leaves the machine, now or later. */
  | { action: "never" };

export const DEFAULT_ROUTE_TIMING: RouteTiming = { delaySeconds: 0, when: "always" };

/** The stored route options (snake_case as in `notify apply`) with defaults applied. */
export function normalizeRouteOptions(options: {
  delay_seconds?: number | undefined;
  when?: RouteWhen | undefined;
  quiet_hours?: QuietHours | null | undefined;
}): RouteTiming {
  return {
    delaySeconds: options.delay_seconds ?? 0,
    when: options.when ?? "always",
    ...(options.quiet_hours ? { quietHours: options.quiet_hours } : {}),
  };
}

/**
 * Whether the presence satisfies `when`. Unknown (no signal) counts as present on a route with a delay, so it
 * waits the delay rather than escalating on a guess; on a route without a delay there is no later moment to fall
 * back on, so unknown satisfies `away` and `present` alike and the route behaves as `always`.
 */
export function presenceMatches(when: RouteWhen, state: PresenceStateName, delaySeconds: number): boolean {
  if (when === "always") return true;
  if (state === "unknown") return delaySeconds === 0 || when === "present";
  return state === when;
}

/** What the route does with the item at `context.now`. */
export function decide(item: RoutedItem, route: RouteTiming, context: PolicyContext): RoutingDecision {
  const { now, presence } = context;
  if (item.settledAt !== undefined && item.settledAt <= now) return { action: "never" };

  const dueAt = item.createdAt + route.delaySeconds * 1000;
  let reason: DeliverReason;
  if (route.when !== "always" && presenceMatches(route.when, presence.state, route.delaySeconds)) {
    reason = "presence";
  } else if (route.delaySeconds === 0) {
    // `always` goes at once; `away`/`present` without a delay wait for the presence alone.
    if (route.when !== "always") return { action: "wait", until: null, reason: "presence" };
    reason = "immediate";
  } else if (now >= dueAt) {
    // With a delay, `when` only makes a route go sooner: once the delay has run out it goes whatever the presence.
    reason = "delay_elapsed";
  } else {
    return { action: "wait", until: outsideQuiet(dueAt, route, item, context.timeZone), reason: "delay" };
  }

  if (route.quietHours) {
    const quietEnd = quietUntil(route.quietHours, now, context.timeZone);
    if (quietEnd > now) {
      if (item.priority === "critical" && route.quietHours.allow_critical) {
        return { action: "deliver", reason: "critical_in_quiet_hours", ...presenceOf(reason, presence) };
      }
      return { action: "wait", until: quietEnd, reason: "quiet_hours" };
    }
  }
  return { action: "deliver", reason, ...presenceOf(reason, presence) };
}

function presenceOf(reason: DeliverReason, presence: PresenceView): { presence?: PresenceView } {
  return reason === "presence" ? { presence } : {};
}

/** A due time inside quiet hours moves to the window's end (unless the item may pierce them). */
function outsideQuiet(at: number, route: RouteTiming, item: RoutedItem, timeZone: string): number {
  if (!route.quietHours) return at;
  if (item.priority === "critical" && route.quietHours.allow_critical) return at;
  return quietUntil(route.quietHours, at, timeZone);
}
