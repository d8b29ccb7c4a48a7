import type { DomainBus } from "../domain/bus.js";
import type { Clock } from "../domain/clock.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import { type InteractionDto, isTerminal } from "../interactions/types.js";
import type { NotificationDto, Priority } from "../notifications/types.js";
import { routeMatches } from "../outbox/matching.js";
import type { OutboundService } from "../outbox/outbound-service.js";
import type { OutboundRoute, OutboxSubject } from "../outbox/types.js";
import type { RouteRef } from "../store/outbox-marker.js";
import type { OutboxStore } from "../store/outbox-store.js";
import type { HeldRow, RoutedStore } from "../store/routed-store.js";
import { systemTimeZone } from "./local-time.js";
import { decide, normalizeRouteOptions, type PresenceView, type RoutedItem, type RoutingDecision } from "./policy.js";

/**
 * Attention routing in the outbox (issue 24, docs/routing.md): a route with routing options (a delay, `when`,
 * quiet hours) asks the policy (`decide`) for each item it matches, in the unit of work that creates the item.
 * `deliver` writes the outbox item there and then; `wait` writes a held row (`routed_deliveries`) with its due
 * time, durable with the item; `never` writes nothing that leaves. A single timer set for the earliest due time
 * re-decides held rows when they fall due, and a presence change re-decides every held row. An item that settles
 * voids its held rows in the settling transaction, so a held row never becomes an item for a settled one.
 *
 * Routes without options never come here: they keep the folded outbox's marker path (outbound-service.ts).
 */

/** True for a route with any routing option set (stored routes carry only values that differ from the default). */
export function hasRoutingOptions(route: OutboundRoute): boolean {
  return route.delay_seconds !== undefined || route.when !== undefined || route.quiet_hours !== undefined;
}

export interface AttentionOptions {
  /** Held rows re-decided per unit of work (the rest follow on the next event-loop turn). */
  batch?: number;
  /** The IANA zone quiet hours are read in (default: the process's, local-time.ts). */
  timeZone?: string;
  /**
   * After a start, rows that wait for a presence alone are re-decided once this long has passed or on the first
   * presence change, whichever comes first, so the sources have a moment to report before an unknown presence
   * counts (docs/routing.md, "Releasing what is held").
   */
  startGraceMs?: number;
  /** The longest the timer sleeps before it looks again (a wall-clock step is then noticed within this). */
  maxSleepMs?: number;
}

const OPEN_STATUSES = new Set(["active", "pending"]);

export class AttentionRouter {
  private readonly batch: number;
  /**
   * The zone quiet hours are read in, resolved on the first decision: asking Intl for the system's zone loads ICU's
   * time zone data, 8.6 MB of RSS, which a broker whose routes have no options never needs (issue 22 part 6).
   */
  private timeZone: string | undefined;
  private readonly startGraceMs: number;
  private readonly maxSleepMs: number;
  private timer: NodeJS.Timeout | undefined;
  /** The due time the timer is set for (Infinity when none). */
  private armedFor = Number.POSITIVE_INFINITY;
  private graceTimer: NodeJS.Timeout | undefined;
  private stopped = true;
  /** A presence walk in progress: the row it is at, and whether another change asked for a new walk. */
  private walk: { after: number; again: boolean } | undefined;
  private releasing = false;
  private unsubscribePresence: (() => void) | undefined;

  constructor(
    private readonly store: RoutedStore,
    private readonly outbox: OutboxStore,
    private readonly outbound: OutboundService,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    private readonly presence: {
      snapshot(): PresenceView;
      onChange(listener: () => void): () => void;
    },
    /** The routable fields of a question (its notification's, or the native defaults: routableOf). */
    private readonly priorityOfQuestion: (interaction: InteractionDto) => Priority,
    options: AttentionOptions = {},
  ) {
    this.batch = options.batch ?? 500;
    this.timeZone = options.timeZone;
    this.startGraceMs = options.startGraceMs ?? 5_000;
    this.maxSleepMs = options.maxSleepMs ?? 60_000;
  }

  /**
   * In-transaction subscribers (broker.ts calls this after the outbox's): a new or refreshed notification is
   * decided for its routes with options; a notification that stops being active and a question that settles void
   * their held rows in the same transaction.
   */
  subscribe(bus: DomainBus): void {
    bus.onRecorded("notification.created", (notification, { row }) => this.routeNotification(notification, row));
    bus.onRecorded("notification.changed", (notification, change) => {
      if (change.cause === "refresh") this.routeNotification(notification, change.row);
      else if (notification.status !== "active") this.settle("notification", notification.id);
    });
    bus.onRecorded("interaction.changed", (interaction) => {
      if (isTerminal(interaction.status)) this.settle("interaction", interaction.id);
    });
  }

  /** Starts the timer (at the earliest held due time) and listens to presence changes. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribePresence = this.presence.onChange(() => this.presenceChanged());
    this.arm();
    this.graceTimer = setTimeout(() => {
      this.graceTimer = undefined;
      this.presenceChanged();
    }, this.startGraceMs);
    this.graceTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribePresence?.();
    if (this.timer) clearTimeout(this.timer);
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.timer = undefined;
    this.graceTimer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  private context(): { now: number; presence: PresenceView; timeZone: string } {
    const { state, since } = this.presence.snapshot();
    this.timeZone ??= systemTimeZone();
    return { now: this.clock.now(), presence: { state, since }, timeZone: this.timeZone };
  }

  /** The routes with options that match a notification (gates as any route's). */
  private routedFor(routable: Pick<NotificationDto, "type" | "priority" | "agent" | "project">): OutboundRoute[] {
    return this.outbound
      .routedRoutes()
      .filter((route) => routeMatches(route, this.outbound.profile(route.providerId), routable));
  }

  /** Inside the unit of work that creates or refreshes a notification. */
  routeNotification(notification: NotificationDto, row: number): void {
    const routes = this.routedFor(notification);
    if (routes.length === 0) return;
    const item: RoutedItem = {
      kind: "notification",
      createdAt: Date.parse(notification.createdAt),
      priority: notification.priority,
    };
    for (const route of routes) {
      if (this.store.isHeld("notification", row, route.id)) continue;
      this.decideNew("notification", row, route, item, route);
    }
  }

  /**
   * Inside the unit of work that opens a question, for one relay route with options (InteractionOutbox). Returns
   * true when the question was written to the outbox now.
   */
  routeQuestion(interaction: InteractionDto, route: OutboundRoute): boolean {
    const subjectSeq = this.outbox.interactionSeq(interaction.id);
    if (subjectSeq === undefined) return false;
    if (this.store.isHeld("interaction", subjectSeq, route.id)) return false;
    const item: RoutedItem = {
      kind: "question",
      createdAt: Date.parse(interaction.created_at),
      priority: this.priorityOfQuestion(interaction),
    };
    const ref = { id: route.id, providerId: route.providerId, includeMessage: true };
    return this.decideNew("interaction", subjectSeq, route, item, ref);
  }

  /** True while a question is held for a route (publish counts it and enqueues nothing). */
  isQuestionHeld(interactionId: string, routeId: string): boolean {
    const subjectSeq = this.outbox.interactionSeq(interactionId);
    return subjectSeq !== undefined && this.store.isHeld("interaction", subjectSeq, routeId);
  }

  private decideNew(
    subject: OutboxSubject,
    subjectSeq: number,
    route: OutboundRoute,
    item: RoutedItem,
    ref: RouteRef,
  ): boolean {
    const context = this.context();
    const decision = decide(item, normalizeRouteOptions(route), context);
    const base = { subject, subjectSeq, route: ref, priority: item.priority, nowMs: context.now };
    if (decision.action === "deliver") {
      const outboxSeq = this.outbox.enqueueItem(subject, subjectSeq, ref, context.now);
      this.store.insert({
        ...base,
        state: "sent",
        dueMs: null,
        reason: decision.reason,
        presence: decision.presence?.state,
        outboxSeq,
      });
      this.unit.afterCommit(() => this.outbound.kick());
      return true;
    }
    if (decision.action === "wait") {
      const due = decision.until === null ? null : Math.max(decision.until, context.now + 1);
      this.store.insert({
        ...base,
        state: "held",
        dueMs: due,
        reason: decision.reason,
        // The presence that kept it, for the timeline: only a route with `when` waits on one.
        presence: route.when === undefined || route.when === "always" ? undefined : context.presence.state,
      });
      if (due !== null) this.unit.afterCommit(() => this.armFor(due));
      this.unit.afterCommit(() => this.warmUp(route.providerId));
    }
    return false;
  }

  /**
   * An item is held for a provider: what its first send loads is loaded now (the relay's seal), so the release a
   * lock or a due time makes is not slowed by it (docs/routing.md, "Releasing what is held").
   */
  private warmUp(providerId: string): void {
    const profile = this.outbound.profile(providerId);
    if (profile) this.outbound.adapterFor(profile.kind)?.warmUp?.();
  }

  /** An item settled: its held rows are void, in the settling transaction (nothing is sent for it later). */
  private settle(subject: OutboxSubject, id: string): void {
    this.store.voidFor(subject, id, "settled", this.clock.now());
  }

  /** Sets the timer for `due` if that is earlier than what it is set for. */
  private armFor(due: number): void {
    if (this.stopped || due >= this.armedFor) return;
    this.setTimer(due);
  }

  /** Sets the timer for the earliest held due time. */
  private arm(): void {
    if (this.stopped) return;
    const next = this.store.nextDue();
    if (next === undefined) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.armedFor = Number.POSITIVE_INFINITY;
      return;
    }
    this.setTimer(next);
  }

  private setTimer(due: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = due;
    const wait = Math.min(Math.max(0, due - this.clock.now()), this.maxSleepMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.armedFor = Number.POSITIVE_INFINITY;
      this.releaseDue();
    }, wait);
    this.timer.unref();
  }

  /** Re-decides the held rows that are due, a batch per unit of work, then sets the timer again. */
  releaseDue(): void {
    if (this.stopped || this.releasing) return;
    this.releasing = true;
    let full = false;
    try {
      this.unit.run(() => {
        const context = this.context();
        const rows = this.store.due(context.now, this.batch);
        full = rows.length === this.batch;
        this.redecide(rows, context);
      });
    } finally {
      this.releasing = false;
    }
    if (full) setImmediate(() => this.releaseDue());
    else this.unit.afterCommit(() => this.arm());
  }

  /** A presence change (or the end of the start grace): every held row is re-decided, a batch per turn. */
  private presenceChanged(): void {
    if (this.stopped) return;
    if (this.graceTimer) {
      clearTimeout(this.graceTimer);
      this.graceTimer = undefined;
    }
    if (this.walk) {
      this.walk.again = true;
      return;
    }
    this.walk = { after: 0, again: false };
    this.walkStep();
  }

  private walkStep(): void {
    const walk = this.walk;
    if (!walk || this.stopped) {
      this.walk = undefined;
      return;
    }
    let rows: HeldRow[] = [];
    this.unit.run(() => {
      rows = this.store.heldAfter(walk.after, this.batch);
      // No context without rows: building one reads the time zone, which loads ICU's data (see timeZone).
      if (rows.length > 0) this.redecide(rows, this.context());
    });
    const last = rows.at(-1);
    if (rows.length === this.batch && last) {
      walk.after = last.seq;
      setImmediate(() => this.walkStep());
      return;
    }
    if (walk.again) {
      this.walk = { after: 0, again: false };
      setImmediate(() => this.walkStep());
      return;
    }
    this.walk = undefined;
    this.unit.afterCommit(() => this.arm());
  }

  /** Inside a unit of work: each held row delivered, moved, or voided. */
  private redecide(rows: readonly HeldRow[], context: ReturnType<AttentionRouter["context"]>): void {
    let delivered = 0;
    for (const row of rows) {
      const route = this.outbound.findRoute(row.routeId);
      const profile = route ? this.outbound.profile(route.providerId) : undefined;
      if (!route?.enabled || !profile?.enabled) {
        this.store.markVoid(row.seq, "route_off", context.now);
        continue;
      }
      if (row.status === null || row.createdAt === null) {
        this.store.markVoid(row.seq, "settled", context.now);
        continue;
      }
      const item: RoutedItem = {
        kind: row.subject === "notification" ? "notification" : "question",
        createdAt: Date.parse(row.createdAt),
        priority: row.priority,
      };
      if (!OPEN_STATUSES.has(row.status)) item.settledAt = 0;
      const decision: RoutingDecision = decide(item, normalizeRouteOptions(route), context);
      if (decision.action === "deliver") {
        const ref = { id: row.routeId, providerId: row.providerId, includeMessage: row.includeMessage };
        const outboxSeq = this.outbox.enqueueItem(row.subject, row.subjectSeq, ref, context.now);
        this.store.markSent(row.seq, outboxSeq, decision.reason, decision.presence?.state, context.now);
        delivered++;
      } else if (decision.action === "wait") {
        const due = decision.until === null ? null : Math.max(decision.until, context.now + 1);
        if (due !== row.dueMs) this.store.reschedule(row.seq, due, decision.reason, context.now);
      } else {
        this.store.markVoid(row.seq, "settled", context.now);
      }
    }
    if (delivered > 0) this.unit.afterCommit(() => this.outbound.kick());
  }
}
