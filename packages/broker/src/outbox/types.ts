import type { InteractionKind, ItemKind, OutboxStatus, Priority } from "@notify/contracts/enums";
import type { ItemContext } from "@notify/contracts/item-context";
import type { DeliveryResult } from "@notify/contracts/ui";
import type { InteractionDto } from "../interactions/types.js";

/** The list is the contract's (issue 34: each enum once), named here as the broker always has. */
export { OUTBOX_STATUSES, type OutboxStatus } from "@notify/contracts/enums";

/** What leaves the machine for one notification on one route (docs/outbound.md). */
export interface OutboundPayload {
  /** The notification id. */
  id: string;
  title: string;
  /** Absent when the route has IncludeMessage off (docs/outbound.md, "Delivery rules", rule 3). */
  message?: string;
  type: string;
  priority: Priority;
  agent: string;
  project?: string;
  key?: string;
  createdAt: string;
  /** True for the provider Test action's fixed payload. */
  test?: boolean;
  /**
   * The question this notification asks, when it has one (a native question or an answerable ARC request): what
   * a receiver needs to know what is asked. Never the nonce or the digest, which only answer on this machine.
   */
  interaction?: OutboundQuestion;
}

export interface OutboundQuestion {
  id: string;
  kind: InteractionKind;
  choices: { id: string; label: string; detail?: string }[];
  expiresAt: string;
  /** What the question asks about (docs/api.md, "Item context"), read at send time; never stored in the outbox. */
  context?: ItemContext;
}

/**
 * A provider profile and an outbound route as stored and as /ui/api returns them: the one definition lives in
 * @notify/contracts/ui (docs/api.md, "Web UI API: `/ui/api`": shared API shapes in one place), named here as the broker
 * always has.
 */
export type { OutboundProvider as ProviderProfile, OutboundRoute } from "@notify/contracts/ui";

/** What an outbox item delivers (docs/relay.md, "Outbox items for questions": the outbox carries any deliverable). */
export type OutboxSubject = ItemKind;

export interface OutboxItemBase {
  id: string;
  routeId: string;
  providerId: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptMs: number;
  idempotencyKey: string;
  lastStatus?: number;
  lastCode?: string;
  createdAt: string;
  updatedAt: string;
  deliveredAt?: string;
}

/** A notification for a provider route. */
export interface NotificationOutboxItem extends OutboxItemBase {
  subject: "notification";
  notificationId: string;
  payload: OutboundPayload;
}

/**
 * A question for a relay route (docs/outbound.md, "Delivery rules", rule 8). `payload` is a summary for listings (the
 * prompt as title); the adapter gets the whole interaction at send time through `sendInteraction`.
 */
export interface InteractionOutboxItem extends OutboxItemBase {
  subject: "interaction";
  interactionId: string;
  payload: OutboundPayload;
}

export type OutboxItem = NotificationOutboxItem | InteractionOutboxItem;

/** The result of one attempt: the contract's, which the provider Test action answers with (docs/outbound.md). */
export type { DeliveryResult };

export interface DeliveryContext {
  /** Stable per outbox item: a provider that honours one drops a repeat. */
  idempotencyKey: string;
  signal: AbortSignal;
}

/** One outbound provider kind. One file per kind under providers/, each with its own test. */
/** A question as it leaves: the interaction, and its context when it has one (docs/api.md, "Item context"). */
export type OutgoingInteraction = InteractionDto & { context?: ItemContext };

export interface ProviderAdapter {
  kind: string;
  /** Settings fields are checked on write; returns the normalized settings or throws a 400 DomainError. */
  parseSettings(settings: unknown): Record<string, unknown>;
  /** Names of secrets this kind needs (required) and may take (optional). */
  secrets: { required: readonly string[]; optional: readonly string[] };
  send(
    payload: OutboundPayload,
    settings: Record<string, unknown>,
    secrets: Record<string, string>,
    context: DeliveryContext,
  ): Promise<DeliveryResult>;
  /**
   * Kinds that carry questions (relay) take interaction items too; for any other kind an interaction item is
   * final (`provider_kind_unsupported`). The interaction is read at send time, nonce included, so only an adapter
   * that seals it end to end may implement this.
   */
  sendInteraction?(
    interaction: OutgoingInteraction,
    settings: Record<string, unknown>,
    secrets: Record<string, string>,
    context: DeliveryContext,
  ): Promise<DeliveryResult>;
  /**
   * Loads in the background what this kind's first send would load (a module imported on first use). Attention
   * routing calls it when it holds an item for a provider of this kind, so the release (a lock, a due time) does
   * not wait for the load (docs/routing.md).
   */
  warmUp?(): void;
  /**
   * Kinds that can edit a message they posted (Telegram): a digest route's message grows and shows its items
   * settle, and a session's next "finished" notification replaces its last (docs/outbound.md, "Less noise").
   */
  editable?: EditableMessages;
}

/** Plain-text messages an adapter posts and edits later; the handle says where a message is (never a secret). */
export interface EditableMessages {
  post(
    text: string,
    settings: Record<string, unknown>,
    secrets: Record<string, string>,
    context: DeliveryContext,
  ): Promise<{ result: DeliveryResult; handle?: string }>;
  edit(
    handle: string,
    text: string,
    settings: Record<string, unknown>,
    secrets: Record<string, string>,
    context: DeliveryContext,
  ): Promise<DeliveryResult>;
}
