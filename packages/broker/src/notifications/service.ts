import type { DomainBus } from "../domain/bus.js";
import { type Clock, isoTime } from "../domain/clock.js";
import { invalid, notificationNotFound } from "../domain/errors.js";
import { newId } from "../domain/ids.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { NotificationStore } from "../store/notification-store.js";
import type { TypeRegistry } from "./type-ids.js";
import type { NotificationDto, NotificationFilter, NotificationInput, NotificationStatus } from "./types.js";

export interface CreateResult {
  notification: NotificationDto;
  /** False when an active notification with the same key was refreshed in place. */
  created: boolean;
}

/**
 * The folded outbox's part in creating a NEW notification (issue 4): inside the creating unit of work, before the
 * INSERT, `markerFor` answers what to store in the row's `outbound` column (the routes it goes to; null for none),
 * so the notification's own INSERT is the outbox's durable record. The outbox hears of the row through the
 * recorded `notification.created` event (domain/bus.ts).
 */
export interface OutboundMarker {
  markerFor(notification: NotificationDto): string | null;
}

const noMarker: OutboundMarker = { markerFor: () => null };

/** Notifications: creation with dedup, listing, status transitions (docs/api.md, "Notifications"). Knows no HTTP. */
export class NotificationService {
  constructor(
    private readonly store: NotificationStore,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    private readonly bus: DomainBus,
    private types: TypeRegistry,
    private readonly outboundMarker: OutboundMarker = noMarker,
  ) {}

  setTypes(types: TypeRegistry): void {
    this.types = types;
  }

  /** The type definitions in force (the toast presenter styles with them). */
  typeRegistry(): TypeRegistry {
    return this.types;
  }

  /**
   * Creates a notification, or refreshes the active one with the same key in place (same id, new `updatedAt`).
   * Committed before it returns.
   */
  create(input: NotificationInput): CreateResult {
    const now = isoTime(this.clock.now());
    const priority = input.priority ?? this.types.defaultPriority(input.type);
    const result = this.unit.run((): CreateResult => {
      const found = input.key === undefined ? undefined : this.store.activeRowByKey(input.key);
      const existing = found?.notification;
      const base = existing ?? {
        id: newId("ntf"),
        status: "active" as const,
        createdAt: now,
      };
      const notification: NotificationDto = {
        id: base.id,
        agent: input.agent,
        type: input.type,
        priority,
        title: input.title,
        message: input.message,
        status: "active",
        createdAt: base.createdAt,
        updatedAt: now,
      };
      if (input.key !== undefined) notification.key = input.key;
      if (input.agentInstance !== undefined) notification.agentInstance = input.agentInstance;
      if (input.project !== undefined) notification.project = input.project;
      if (input.cwd !== undefined) notification.cwd = input.cwd;
      if (input.pid !== undefined) notification.pid = input.pid;
      if (input.metadata !== undefined) notification.metadata = input.metadata;
      if (found) {
        this.store.updateContent(notification);
        this.bus.record("notification.changed", notification, { cause: "refresh", row: found.seq });
        return { notification, created: false };
      }
      const outbound = this.outboundMarker.markerFor(notification);
      const row = this.store.insert(notification, outbound);
      this.bus.record("notification.created", notification, { row, marked: outbound !== null });
      return { notification, created: true };
    });
    return result;
  }

  get(id: string): NotificationDto {
    const notification = this.store.byId(id);
    if (!notification) throw notificationNotFound();
    return notification;
  }

  list(filter: NotificationFilter): NotificationDto[] {
    return this.store.list(filter);
  }

  countActive(): number {
    return this.store.countActive();
  }

  /** The active notification holding `key`, if any (an ARC condition that is open). */
  activeByKey(key: string): NotificationDto | undefined {
    return this.store.activeByKey(key);
  }

  /** The newest notification with `key`, whatever its status. */
  latestByKey(key: string): NotificationDto | undefined {
    return this.store.latestByKey(key);
  }

  /**
   * docs/api.md, "Notification status transitions (as implemented)": active -> dismissed | resolved; dismissed |
   * resolved -> active (reopen); anything else is an illegal transition (400).
   */
  changeStatus(id: string, next: NotificationStatus): NotificationDto {
    return this.unit.run(() => {
      const current = this.store.byId(id);
      if (!current) throw notificationNotFound();
      const allowed = current.status === "active" ? next !== "active" : next === "active";
      if (!allowed) throw invalid(`cannot change status from ${current.status} to ${next}`);
      if (next === "active" && current.key !== undefined && this.store.activeByKey(current.key)) {
        throw invalid("cannot reopen: another active notification has the same key");
      }
      return this.write(current, next);
    });
  }

  /**
   * Closes a condition for good (an ARC answer or resolution): any status but resolved becomes resolved. Unlike
   * a person's PATCH, a dismissed notification may be resolved by its producer.
   */
  resolve(id: string): NotificationDto {
    return this.unit.run(() => {
      const current = this.store.byId(id);
      if (!current) throw notificationNotFound();
      return current.status === "resolved" ? current : this.write(current, "resolved");
    });
  }

  private write(current: NotificationDto, next: NotificationStatus): NotificationDto {
    const now = isoTime(this.clock.now());
    const resolvedAt = next === "resolved" ? now : null;
    this.store.updateStatus(current.id, next, now, resolvedAt);
    const { resolvedAt: _previous, ...rest } = current;
    const updated: NotificationDto = { ...rest, status: next, updatedAt: now };
    if (resolvedAt !== null) updated.resolvedAt = resolvedAt;
    this.bus.record("notification.changed", updated, { cause: "status" });
    return updated;
  }
}
