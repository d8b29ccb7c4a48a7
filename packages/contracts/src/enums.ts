/**
 * Every value list and pattern the contracts share, each written once, in a module that loads no zod (issue 34,
 * item 4): the schemas (arc/, relay/, ui/) are built from these, and the broker, the web page and the phone import
 * them (`@notify/contracts/enums`, also re-exported by `@notify/contracts/ui-constants`). A test
 * (packages/contracts/test/enums-once.unit.test.ts) fails when a list is written out a second time in
 * `packages/*\/src`.
 */

/**
 * Notification and ARC priorities, lowest first (docs/api.md, "Notification object";
 * docs/arc.md, "Kind to type and priority").
 */
export const PRIORITIES = ["low", "normal", "high", "critical"] as const;
export type Priority = (typeof PRIORITIES)[number];

/** ARC request kinds (docs/arc.md, "Event types"). */
export const ARC_REQUEST_KINDS = ["information", "question", "permission", "blocked", "failure", "completion"] as const;

/** How an ARC request ended (docs/arc.md, "Resolution"). */
export const ARC_OUTCOMES = ["answered", "expired", "cancelled", "superseded", "not_needed"] as const;

/** ARC event types (docs/arc.md, "Event types"), in the order a request lives them. */
export const ARC_EVENT_TYPES = [
  "request.created",
  "request.updated",
  "response.submitted",
  "request.resolved",
] as const;

/** An ARC extension key (docs/arc.md, "Validation"): `x-` and a vendor's name. */
export const EXTENSION_KEY_PATTERN = /^x-[a-z0-9][a-z0-9.-]{0,63}$/;

/** A notification type id (docs/api.md, "Type IDs"; ARC's `x-notify.notification_type`). */
export const NOTIFICATION_TYPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** The kinds of question (docs/api.md, "Interaction object"). */
export const INTERACTION_KINDS = ["permission", "single_choice", "text"] as const;
export type InteractionKind = (typeof INTERACTION_KINDS)[number];

/** A notification's status (docs/api.md, "Notification status transitions (as implemented)"). */
export const NOTIFICATION_STATUSES = ["active", "dismissed", "resolved"] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** A question's status (docs/api.md, "Interaction status (as implemented)"). */
export const INTERACTION_STATUSES = ["pending", "answered", "expired", "cancelled", "superseded"] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

/** The two halves of an item: what the timeline, the stream and the page's item routes name. */
export const ITEM_KINDS = ["notification", "interaction"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** How a desktop answer came: the web page itself, or a toast's button (both store `source: "desktop"`). */
export const ANSWERED_VIA = ["ui", "toast"] as const;
export type AnsweredVia = (typeof ANSWERED_VIA)[number];

/** An outbox item's state (docs/outbound.md, "Delivery rules": `Pending`, `Retry`, `DeadLetter`; and `Delivered`). */
export const OUTBOX_STATUSES = ["Pending", "Retry", "Delivered", "DeadLetter"] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/** The SSE event names of /ui/api/stream. `settled`: an interaction reached a terminal status. */
export const STREAM_EVENTS = ["created", "changed", "settled"] as const;

/**
 * What kind of provider a router preset is (docs/router.md, "Presets"), in smart switching's cost order
 * (docs/router.md, "Smart switching", rule 2: another tool's sign-in, the flat plan, this computer, per token last).
 * The router's COST_ORDER is this list, so its order is behaviour.
 */
export const PRESET_KINDS = ["subscription", "flat_plan", "local", "per_token"] as const;
export type PresetKind = (typeof PRESET_KINDS)[number];

/** Where a provider's model list comes from: the provider's own endpoint, or the host agent's cache. */
export const MODEL_LIST_SOURCES = ["provider", "host_cache"] as const;
export type ModelListSource = (typeof MODEL_LIST_SOURCES)[number];

/** How a /ui/api request was let in: the page's session cookie, or the CLI's bearer token. */
export const UI_ADMISSIONS = ["session", "bearer"] as const;
export type UiAdmission = (typeof UI_ADMISSIONS)[number];

/** A desktop notification's life as the timeline records it: shown by the desktop service, then closed. */
export const TOAST_STATES = ["shown", "closed"] as const;
export type ToastState = (typeof TOAST_STATES)[number];

/** The formats a sound file may have (checked by its bytes). */
export const SOUND_FORMATS = ["wav", "mp3"] as const;
export type SoundFormat = (typeof SOUND_FORMATS)[number];

/** A provider router route: an alias (one target) or a combo (1-8 targets, docs/router.md, "Limits"). */
export const ROUTER_ROUTE_KINDS = ["alias", "combo"] as const;
export type RouterRouteKind = (typeof ROUTER_ROUTE_KINDS)[number];

/** The host agents the router's connectors manage (docs/connectors.md, "Agent connectors"). */
export const CONNECTOR_AGENTS = ["codex", "claude-code"] as const;
export type ConnectorAgentId = (typeof CONNECTOR_AGENTS)[number];

/**
 * The agents Notify's hooks and MCP entry install into (docs/hooks.md; issue 38): the connectors'
 * two, then Gemini CLI, GitHub Copilot CLI and OpenCode.
 */
export const HOOK_AGENTS = ["claude-code", "codex", "gemini", "copilot", "opencode"] as const;
export type HookAgentId = (typeof HOOK_AGENTS)[number];

/** Each agent's name as a person reads it: the hooks' ARC sender name, the pages' "Claude Code finished a turn". */
export const AGENT_DISPLAY_NAMES: Readonly<Record<HookAgentId, string>> = {
  "claude-code": "Claude Code",
  codex: "Codex CLI",
  gemini: "Gemini CLI",
  copilot: "GitHub Copilot CLI",
  opencode: "OpenCode",
};

/** Where the hooks and the MCP entry are installed: the user's own settings, or the current project's. */
export const INSTALL_SCOPES = ["user", "project"] as const;
export type InstallScope = (typeof INSTALL_SCOPES)[number];

/** What runs the broker as a per-user service (`notify service --platform`): Linux's, then macOS's. */
export const SERVICE_PLATFORMS = ["systemd", "launchd"] as const;
export type ServicePlatform = (typeof SERVICE_PLATFORMS)[number];

/** A choice id (docs/arc.md, "Questions": 1-64 letters, digits, `_` or `-`); also the shape of an answer's `source`. */
export const CHOICE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A hook session's own item (`<agent>:session:<32 hex>`, the broker's hooks/mapping.ts `sessionKey`). */
export const SESSION_KEY_PATTERN = /^[a-z][a-z-]*:session:[0-9a-f]{32}$/;

/** A follow-up: a text question in a session's own item, asked when the agent finished a turn (docs/hooks.md). */
export function isFollowUp(question: { kind: string; key?: string | null | undefined }): boolean {
  return question.kind === "text" && typeof question.key === "string" && SESSION_KEY_PATTERN.test(question.key);
}

/**
 * Receipts (docs/relay.md, "Receipts"): the hops an envelope takes on a device, in order. The relay records
 * `fetched`; a device reports the others.
 */
export const RELAY_RECEIPT_STATES = ["fetched", "shown", "opened"] as const;
export type RelayReceiptState = (typeof RELAY_RECEIPT_STATES)[number];
/** The receipt states a device reports (POST /v1/envelopes/{envelope_id}/receipts). */
export const RELAY_REPORTED_RECEIPT_STATES = ["shown", "opened"] as const satisfies readonly RelayReceiptState[];
export type RelayReportedReceiptState = (typeof RELAY_REPORTED_RECEIPT_STATES)[number];
