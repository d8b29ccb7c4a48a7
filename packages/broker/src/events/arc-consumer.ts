import { createHash } from "node:crypto";
import type {
  ArcEvent,
  RequestCreatedEvent,
  RequestResolvedEvent,
  RequestUpdatedEvent,
  ResponseSubmittedEvent,
} from "@notify/contracts";
import canonicalize from "canonicalize";
import { type Clock, isoTime } from "../domain/clock.js";
import { DomainError, interactionNotFound, invalid, notificationNotFound } from "../domain/errors.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { InteractionService } from "../interactions/service.js";
import type { InteractionDto, RespondInput } from "../interactions/types.js";
import { SOURCE_PATTERN } from "../interactions/validate.js";
import type { NotificationService } from "../notifications/service.js";
import type { NotificationDto } from "../notifications/types.js";
import type { ArcEventStore } from "../store/arc-event-store.js";
import type { ContextStore } from "../store/context-store.js";
import { toInteractionInput, toNotificationInput } from "./projection.js";

export interface ArcResult {
  status: 200 | 201;
  notification: NotificationDto | null;
  interaction: InteractionDto | null;
}

/** Status a question takes when its condition is resolved or its request no longer asks it (docs/arc.md). */
const WITHDRAWN_ON_RESOLVE = "cancelled" as const;

/**
 * The ARC 0.2 consumer (docs/arc.md): validates an event, applies the condition lifecycle, and records the event's
 * identity so a retry replays. Everything an event changes is written in one transaction; knows no HTTP.
 */
export class ArcConsumer {
  constructor(
    private readonly events: ArcEventStore,
    private readonly notifications: NotificationService,
    private readonly interactions: InteractionService,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    private readonly contexts?: ContextStore,
  ) {}

  private contracts: typeof import("@notify/contracts") | undefined;

  /**
   * Loads the ARC validator (zod and the schemas) on the first event rather than at start: a broker that never
   * receives an event never holds them in memory.
   */
  async ready(): Promise<void> {
    this.contracts ??= await import("@notify/contracts");
  }

  accept(body: unknown): ArcResult {
    if (body !== null && typeof body === "object" && !Array.isArray(body)) {
      const version = (body as Record<string, unknown>).arc_version;
      if (version !== undefined && version !== "0.2") {
        throw invalid(`$.arc_version: unsupported ARC version ${JSON.stringify(version)}; this consumer speaks 0.2`);
      }
    }
    const contracts = this.contracts;
    if (!contracts) throw new Error("ArcConsumer.ready() was not awaited");
    const validation = contracts.validateArcEvent(body);
    if (!validation.ok) throw invalid(contracts.formatProblems(validation.problems));
    const event = validation.value;
    const fingerprint = fingerprintOf(event);

    return this.unit.run((): ArcResult => {
      const prior = this.events.find(event.sender.id, event.event_id);
      if (prior) {
        if (prior.fingerprint !== fingerprint) {
          throw new DomainError("event_conflict", "event_id was already used by this sender for a different event");
        }
        return this.replay(prior.notification_id, prior.interaction_id);
      }
      const result = this.apply(event);
      this.events.insert({
        sender_id: event.sender.id,
        event_id: event.event_id,
        event_type: event.event_type,
        fingerprint,
        notification_id: result.notification?.id ?? null,
        interaction_id: result.interaction?.id ?? null,
        created_at: isoTime(this.clock.now()),
      });
      return result;
    });
  }

  private apply(event: ArcEvent): ArcResult {
    switch (event.event_type) {
      case "request.created":
        return this.createOrRefresh(event);
      case "request.updated":
        if (!this.notifications.activeByKey(event.request.key)) throw notificationNotFound();
        return { ...this.createOrRefresh(event), status: 200 };
      case "response.submitted":
        return this.submit(event);
      case "request.resolved":
        return this.resolve(event);
      default: {
        const _exhaustive: never = event;
        throw invalid(`unsupported event_type ${String(_exhaustive)}`);
      }
    }
  }

  /** created (new condition or in-place refresh of the active one) and updated (in place only). */
  private createOrRefresh(event: RequestCreatedEvent | RequestUpdatedEvent): ArcResult {
    const nowMs = this.clock.now();
    const spec = event.request.response;
    // The question is checked before anything is written (docs/arc.md, "Questions": rejected before anything is
    // stored).
    const question = spec ? toInteractionInput(event, spec, nowMs) : undefined;
    const { notification, created } = this.notifications.create(toNotificationInput(event));
    const key = event.request.key;
    let interaction: InteractionDto | null = null;
    if (question) {
      question.notification_id = notification.id;
      if (key !== undefined) {
        // A question under the key that belongs to another condition (a dismissed one, or a native interaction)
        // is not this condition's to keep: reusing it would leave this notification open when it is answered.
        const open = this.interactions.latestByKey(key);
        if (open?.status === "pending" && this.interactions.notificationIdOf(open.id) !== notification.id) {
          this.interactions.withdraw(open.id, "superseded");
        } else if (open?.status === "pending" && this.showsOtherContext(event, open.id)) {
          // What is seen is what is approved (docs/api.md, "Item context"): the same question with another context
          // (the file changed again) is a new question, with a new id and nonce; an answer to the old one is refused.
          this.interactions.withdraw(open.id, "superseded");
        }
      }
      // Same key and digest keeps the open question; a changed question supersedes it (interactions.request).
      interaction = this.interactions.request(question).interaction;
      this.bindContext(event, interaction.id);
    } else if (key !== undefined) {
      // An update that no longer asks anything withdraws the open question: what is asked changed.
      const open = this.interactions.latestByKey(key);
      if (open?.status === "pending") this.interactions.withdraw(open.id, "superseded");
    }
    return { status: created ? 201 : 200, notification, interaction };
  }

  /** The event names a context other than the one the open question `interactionId` shows (or it shows none). */
  private showsOtherContext(event: RequestCreatedEvent | RequestUpdatedEvent, interactionId: string): boolean {
    const named = event.extensions?.["x-notify-context"];
    if (named === undefined || this.contexts === undefined) return false;
    const next = this.contexts.bodyOf(named.id);
    return next !== undefined && next !== this.contexts.bodyForInteraction(interactionId);
  }

  /**
   * The context the event names (`x-notify-context`, docs/api.md "Item context") becomes the question's, in this
   * transaction: a question is never published without the context its asker posted. An unknown or already used
   * id refuses the whole event (400), so nothing is stored.
   */
  private bindContext(event: RequestCreatedEvent | RequestUpdatedEvent, interactionId: string): void {
    const named = event.extensions?.["x-notify-context"];
    if (named === undefined) return;
    if (this.contexts === undefined || !this.contexts.bind(named.id, interactionId)) {
      throw invalid("$.extensions.x-notify-context.id: no such context (post it to /v1/contexts first)");
    }
  }

  /** response.submitted: the same acceptance path and ordered checks as POST /v1/interactions/{id}/respond. */
  private submit(event: ResponseSubmittedEvent): ArcResult {
    const condition = this.interactions.latestByKey(event.request.key);
    if (!condition) throw interactionNotFound();
    const response = event.response;
    const answer: RespondInput = {
      response_id: response.response_id,
      request_digest: response.digest,
      // A consumer that issued a nonce requires it back (docs/arc.md, "Answers (`response.submitted`)", check 5); an
      // absent one fails that rule.
      nonce: response.nonce ?? "",
      source: response.source ?? (SOURCE_PATTERN.test(event.sender.id) ? event.sender.id : "arc"),
    };
    if ("choice_id" in response) answer.choice_id = response.choice_id;
    if ("text" in response) answer.text = response.text;
    if (response.device_id !== undefined) answer.device_id = response.device_id;
    const interaction = this.interactions.answer(condition.id, answer);
    return { status: 200, notification: this.notificationOf(interaction), interaction };
  }

  /** request.resolved: resolves the latest condition under the key and withdraws its open question. */
  private resolve(event: RequestResolvedEvent): ArcResult {
    const key = event.request.key;
    const latest = this.notifications.latestByKey(key);
    if (!latest) throw notificationNotFound();
    const notification = this.notifications.resolve(latest.id);
    const question = this.interactions.latestByKey(key);
    let interaction: InteractionDto | null = null;
    // Any open question under the key is withdrawn (docs/arc.md, "Resolution") and reported; a closed one only when it
    // is this condition's own, not a question of an earlier lifecycle under the same key.
    if (question?.status === "pending") interaction = this.interactions.withdraw(question.id, WITHDRAWN_ON_RESOLVE);
    else if (question && this.interactions.notificationIdOf(question.id) === latest.id) interaction = question;
    return { status: 200, notification, interaction };
  }

  private notificationOf(interaction: InteractionDto): NotificationDto | null {
    const id = this.interactions.notificationIdOf(interaction.id);
    if (id !== undefined) return this.notifications.get(id);
    return interaction.key === undefined ? null : (this.notifications.latestByKey(interaction.key) ?? null);
  }

  /** A retry of an accepted event: the same records, as they are now, with 200. */
  private replay(notificationId: string | null, interactionId: string | null): ArcResult {
    return {
      status: 200,
      notification: notificationId === null ? null : this.notifications.get(notificationId),
      interaction: interactionId === null ? null : this.interactions.get(interactionId),
    };
  }
}

/** What makes two events "the same event": everything but `occurred_at`, canonicalized (RFC 8785). */
function fingerprintOf(event: ArcEvent): string {
  const { occurred_at: _occurredAt, ...rest } = event;
  return createHash("sha256")
    .update(canonicalize(rest) ?? "")
    .digest("hex");
}
