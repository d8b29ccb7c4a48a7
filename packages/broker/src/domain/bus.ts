import { EventEmitter } from "node:events";
import type { InteractionDto } from "../interactions/types.js";
import type { NotificationDto } from "../notifications/types.js";

/**
 * The one in-process bus for domain events. Long-poll waiters, the toast presenter, the outbox and the web UI's
 * live stream all listen here; services emit only after the write is committed.
 */
export interface DomainEvents {
  "notification.created": [NotificationDto];
  "notification.changed": [NotificationDto];
  "interaction.created": [InteractionDto];
  /** Any status change of an interaction; terminal ones wake waiters. */
  "interaction.changed": [InteractionDto];
}

export class DomainBus extends EventEmitter<DomainEvents> {
  constructor() {
    super();
    // Many subscribers (one wait registry, presenters, SSE clients) are normal here.
    this.setMaxListeners(0);
  }
}
