import { type AnsweredVia, isFollowUp, RELAY_RECEIPT_STATES } from "@notify/contracts/enums";
import { PRESENCE_STATES } from "@notify/contracts/routing-summary";
import type { ItemTimeline, TimelineEntry, TimelineRoute } from "@notify/contracts/ui";
import {
  TIMELINE_HOLD_REASONS,
  TIMELINE_SEND_REASONS,
  TIMELINE_TOAST_CLOSE_REASONS,
} from "@notify/contracts/ui-constants";
import { isoTime } from "../domain/clock.js";
import type { InteractionService } from "../interactions/service.js";
import type { InteractionDto } from "../interactions/types.js";
import type { NotificationService } from "../notifications/service.js";
import type { NotificationDto } from "../notifications/types.js";
import type { OutboundService } from "../outbox/outbound-service.js";
import type { OutboxSubject } from "../outbox/types.js";
import type { OutboxStore } from "../store/outbox-store.js";
import type { RelayReceiptStore } from "../store/relay-receipt-store.js";
import type { RoutedRow, RoutedStore } from "../store/routed-store.js";
import type { ToastRow, ToastStore } from "../store/toast-store.js";

/**
 * The delivery timeline of one item (issue 24 item 5; docs/routing.md, "The delivery timeline"): read from what the
 * broker stores, nothing recorded for it but the held reason of a routed row (migration 11). A question and its
 * notification half are one item. Names routes and provider kinds, never a provider's settings or secrets, never
 * the question's nonce or digest.
 */

/**
 * Entries at the same millisecond keep the order a reader expects. A void follows the settle that caused it (it is
 * written in the settling transaction, never before the settle's time).
 */
const RANK: Record<TimelineEntry["event"], number> = {
  created: 0,
  toast: 1,
  held: 2,
  delivery: 3,
  receipt: 3.5,
  settled: 4,
  edited: 4.6,
  not_sent: 5,
};

/** A toast the broker closed because its item settled is closed in the same millisecond: after the settle. */
const rank = (entry: TimelineEntry): number =>
  entry.event === "toast" && entry.state === "closed"
    ? RANK.settled + 0.5
    : entry.event === "receipt"
      ? RANK.receipt + RECEIPT_STATES.indexOf(entry.state) / 10
      : RANK[entry.event];

/** A phone's receipts recorded in the same millisecond (a report of `opened` brings `fetched` with it) in hop order. */
const RECEIPT_STATES: readonly string[] = RELAY_RECEIPT_STATES;

type HoldReason = Extract<TimelineEntry, { event: "held" }>["reason"];
type SendReason = Extract<TimelineEntry, { event: "delivery" }>["because"];
type Presence = Extract<TimelineEntry, { event: "held" }>["presence"];

const HOLD_REASONS = new Set<string>(TIMELINE_HOLD_REASONS);
const SEND_REASONS = new Set<string>(TIMELINE_SEND_REASONS);
const PRESENCES = new Set<string>(PRESENCE_STATES);
const TOAST_CLOSE_REASONS = new Set<string>(TIMELINE_TOAST_CLOSE_REASONS);
const OUTCOMES: Record<string, Extract<TimelineEntry, { event: "delivery" }>["outcome"]> = {
  Pending: "sending",
  Retry: "retrying",
  Delivered: "sent",
  DeadLetter: "failed",
};

export interface TimelineSources {
  notifications: NotificationService;
  interactions: InteractionService;
  outbox: OutboxStore;
  routed: RoutedStore;
  /** Shown and closed desktop notifications (migration 12). */
  toasts: ToastStore;
  outbound: OutboundService;
  /** The newest question asked for a notification (an ARC request's, or a native question's half). */
  questionOf: (notificationId: string) => string | undefined;
  /** The phones' receipts of relay deliveries (migration 15); absent, none are shown. */
  receipts?: RelayReceiptStore;
  /** When a chat app's question messages were edited to the outcome (migration 15); absent, none are shown. */
  chatEdits?: (interactionId: string) => { account: string; editedMs: number }[];
}

export class ItemTimelines {
  constructor(private readonly sources: TimelineSources) {}

  /** The timeline of a notification (and of its question, if it has one); 404 for an unknown id (checked first). */
  async forNotification(id: string): Promise<ItemTimeline> {
    this.sources.notifications.get(id);
    await this.caughtUp();
    const notification = this.sources.notifications.get(id);
    const questionId = this.sources.questionOf(id);
    return this.build(notification, questionId === undefined ? undefined : this.question(questionId));
  }

  /** The timeline of a question (and of its notification half); 404 for an unknown id (checked first). */
  async forInteraction(id: string): Promise<ItemTimeline> {
    this.sources.interactions.get(id);
    await this.caughtUp();
    const question = this.sources.interactions.get(id);
    const notificationId = this.sources.interactions.uiFacts(id).notification_id;
    return this.build(notificationId === undefined ? undefined : this.notification(notificationId), question);
  }

  /**
   * Items of routes without options are written when the dispatcher expands their markers: expand first (a chunk
   * per event-loop turn, as the outbox listing does), so a delivery the outbox owes is on the timeline even before
   * the dispatcher got to it.
   */
  private async caughtUp(): Promise<void> {
    await this.sources.outbox.caughtUp();
    this.sources.outbox.expandAll();
  }

  private question(id: string): InteractionDto | undefined {
    try {
      return this.sources.interactions.get(id);
    } catch {
      return undefined;
    }
  }

  private notification(id: string): NotificationDto | undefined {
    try {
      return this.sources.notifications.get(id);
    } catch {
      return undefined;
    }
  }

  private build(notification: NotificationDto | undefined, question: InteractionDto | undefined): ItemTimeline {
    const routes = this.routeNames();
    const entries: TimelineEntry[] = [];
    if (question) {
      if (notification && Date.parse(notification.createdAt) < Date.parse(question.created_at)) {
        entries.push({ event: "created", at: notification.createdAt, subject: "notification" });
      }
      entries.push({ event: "created", at: question.created_at, subject: "interaction" });
    } else if (notification) {
      entries.push({ event: "created", at: notification.createdAt, subject: "notification" });
    }
    if (notification) this.deliveries("notification", notification.id, routes, entries);
    if (question) this.deliveries("interaction", question.id, routes, entries);
    for (const row of this.sources.toasts.forItem(notification?.id, question?.id)) entries.push(toastEntry(row));
    // A chat message's account is `<source>:<bot>` (store/chat-store.ts): the source word names the surface.
    for (const edit of question ? (this.sources.chatEdits?.(question.id) ?? []) : []) {
      entries.push({ event: "edited", at: isoTime(edit.editedMs), surface: edit.account.split(":")[0] ?? "" });
    }
    const settled = question
      ? questionSettled(question, this.sources.interactions.uiFacts(question.id).answered_via)
      : notification
        ? notificationSettled(notification)
        : undefined;
    if (settled) entries.push(settled);
    entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || rank(a) - rank(b));
    const timeline: ItemTimeline = { entries };
    if (notification) timeline.notification_id = notification.id;
    if (question) timeline.interaction_id = question.id;
    return timeline satisfies ItemTimeline;
  }

  /** Route id to `{name, provider_kind}`, from the routes and providers as they are now. */
  private routeNames(): (routeId: string, providerId: string) => TimelineRoute {
    const { outbound } = this.sources;
    const byId = new Map(outbound.listRoutes().map((route) => [route.id, route]));
    return (routeId, providerId) => {
      const route = byId.get(routeId);
      const kind = outbound.profile(route?.providerId ?? providerId)?.kind;
      const named: TimelineRoute = { id: routeId };
      if (route) named.name = route.name;
      if (kind !== undefined) named.provider_kind = kind;
      return named;
    };
  }

  /** The routed decisions and the outbox items of one subject. */
  private deliveries(
    subject: OutboxSubject,
    id: string,
    routeOf: (routeId: string, providerId: string) => TimelineRoute,
    entries: TimelineEntry[],
  ): void {
    const routed = this.sources.routed.forSubject(subject, id);
    const releasedBy = new Map<number, RoutedRow>();
    for (const row of routed) {
      const route = routeOf(row.routeId, row.providerId);
      if (row.outboxSeq !== null) releasedBy.set(row.outboxSeq, row);
      if (row.state === "held") {
        entries.push(held(row, route, row.reason, row.dueMs, row.heldPresence));
        continue;
      }
      if (row.heldReason !== null) entries.push(held(row, route, row.heldReason, row.heldDueMs, row.heldPresence));
      if (row.state === "void") {
        entries.push({
          event: "not_sent",
          at: isoTime(row.updatedMs),
          route,
          reason: row.reason === "route_off" ? "route_off" : "settled",
        });
      }
    }
    const items = this.sources.outbox.itemsOfSubject(subject, id);
    this.receipts(items, routeOf, entries);
    for (const row of items) {
      const outcome = OUTCOMES[row.status] ?? "sending";
      const decision = releasedBy.get(row.seq);
      const atMs =
        outcome === "sent" ? (row.deliveredMs ?? row.updatedMs) : outcome === "sending" ? row.createdMs : row.updatedMs;
      const entry: Extract<TimelineEntry, { event: "delivery" }> = {
        event: "delivery",
        at: isoTime(atMs),
        route: routeOf(row.routeId, row.providerId),
        outcome,
        attempts: row.attempts,
        because: decision && SEND_REASONS.has(decision.reason) ? (decision.reason as SendReason) : "immediate",
      };
      const presence = presenceOf(decision?.presence ?? null);
      if (presence !== undefined) entry.presence = presence;
      if (row.lastStatus !== null) entry.last_status = row.lastStatus;
      if (row.lastCode !== null) entry.last_code = row.lastCode;
      if (outcome === "retrying") entry.next_attempt_at = isoTime(row.nextAttemptMs);
      entries.push(entry);
    }
  }

  /** Each phone's hops of these outbox items (docs/relay.md, "Receipts"), named by the item's route. */
  private receipts(
    items: readonly { seq: number; routeId: string; providerId: string }[],
    routeOf: (routeId: string, providerId: string) => TimelineRoute,
    entries: TimelineEntry[],
  ): void {
    const store = this.sources.receipts;
    if (!store || items.length === 0) return;
    const bySeq = new Map(items.map((item) => [item.seq, item]));
    for (const hop of store.forItems([...bySeq.keys()])) {
      const item = bySeq.get(hop.outboxSeq);
      if (!item) continue;
      entries.push({
        event: "receipt",
        at: isoTime(hop.atMs),
        route: routeOf(item.routeId, item.providerId),
        state: hop.state,
        device_id: hop.deviceId,
      });
    }
  }
}

function toastEntry(row: ToastRow): TimelineEntry {
  const entry: Extract<TimelineEntry, { event: "toast" }> = {
    event: "toast",
    at: isoTime(row.atMs),
    state: row.event === "closed" ? "closed" : "shown",
  };
  if (row.event === "closed" && row.reason !== null && TOAST_CLOSE_REASONS.has(row.reason)) {
    entry.reason = row.reason as NonNullable<typeof entry.reason>;
  }
  return entry;
}

function presenceOf(value: string | null): Presence {
  return value !== null && PRESENCES.has(value) ? (value as Presence) : undefined;
}

function held(
  row: RoutedRow,
  route: TimelineRoute,
  reason: string,
  dueMs: number | null,
  presence: string | null,
): TimelineEntry {
  const entry: Extract<TimelineEntry, { event: "held" }> = {
    event: "held",
    at: isoTime(row.createdMs),
    route,
    until: dueMs === null ? null : isoTime(dueMs),
  };
  if (HOLD_REASONS.has(reason)) entry.reason = reason as HoldReason;
  const state = presenceOf(presence);
  if (state !== undefined) entry.presence = state;
  return entry;
}

function questionSettled(question: InteractionDto, via: AnsweredVia | undefined): TimelineEntry | undefined {
  switch (question.status) {
    case "pending":
      return undefined;
    case "answered": {
      const response = question.response;
      const entry: Extract<TimelineEntry, { event: "settled" }> = {
        event: "settled",
        at: question.answered_at ?? response?.created_at ?? question.updated_at,
        status: "answered",
      };
      if (response?.source !== undefined) entry.source = response.source;
      if (via !== undefined) entry.answered_via = via;
      if (isFollowUp(question)) entry.follow_up = true;
      const choice = question.choices.find((candidate) => candidate.id === response?.choice_id);
      if (choice) entry.choice_label = choice.label;
      return entry;
    }
    case "expired":
      // The sweep that marks it may run later than the moment it expired: that moment is the expiry.
      return {
        event: "settled",
        at: question.expires_at,
        status: "expired",
        ...(isFollowUp(question) ? { follow_up: true } : {}),
      };
    default:
      return {
        event: "settled",
        at: question.updated_at,
        status: question.status,
        ...(isFollowUp(question) ? { follow_up: true } : {}),
      };
  }
}

function notificationSettled(notification: NotificationDto): TimelineEntry | undefined {
  if (notification.status === "active") return undefined;
  return { event: "settled", at: notification.resolvedAt ?? notification.updatedAt, status: notification.status };
}
