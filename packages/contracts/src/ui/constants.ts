/**
 * The /ui/api constants the web page needs at run time, in a module that loads no zod: the page imports only
 * these as values (everything else from `@notify/contracts/ui` is a type), so its bundle ships no schema library.
 * The router validates with the same constants (packages/router/src/config/records.ts).
 */

import type { PresentationSettings } from "./schemas.js";

export * from "../enums.js";

/** Smart switching strategies (docs/router.md, "Smart switching"), in the order the page lists them. */
export const SWITCH_STRATEGIES = ["off", "ordered", "sticky", "round_robin"] as const;
export type SwitchStrategy = (typeof SWITCH_STRATEGIES)[number];

/** The most targets a combo has (docs/router.md, "Limits": a combo has 1-8 targets; an alias has exactly one). */
export const MAX_COMBO_TARGETS = 8;

/** The five effort names (docs/router.md, "Effort mapping"), lowest first. */
export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];

/** Record wires (docs/router.md names them so in records; the router's IR says `responses` etc.). */
export const RECORD_WIRES = ["responses_wire", "chat_wire", "messages_wire"] as const;
export type RecordWire = (typeof RECORD_WIRES)[number];

/**
 * How an upstream authenticates: an API key, or one of the plan sign-ins
 * (docs/router.md, "Subscriptions and saved accounts").
 */
export const UPSTREAM_AUTHS = ["api_key", "plan_signin_a", "plan_signin_b"] as const;
export type UpstreamAuth = (typeof UPSTREAM_AUTHS)[number];

/** An upstream's slug: the `provider` of a `provider/model` target. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** The most models an upstream declares, counted without repeats. */
export const MAX_DECLARED_MODELS = 500;

/** An alias or combo name: 1-64 letters, digits, dots, dashes or underscores, never a `/`. */
export const ROUTE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A route target: `provider/model`. */
export const ROUTE_TARGET_PATTERN = /^[^/]+\/.+$/;

/**
 * The local presentation keys' defaults (docs/desktop.md, "Local presentation rules"; PresentationSettings in
 * schemas.ts).
 */
export const PRESENTATION_DEFAULTS: PresentationSettings = {
  pauseNotifications: false,
  doNotDisturb: false,
  soundsEnabled: true,
  playCriticalSoundsDuringDoNotDisturb: true,
  volume: 70,
  maxVisibleToasts: 5,
  soundCommand: null,
};

// The delivery timeline's values (ui/timeline.ts's schema; the broker's attention/timeline.ts checks stored rows against
// them), here so that a reader needs no zod.
/** Why a route with options waited (the policy's WaitReason, attention/policy.ts). */
export const TIMELINE_HOLD_REASONS = ["delay", "presence", "quiet_hours"] as const;
/** Why a delivery left (the policy's DeliverReason; `immediate` also for a route without options). */
export const TIMELINE_SEND_REASONS = ["immediate", "delay_elapsed", "presence", "critical_in_quiet_hours"] as const;
/** An outbox item's state in words: Pending, Retry, Delivered, DeadLetter. */
export const TIMELINE_OUTCOMES = ["sending", "retrying", "sent", "failed"] as const;
/** Why the desktop service closed a toast (the freedesktop NotificationClosed reasons 1-3). */
export const TIMELINE_TOAST_CLOSE_REASONS = ["expired", "dismissed", "closed"] as const;
export const TIMELINE_SETTLED = ["answered", "expired", "cancelled", "superseded", "dismissed", "resolved"] as const;
