import { z } from "zod";
import { type AnsweredVia, NOTIFICATION_STATUSES, type STREAM_EVENTS, type UiAdmission } from "../enums.js";
import type { ArcInteraction, ArcNotification } from "../producer.js";

export type { ArcInteraction, ArcNotification } from "../producer.js";

/**
 * The /ui/api bodies (docs/api.md, "Web UI API: `/ui/api`"): one place that the broker validates with and the web page
 * types itself from. Response objects that the /v1 API already defines (NotificationDto, InteractionDto) are the
 * contract's own types, not copies.
 */

export type UiNotification = ArcNotification;
/**
 * A question as /ui/api serves it: the /v1 InteractionDto plus two display-only facts (docs/api.md, /ui/api).
 * `notification_id`: the notification raised with the question (its "notification half"); the page shows the two
 * as one item. `answered_via: "ui"`: the answer came through POST /ui/api/interactions/{id}/respond, the page
 * itself; `"toast"`: a desktop notification's button. Both store `source: "desktop"` (docs/api.md, "Inbox"), which
 * alone would not tell them apart. `has_context: true`: the question carries a context (GET
 * /ui/api/items/{id}/context, docs/api.md "Item context"). `form`: the question is one of an MCP form's (its
 * context's kind is `form`): `id` the form, `field` the field it asks, absent on the form's decision question.
 */
export type UiInteraction = ArcInteraction & {
  notification_id?: string;
  answered_via?: AnsweredVia;
  has_context?: true;
  form?: UiFormFact;
};

/** Which MCP form a question belongs to (`FormContext.form`) and which field it asks (absent: the decision). */
export interface UiFormFact {
  id: string;
  field?: string;
}

/** PATCH /ui/api/notifications/{id}: Dismiss, Resolve and Reopen. */
export const NotificationStatusBody = z.strictObject({ status: z.enum(NOTIFICATION_STATUSES) });
export type NotificationStatusBody = z.infer<typeof NotificationStatusBody>;

/**
 * POST /ui/api/interactions/{id}/respond. The page sends what it was shown (digest, nonce) and a response_id made
 * once per click; the broker adds `source: "desktop"` and takes the /v1 respond path.
 */
export const UiRespondBody = z.strictObject({
  response_id: z.string().min(1).max(128),
  request_digest: z.string().min(1).max(128),
  nonce: z.string().min(1).max(256),
  choice_id: z.string().min(1).max(200).optional(),
  text: z.string().max(2000).optional(),
});
export type UiRespondBody = z.infer<typeof UiRespondBody>;

/**
 * The local presentation keys (docs/desktop.md, "Local presentation rules"), plus `soundCommand`
 * (docs/desktop.md, "Sounds").
 */
export const PresentationSettings = z.strictObject({
  pauseNotifications: z.boolean(),
  doNotDisturb: z.boolean(),
  soundsEnabled: z.boolean(),
  playCriticalSoundsDuringDoNotDisturb: z.boolean(),
  volume: z.int().min(0).max(100),
  maxVisibleToasts: z.int().min(1).max(20),
  /** A program run with the sound file's path as its last argument; null picks pw-play, paplay or aplay. */
  soundCommand: z.string().trim().min(1).max(1024).nullable(),
});
export type PresentationSettings = z.infer<typeof PresentationSettings>;

/** PUT /ui/api/presentation: any subset of the keys; the others keep their value. */
export const PresentationPatch = PresentationSettings.partial();
export type PresentationPatch = z.infer<typeof PresentationPatch>;

/** GET /ui/api/inbox: the page's first picture, and the stream position it was taken at. */
export interface InboxSnapshot {
  notifications: UiNotification[];
  interactions: UiInteraction[];
  /** Give it to /ui/api/stream as `Last-Event-ID` (or `?since=`) to get every change after the snapshot. */
  cursor: string;
}

/** The SSE event names of /ui/api/stream (`STREAM_EVENTS`), and `reset`. */
export type StreamEventName = (typeof STREAM_EVENTS)[number] | "reset";

/** The `data` of a created/changed/settled event. */
export type StreamPayload =
  | { kind: "notification"; item: UiNotification }
  | { kind: "interaction"; item: UiInteraction };

/** GET /ui/api/session: who the page is talking to. */
export interface SessionInfo {
  version: string;
  /** How this request was let in. */
  via: UiAdmission;
}

/** POST /ui/api/session/link (bearer only): a fresh one-time login link for `notify open`. */
export interface LoginLink {
  url: string;
  expires_at: string;
}

/**
 * The `{error}` body every refusal carries (docs/api.md, "Errors"). /ui/api adds `field` when a refusal concerns one
 * option (`quiet_hours.end`), so the page puts it next to that input without reading the text (docs/api.md).
 */
export interface ErrorBody {
  error: string;
  field?: string;
}
