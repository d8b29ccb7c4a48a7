import { z } from "zod";
import { ANSWERED_VIA, ITEM_KINDS, RELAY_RECEIPT_STATES, TOAST_STATES } from "../enums.js";
import {
  TIMELINE_HOLD_REASONS,
  TIMELINE_OUTCOMES,
  TIMELINE_SEND_REASONS,
  TIMELINE_SETTLED,
  TIMELINE_TOAST_CLOSE_REASONS,
} from "./constants.js";
import { PRESENCE_STATES } from "./routing-summary.js";

/**
 * GET /ui/api/notifications/{id}/timeline and GET /ui/api/interactions/{id}/timeline (docs/api.md, docs/routing.md,
 * "The delivery timeline"): what happened to one item, oldest first. A question and its notification half are one
 * item: either id gives the same entries. Read only; built from what the broker stores (the item, its routed
 * decisions in `routed_deliveries`, its outbox items). Never a secret, a provider's settings (a URL may hold a
 * token), the question's nonce or digest.
 */

/** A route as the timeline names it: its name and its provider's kind (`Phone (ntfy)`); absent once deleted. */
export const TimelineRoute = z.strictObject({
  id: z.string(),
  name: z.string().optional(),
  provider_kind: z.string().optional(),
});
export type TimelineRoute = z.infer<typeof TimelineRoute>;

const at = z.iso.datetime();
const presence = z.enum(PRESENCE_STATES).optional();

export const TimelineEntry = z.discriminatedUnion("event", [
  /** The item was created (a question: asked). */
  z.strictObject({ event: z.literal("created"), at, subject: z.enum(ITEM_KINDS) }),
  /**
   * A route with options held the item (at: when). `until`: the due time (null: only a presence change releases
   * it). `presence`: what the broker knew when it held it. `reason` is absent on rows older than the record.
   */
  z.strictObject({
    event: z.literal("held"),
    at,
    route: TimelineRoute,
    reason: z.enum(TIMELINE_HOLD_REASONS).optional(),
    until: at.nullable(),
    presence,
  }),
  /** A held delivery that never left: the item settled first, or the route (or its provider) was turned off. */
  z.strictObject({
    event: z.literal("not_sent"),
    at,
    route: TimelineRoute,
    reason: z.enum(["settled", "route_off"]),
  }),
  /**
   * One outbox item: its state now (at: sent when delivered, else its last change). `because`: why it left (a
   * released hold names the policy's reason, with the presence it saw). `last_status`/`last_code`: the last
   * attempt's HTTP status and fixed code; `next_attempt_at` while retrying.
   */
  z.strictObject({
    event: z.literal("delivery"),
    at,
    route: TimelineRoute,
    outcome: z.enum(TIMELINE_OUTCOMES),
    attempts: z.int().min(0),
    because: z.enum(TIMELINE_SEND_REASONS),
    presence,
    last_status: z.int().optional(),
    last_code: z.string().optional(),
    next_attempt_at: at.optional(),
  }),
  /**
   * A hop a delivery took on a phone, from the relay's receipts (docs/relay.md, "Receipts"): `fetched` (the phone
   * took the envelope from the relay), `shown` (on its screen), `opened` (the person opened it). One per phone.
   */
  z.strictObject({
    event: z.literal("receipt"),
    at,
    route: TimelineRoute,
    state: z.enum(RELAY_RECEIPT_STATES),
    device_id: z.string(),
  }),
  /**
   * A chat app's question message (Telegram, Slack, Discord: `surface` is its answers' `source` word) was edited to
   * show the outcome once the question settled.
   */
  z.strictObject({ event: z.literal("edited"), at, surface: z.string() }),
  /**
   * A desktop notification of the item: the desktop service accepted it (`shown`; again after the service came
   * back), or said it closed (`closed`, with its reason: `expired`, `dismissed` by the person, `closed` by the broker
   * once the item settled).
   */
  z.strictObject({
    event: z.literal("toast"),
    at,
    state: z.enum(TOAST_STATES),
    reason: z.enum(TIMELINE_TOAST_CLOSE_REASONS).optional(),
  }),
  /**
   * The item settled. A question: answered (with `source`, the choice's label and `answered_via`), expired,
   * cancelled, superseded. A notification without a question: dismissed or resolved (its last change).
   */
  z.strictObject({
    event: z.literal("settled"),
    at,
    status: z.enum(TIMELINE_SETTLED),
    source: z.string().optional(),
    answered_via: z.enum(ANSWERED_VIA).optional(),
    choice_label: z.string().optional(),
    /** A reply to a finished turn, handed to the agent as its next instruction (docs/hooks.md, "Follow-ups"). */
    follow_up: z.literal(true).optional(),
  }),
]);
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const ItemTimeline = z.strictObject({
  /** The notification and the question of the item, as far as it has them. */
  notification_id: z.string().optional(),
  interaction_id: z.string().optional(),
  entries: z.array(TimelineEntry),
});
export type ItemTimeline = z.infer<typeof ItemTimeline>;
