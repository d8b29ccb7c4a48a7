import type { ItemContext } from "@notify/contracts/item-context";
import type { Priority } from "../notifications/types.js";
import type { NotificationQuestion } from "../store/interaction-store.js";
import type { OutboundPayload, OutboxItem, OutgoingInteraction } from "./types.js";

/**
 * What leaves the machine: payloads are built here, from the rows the outbox store reads, when an item is read
 * (so a notification goes out as it is at send time). The IncludeMessage redaction (docs/outbound.md,
 * "Delivery rules", rule 3) is applied here and nowhere else.
 */

/**
 * The fixed payload of the provider Test action: small and the same every time (docs/outbound.md, "Delivery rules",
 * rule 7).
 */
export function testPayload(nowIso: string): OutboundPayload {
  return {
    id: "ntf_test",
    title: "Notify test",
    message: "This is a test notification from Notify.",
    type: "info",
    priority: "normal",
    agent: "notify",
    createdAt: nowIso,
    test: true,
  };
}

/** The columns of a notification a payload is built from (as the outbox store reads them). */
export interface NotificationColumns {
  id: string;
  title: string;
  message: string;
  type: string;
  priority: string;
  agent: string;
  project: string | null;
  key: string | null;
  createdAt: string;
}

/** A notification's payload for one route: the message is left out when the route's IncludeMessage is off. */
export function notificationPayload(columns: NotificationColumns, includeMessage: boolean): OutboundPayload {
  const payload: OutboundPayload = {
    id: columns.id,
    title: columns.title,
    type: columns.type,
    priority: columns.priority as Priority,
    agent: columns.agent,
    createdAt: columns.createdAt,
  };
  if (includeMessage) payload.message = columns.message;
  if (columns.project !== null) payload.project = columns.project;
  if (columns.key !== null) payload.key = columns.key;
  return payload;
}

/** The columns of a question an interaction item's summary is built from. */
export interface InteractionColumns {
  id: string;
  kind: string | null;
  prompt: string | null;
  agent: string | null;
  project: string | null;
  key: string | null;
  createdAt: string;
}

/**
 * An interaction item lists with a summary payload (the prompt as its title, never the nonce or digest); the
 * adapter gets the whole interaction at send time (`PayloadSources.interaction`), as it is then.
 */
export function interactionSummary(columns: InteractionColumns): OutboundPayload {
  const prompt = columns.prompt ?? "";
  const payload: OutboundPayload = {
    id: columns.id,
    title: prompt.length > 200 ? `${prompt.slice(0, 199)}…` : prompt,
    type: columns.kind === "permission" ? "permission_required" : "input_required",
    priority: "high",
    agent: columns.agent ?? "unknown",
    createdAt: columns.createdAt,
  };
  if (columns.project !== null) payload.project = columns.project;
  if (columns.key !== null) payload.key = columns.key;
  return payload;
}

/** What a payload reads at send time besides the item (broker.ts wires the interaction store and service). */
export interface PayloadSources {
  /** The newest question asked for a notification, if any, with its context. */
  questionOf(notificationId: string): (NotificationQuestion & { context?: ItemContext }) | undefined;
  /**
   * The interaction an item delivers, as it is now (nonce included: only a sealing adapter gets it), with its
   * context.
   */
  interaction(id: string): OutgoingInteraction | undefined;
}

export const noPayloadSources: PayloadSources = { questionOf: () => undefined, interaction: () => undefined };

/** A notification item's payload as it leaves: with the question it asks, if any (id, kind, choices; never the nonce). */
export function outgoingPayload(item: OutboxItem, sources: PayloadSources): OutboundPayload {
  if (item.subject !== "notification") return item.payload;
  const question = sources.questionOf(item.notificationId);
  if (question === undefined) return item.payload;
  return {
    ...item.payload,
    interaction: {
      id: question.id,
      kind: question.kind,
      choices: question.choices,
      expiresAt: question.expires_at,
      ...(question.context !== undefined ? { context: question.context } : {}),
    },
  };
}
