import { requestDigest } from "@notify/contracts/digest";
import { isFollowUp } from "@notify/contracts/enums";
import { secretMatches } from "@notify/contracts/guards";
import { MAX_TIMER_MS } from "@notify/contracts/retry";
import { replySurface } from "@notify/contracts/ui-timeline-words";
import type { DomainBus } from "../domain/bus.js";
import { type Clock, isoTime } from "../domain/clock.js";
import { alreadyAnswered, interactionNotFound, invalid } from "../domain/errors.js";
import { newId, newNonce } from "../domain/ids.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { InteractionStore } from "../store/interaction-store.js";
import { characterCount } from "../validation/fields.js";
import type {
  AnsweredVia,
  InteractionDto,
  InteractionFilter,
  InteractionInput,
  InteractionResponse,
  RespondInput,
  UiFacts,
} from "./types.js";
import { parseRespond } from "./validate.js";

/** Where `publish` sends questions. Until a relay route exists (relay issue) nothing is configured. */
export interface RelayPublisher {
  /** True when at least one enabled relay route exists. */
  configured(): boolean;
  /** Publishes through every matching relay route; returns how many took it. Idempotent per route. */
  publish(interaction: InteractionDto): number;
}

export const noRelay: RelayPublisher = { configured: () => false, publish: () => 0 };

export interface RequestResult {
  interaction: InteractionDto;
  /** False when a pending interaction with the same key and digest was reused (200). */
  created: boolean;
}

/**
 * Runs inside the unit of work that opens a question not opened for a notification (the native request), before
 * its row is written: returns the id of the notification to link it to, so the question has a notification half
 * like an ARC request (interactions/native-notification.ts).
 */
export type NotificationLink = (interaction: InteractionDto) => string | undefined;

export interface InteractionLinks {
  /** Where `publish` sends questions (the outbox's InteractionOutbox). */
  relay?: RelayPublisher;
  /** The notification half of a native question. */
  notificationFor?: NotificationLink;
  /**
   * Checks an answer against what the question is bound to beyond its kind (an MCP form field: docs/hooks.md, "MCP
   * elicitation"): a message refuses it (400, on every surface), undefined lets it through.
   */
  answerCheck?: AnswerCheck;
}

export type AnswerCheck = (
  interaction: InteractionDto,
  answer: { choice_id?: string; text?: string },
) => string | undefined;

/**
 * Durable questions (docs/api.md, "Interactions"). Knows no HTTP. Every change is recorded on the bus inside its
 * unit of work (`interaction.created`, `interaction.changed`): what a change triggers subscribes there.
 */
export class InteractionService {
  private expiryTimer: NodeJS.Timeout | undefined;
  private expiryAt: number | undefined;
  private readonly relay: RelayPublisher;
  private readonly notificationFor: NotificationLink | undefined;
  private readonly answerCheck: AnswerCheck | undefined;

  constructor(
    private readonly store: InteractionStore,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    private readonly bus: DomainBus,
    links: InteractionLinks = {},
  ) {
    this.relay = links.relay ?? noRelay;
    this.notificationFor = links.notificationFor;
    this.answerCheck = links.answerCheck;
  }

  /**
   * Opens a question. A pending interaction with the same key and an unchanged request (same digest) is returned
   * as it is; a changed one is superseded and a new interaction created, in one transaction.
   */
  request(input: InteractionInput): RequestResult {
    const nowMs = this.clock.now();
    const now = isoTime(nowMs);
    const digest = requestDigest(input);
    return this.unit.run((): RequestResult => {
      this.sweep();
      if (input.key !== undefined) {
        const existing = this.store.pendingByKey(input.key);
        if (existing && existing.request_digest === digest) {
          // An ARC update that moves only the deadline keeps the question and takes the new expiry (docs/arc.md).
          const newExpiry = input.expires_at_ms;
          if (newExpiry !== undefined && isoTime(newExpiry) !== existing.expires_at) {
            this.store.extend(existing.id, newExpiry, isoTime(newExpiry), now);
            this.noteExpiry(newExpiry);
            // A deadline moved earlier re-arms the timer, so its waiters wake at the new expiry without a read.
            this.unit.afterCommit(() => this.scheduleExpiry(newExpiry));
            const extended: InteractionDto = { ...existing, expires_at: isoTime(newExpiry), updated_at: now };
            this.bus.record("interaction.changed", extended);
            return { interaction: extended, created: false };
          }
          return { interaction: existing, created: false };
        }
        if (existing) this.settleWithout(existing, "superseded", now);
      }
      const expiresMs = input.expires_at_ms ?? nowMs + input.ttl_seconds * 1000;
      const interaction: InteractionDto = {
        id: newId("int"),
        agent: input.agent,
        kind: input.kind,
        prompt: input.prompt,
        choices: input.choices,
        text_max_length: input.text_max_length,
        status: "pending",
        request_digest: digest,
        nonce: newNonce(),
        created_at: now,
        updated_at: now,
        expires_at: isoTime(expiresMs),
      };
      if (input.key !== undefined) interaction.key = input.key;
      if (input.agent_instance !== undefined) interaction.agent_instance = input.agent_instance;
      if (input.project !== undefined) interaction.project = input.project;
      if (input.session_id !== undefined) interaction.session_id = input.session_id;
      if (input.turn_id !== undefined) interaction.turn_id = input.turn_id;
      if (input.native_request_id !== undefined) interaction.native_request_id = input.native_request_id;
      const notificationId = input.notification_id ?? this.notificationFor?.(interaction);
      this.store.insert(interaction, expiresMs, notificationId ?? null);
      this.bus.record("interaction.created", interaction);
      this.noteExpiry(expiresMs);
      this.unit.afterCommit(() => this.scheduleExpiry(expiresMs));
      return { interaction, created: true };
    });
  }

  private expireOverdue(nowMs: number): InteractionDto[] {
    // One unit: an expired native question's notification resolves with it (recorded handlers).
    return this.unit.run(() => {
      const expired = this.store.expireOverdue(nowMs, isoTime(nowMs));
      for (const interaction of expired) this.bus.record("interaction.changed", interaction);
      return expired;
    });
  }

  /**
   * Sweeps every overdue pending interaction to `expired` and wakes its waiters. Reads call this on every access,
   * so it writes only when the earliest pending expiry (kept in memory) has passed.
   */
  sweep(): InteractionDto[] {
    const nowMs = this.clock.now();
    if (this.earliestExpiry === undefined || this.earliestExpiry > nowMs) return [];
    const expired = this.expireOverdue(nowMs);
    // Only a committed sweep may lower the flag: a sweep inside a unit that rolls back (a refused answer) is
    // undone, and the next read must sweep again.
    this.unit.afterCommit(() => {
      this.earliestExpiry = this.store.nextExpiry();
    });
    return expired;
  }

  /** The earliest expiry of any pending interaction, or undefined when none is pending (or not known yet). */
  private earliestExpiry: number | undefined = 0;

  private noteExpiry(atMs: number): void {
    if (this.earliestExpiry === undefined || atMs < this.earliestExpiry) this.earliestExpiry = atMs;
  }

  /** A read sweeps an overdue pending interaction to `expired` first. */
  get(id: string): InteractionDto {
    this.sweep();
    const interaction = this.store.byId(id);
    if (!interaction) throw interactionNotFound();
    return interaction;
  }

  find(id: string): InteractionDto | undefined {
    return this.store.byId(id);
  }

  /** The newest interaction under `key`, whatever its status (after a sweep). */
  latestByKey(key: string): InteractionDto | undefined {
    this.sweep();
    return this.store.latestByKey(key);
  }

  list(filter: InteractionFilter): InteractionDto[] {
    this.sweep();
    return this.store.list(filter);
  }

  /**
   * Submits an answer from the HTTP API. The checks run in this order
   * (docs/api.md, "POST /v1/interactions/{id}/respond"): 1 unknown id 404; 2 already answered: the same response_id
   * replays the acceptance (200), anything else 409; 3 not open 400; 4 digest 400; 5 nonce (constant time) 400; 6
   * answer shape 400. The body's structure is checked after rule 2, so a replay or a conflicting second answer is
   * recognised whatever else it carries.
   */
  respond(id: string, body: unknown, via?: AnsweredVia): InteractionDto {
    const current = this.get(id);
    if (current.status === "answered") return this.replayOrConflict(current, responseIdOf(body));
    const answer = parseRespond(body);
    if (via !== undefined) answer.via = via;
    return this.answer(id, answer);
  }

  /** The ordered checks for an answer whose structure is already valid (HTTP respond and ARC response.submitted). */
  answer(id: string, answer: RespondInput): InteractionDto {
    return this.unit.run(() => {
      const current = this.get(id);
      if (current.status === "answered") return this.replayOrConflict(current, answer.response_id);
      if (current.status !== "pending") throw invalid(`interaction is ${current.status}`);
      if (answer.request_digest !== current.request_digest) {
        throw invalid("request_digest does not match the current request");
      }
      if (!secretMatches(answer.nonce, current.nonce)) throw invalid("nonce does not match");
      checkShape(current, answer);
      const refused = this.answerCheck?.(current, answer);
      if (refused !== undefined) throw invalid(refused);

      const now = isoTime(this.clock.now());
      // A follow-up's reply names the surface it came from (docs/hooks.md, "Follow-ups"): `phone` for the relay,
      // `web` for the page, `toast` for a toast's inline reply; any other question keeps the API's source.
      const source = isFollowUp(current) ? replySurface(answer.source, answer.via) : answer.source;
      const response: InteractionResponse = { response_id: answer.response_id, source, created_at: now };
      if (answer.choice_id !== undefined) response.choice_id = answer.choice_id;
      if (answer.text !== undefined) response.text = answer.text;
      if (answer.device_id !== undefined) response.device_id = answer.device_id;
      if (!this.store.settle(current.id, "answered", now, response, answer.via)) {
        // Another answer won between the read and the write: report it as that answer would be reported.
        const winner = this.get(id);
        if (winner.status === "answered") return this.replayOrConflict(winner, answer.response_id);
        throw invalid(`interaction is ${winner.status}`);
      }
      const answered: InteractionDto = { ...current, status: "answered", updated_at: now, answered_at: now, response };
      this.bus.record("interaction.changed", answered);
      return answered;
    });
  }

  private replayOrConflict(current: InteractionDto, responseId: string | undefined): InteractionDto {
    if (responseId !== undefined && responseId === current.response?.response_id) return current;
    throw alreadyAnswered();
  }

  /** The notification an interaction belongs to, when it was opened for one (ARC). */
  notificationIdOf(id: string): string | undefined {
    return this.store.notificationIdOf(id);
  }

  /** What the web page shows beyond the DTO: the question's notification, and whether it was answered there. */
  uiFacts(id: string): UiFacts {
    return this.store.uiFacts(id);
  }

  /** Cancels a pending interaction; idempotent on terminal states (returns the current object). */
  cancel(id: string): InteractionDto {
    return this.withdraw(id, "cancelled");
  }

  /** Closes a pending interaction without an answer (cancel, or an ARC update or resolution withdrawing it). */
  withdraw(id: string, status: "cancelled" | "superseded"): InteractionDto {
    return this.unit.run(() => {
      const current = this.get(id);
      if (current.status !== "pending") return current;
      return this.settleWithout(current, status, isoTime(this.clock.now()));
    });
  }

  private settleWithout(current: InteractionDto, status: "cancelled" | "superseded", now: string): InteractionDto {
    this.store.settle(current.id, status, now);
    const settled: InteractionDto = { ...current, status, updated_at: now };
    this.bus.record("interaction.changed", settled);
    return settled;
  }

  /** Republishes to relay routes: 404 unknown id, 400 while no relay route is configured. */
  publish(id: string): { id: string; published: number } {
    const current = this.get(id);
    if (!this.relay.configured()) throw invalid("relay publishing is not configured");
    return { id: current.id, published: this.relay.publish(current) };
  }

  /** Keeps one timer armed for the earliest pending expiry, so waiters wake at expiry without a read. */
  private scheduleExpiry(atMs: number): void {
    if (this.expiryAt !== undefined && this.expiryAt <= atMs) return;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryAt = atMs;
    // setTimeout holds at most ~24.8 days; longer expiries are re-armed when the timer fires.
    const delay = Math.min(Math.max(0, atMs - this.clock.now()) + 5, MAX_TIMER_MS);
    this.expiryTimer = setTimeout(() => this.onExpiryTimer(), delay);
    this.expiryTimer.unref();
  }

  private onExpiryTimer(): void {
    this.expiryTimer = undefined;
    this.expiryAt = undefined;
    try {
      this.sweep();
      const next = this.store.nextExpiry();
      if (next !== undefined) this.scheduleExpiry(next);
    } catch {
      // The database is closed during shutdown; the next start sweeps on read.
    }
  }

  /** Called at start (a restart must still wake future waiters) and at shutdown. */
  start(): void {
    this.sweep();
    const next = this.store.nextExpiry();
    if (next !== undefined) this.scheduleExpiry(next);
  }

  stop(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.expiryAt = undefined;
  }
}

function responseIdOf(body: unknown): string | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const value = (body as Record<string, unknown>).response_id;
  return typeof value === "string" ? value : undefined;
}

function checkShape(interaction: InteractionDto, answer: RespondInput): void {
  const hasChoice = answer.choice_id !== undefined;
  const hasText = answer.text !== undefined;
  if (hasChoice === hasText) throw invalid("exactly one of choice_id and text is required");
  if (interaction.kind === "text") {
    if (!hasText) throw invalid("a text interaction takes text, not choice_id");
    const length = characterCount(answer.text as string);
    if (length < 1 || length > interaction.text_max_length) {
      throw invalid(`text must be 1-${interaction.text_max_length} characters`);
    }
    return;
  }
  if (!hasChoice) throw invalid(`a ${interaction.kind} interaction takes choice_id, not text`);
  if (!interaction.choices.some((choice) => choice.id === answer.choice_id)) throw invalid("unknown choice_id");
}
