import { type AttentionRouter, hasRoutingOptions } from "../attention/attention-router.js";
import type { DomainBus } from "../domain/bus.js";
import type { Clock } from "../domain/clock.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import { type InteractionDto, isTerminal } from "../interactions/types.js";
import type { NotificationDto, Priority } from "../notifications/types.js";
import type { OutboxStore } from "../store/outbox-store.js";
import { routeMatches } from "./matching.js";
import type { OutboundService } from "./outbound-service.js";
import type { OutboundRoute } from "./types.js";

/** What a route's gates read from a question: its notification's, or the defaults below for a native question. */
export type Routable = Pick<NotificationDto, "type" | "priority" | "agent" | "project">;

/**
 * The gates of a question (docs/outbound.md, "Delivery rules", rule 8). A question opened for a notification (ARC)
 * passes the gates as that notification; a native question is `permission_required` (permission) or `input_required`
 * (choice, text), priority `high`, as ARC maps its question kinds (docs/arc.md, "Kind to type and priority").
 */
export function routableOf(interaction: InteractionDto, notification: NotificationDto | undefined): Routable {
  if (notification) return notification;
  const routable: Routable = {
    type: interaction.kind === "permission" ? "permission_required" : "input_required",
    priority: "high" satisfies Priority,
    agent: interaction.agent,
  };
  if (interaction.project !== undefined) routable.project = interaction.project;
  return routable;
}

/**
 * Interactions in the outbox: a question is enqueued once per relay provider whose route matches it with
 * IncludeMessage on, in the transaction that opens it (no network I/O inline), and republished idempotently.
 * Which kinds carry questions is the adapters' business (`sendInteraction`); this class knows them by that.
 */
export class InteractionOutbox {
  constructor(
    private readonly outbound: OutboundService,
    private readonly outbox: OutboxStore,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    private readonly notificationOf: (interaction: InteractionDto) => NotificationDto | undefined,
    /** How a dead letter is put back to Pending (the dispatcher's retry, which also moves its cursor back). */
    private readonly retryItem: (id: string) => void,
    /** Routes with routing options decide through attention routing (attention.ts); absent: every route at once. */
    private readonly attention?: AttentionRouter,
  ) {}

  /** True when `route` delivers through the policy rather than at once. */
  private routed(route: OutboundRoute): boolean {
    return this.attention !== undefined && hasRoutingOptions(route);
  }

  /**
   * Subscribes to the questions' recorded events (broker.ts calls this once): a new question is enqueued for
   * the relay providers it matches, and one that settles (answered, cancelled, expired, superseded) gets a
   * "closed" notice to every provider that was given it, both in the unit of work that records the event.
   */
  subscribe(bus: DomainBus): void {
    bus.onRecorded("interaction.created", (interaction) => this.enqueueNew(interaction));
    bus.onRecorded("interaction.changed", (interaction) => {
      if (isTerminal(interaction.status)) this.enqueueClosed(interaction);
    });
  }

  /** Enabled routes of enabled providers whose kind carries questions, with IncludeMessage on. */
  private questionRoutes(): OutboundRoute[] {
    return this.outbound.listRoutes().filter((route) => {
      const profile = this.outbound.profile(route.providerId);
      if (!route.enabled || !route.includeMessage || !profile?.enabled) return false;
      return this.outbound.adapterFor(profile.kind)?.sendInteraction !== undefined;
    });
  }

  /** True while at least one enabled relay route exists (publish answers 400 otherwise). */
  configured(): boolean {
    return this.questionRoutes().length > 0;
  }

  /** The first matching route of each provider: one envelope per question and provider, whatever the routes. */
  private matching(interaction: InteractionDto): OutboundRoute[] {
    const routable = routableOf(interaction, this.notificationOf(interaction));
    const byProvider = new Map<string, OutboundRoute>();
    for (const route of this.questionRoutes()) {
      if (byProvider.has(route.providerId)) continue;
      if (routeMatches(route, this.outbound.profile(route.providerId), routable))
        byProvider.set(route.providerId, route);
    }
    return [...byProvider.values()];
  }

  /** Inside the transaction that opens a question: one Pending item per matching relay provider. */
  enqueueNew(interaction: InteractionDto): number {
    const routes = this.matching(interaction);
    const nowMs = this.clock.now();
    let now = 0;
    for (const route of routes) {
      if (this.routed(route)) {
        // Held (or written now) by the policy: the question reaches this provider only once the route says so.
        this.attention?.routeQuestion(interaction, route);
        continue;
      }
      this.outbox.enqueueInteraction(interaction.id, route, nowMs);
      now++;
    }
    if (now > 0) this.unit.afterCommit(() => this.outbound.kick());
    return routes.length;
  }

  /**
   * Inside the transaction that answers, cancels, expires or supersedes a question (beyond v1): every relay provider that was given the question
   * gets one more item, which the adapter sends as a "closed" notice since the question is no longer pending.
   */
  enqueueClosed(interaction: InteractionDto): number {
    const providers = new Map<string, { id: string; providerId: string; includeMessage: boolean }>();
    for (const item of this.outbox.itemsForInteraction(interaction.id)) {
      if (item.status === "DeadLetter" || providers.has(item.providerId)) continue;
      const route = this.questionRoutes().find((candidate) => candidate.providerId === item.providerId);
      if (route) providers.set(item.providerId, { id: route.id, providerId: route.providerId, includeMessage: true });
    }
    const nowMs = this.clock.now();
    for (const route of providers.values()) this.outbox.enqueueInteraction(interaction.id, route, nowMs);
    if (providers.size > 0) this.unit.afterCommit(() => this.outbound.kick());
    return providers.size;
  }

  /**
   * Republishes a pending question: idempotent per interaction and provider. A provider that already has an item
   * for it (pending, retrying or delivered) counts and gets nothing new; a dead letter is put back to Pending
   * with a fresh budget; a provider without one gets one. Returns how many providers carry it.
   */
  publish(interaction: InteractionDto): number {
    if (interaction.status !== "pending") return 0;
    const dead: number[] = [];
    const count = this.unit.run(() => {
      const existing = this.outbox.itemsForInteraction(interaction.id);
      const nowMs = this.clock.now();
      const routes = this.matching(interaction);
      for (const route of routes) {
        const items = existing.filter((item) => item.providerId === route.providerId);
        if (items.some((item) => item.status !== "DeadLetter")) continue;
        const last = items.at(-1);
        if (last) dead.push(last.seq);
        else if (!this.routed(route)) this.outbox.enqueueInteraction(interaction.id, route, nowMs);
        else if (!this.attention?.isQuestionHeld(interaction.id, route.id)) {
          this.attention?.routeQuestion(interaction, route);
        }
      }
      if (routes.length > 0) this.unit.afterCommit(() => this.outbound.kick());
      return routes.length;
    });
    for (const seq of dead) this.retryItem(this.outbox.idOf(seq));
    return count;
  }
}
