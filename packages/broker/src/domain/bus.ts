import { EventEmitter } from "node:events";
import type { InteractionDto } from "../interactions/types.js";
import type { NotificationDto } from "../notifications/types.js";
import type { UnitOfWork } from "./unit-of-work.js";

/**
 * The domain events, as listeners hear them once the write that recorded them is committed: long-poll waiters,
 * the toast presenter, the outbox's dispatcher and the web UI's live stream (docs/architecture.md has the table).
 */
export interface DomainEvents {
  "notification.created": [NotificationDto];
  "notification.changed": [NotificationDto];
  "interaction.created": [InteractionDto];
  /** Any status change of an interaction (or a new deadline); terminal ones wake waiters. */
  "interaction.changed": [InteractionDto];
}

/** What a handler inside the recording unit learns about a new notification: its row, and whether it got a marker. */
export interface NotificationCreated {
  row: number;
  /** True when the row carries an outbound marker (the folded outbox), to be expanded once it commits. */
  marked: boolean;
}

/** Why a notification changed: a dedup refresh of its content (with its row) or a status transition. */
export type NotificationChange = { cause: "refresh"; row: number } | { cause: "status" };

/**
 * The same events as handlers inside the transaction see them, with what the store knows besides the DTO. These
 * handlers write in the recording unit of work, so their writes commit or roll back with the event.
 */
export interface RecordedEvents {
  "notification.created": [NotificationDto, NotificationCreated];
  "notification.changed": [NotificationDto, NotificationChange];
  "interaction.created": [InteractionDto];
  "interaction.changed": [InteractionDto];
}

export type EventName = keyof DomainEvents & keyof RecordedEvents;
type Handler<K extends EventName> = (...args: RecordedEvents[K]) => void;

/**
 * The one in-process bus for domain events. Services `record` an event inside the unit of work that makes the
 * change: handlers subscribed with `onRecorded` run there and then (the outbox enqueues, an answered question
 * closes its condition), and listeners subscribed with `on` hear it only after the commit, never of a write that
 * rolled back.
 */
export class DomainBus extends EventEmitter<DomainEvents> {
  private readonly handlers: { [K in EventName]: Handler<K>[] } = {
    "notification.created": [],
    "notification.changed": [],
    "interaction.created": [],
    "interaction.changed": [],
  };

  constructor(private readonly unit: UnitOfWork) {
    super();
    // Many subscribers (one wait registry, presenters, SSE clients) are normal here.
    this.setMaxListeners(0);
  }

  /** Runs `handler` inside every unit of work that records `name`, in subscription order. */
  onRecorded<K extends EventName>(name: K, handler: Handler<K>): void {
    (this.handlers[name] as Handler<K>[]).push(handler);
  }

  /** Records an event inside the current unit of work: handlers now, listeners after the commit. */
  record<K extends EventName>(name: K, ...args: RecordedEvents[K]): void {
    for (const handler of this.handlers[name] as Handler<K>[]) handler(...args);
    const subject = args[0];
    this.unit.afterCommit(() => (this.emit as (name: K, subject: RecordedEvents[K][0]) => boolean)(name, subject));
  }
}
