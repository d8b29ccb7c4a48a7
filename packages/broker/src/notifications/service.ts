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
 * Hooks run inside the creating transaction, after the row is written (a dedup refresh enqueues its outbox items
 * here, issue 4). `row` is the notification's row in the store (its seq), which the outbox references.
 */
export type CreateHook = (notification: NotificationDto, created: boolean, row: number) => void;

/**
 * The folded outbox's part in creating a NEW notification (issue 4): inside the creating transaction, before the
 * INSERT, `markerFor` answers what to store in the row's `outbound` column (the routes it goes to; null for none),
 * so the notification's own INSERT is the outbox's durable record; `marked` is then told the row that carries it.
 */
export interface OutboundMarker {
  markerFor(notification: NotificationDto): string | null;
  marked(row: number): void;
}

/** Notifications: creation with dedup, listing, status transitions (spec 1). Knows no HTTP. */
export class NotificationService {
  private readonly createHooks: CreateHook[] = [];
  private outboundMarker: OutboundMarker | undefined;

  constructor(
    private readonly store: NotificationStore,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    private readonly bus: DomainBus,
    private types: TypeRegistry,
  ) {}

  setTypes(types: TypeRegistry): void {
    this.types = types;
  }

  /** The type definitions in force (the toast presenter styles with them). */
  typeRegistry(): TypeRegistry {
    return this.types;
  }

  onCreateInTransaction(hook: CreateHook): void {
    this.createHooks.push(hook);
  }

  setOutboundMarker(marker: OutboundMarker): void {
    this.outboundMarker = marker;
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
      let row: number;
      if (found) {
        this.store.updateContent(notification);
        row = found.seq;
      } else {
        const outbound = this.outboundMarker?.markerFor(notification) ?? null;
        row = this.store.insert(notification, outbound);
        if (outbound !== null) this.outboundMarker?.marked(row);
      }
      for (const hook of this.createHooks) hook(notification, existing === undefined, row);
      const created = existing === undefined;
      this.unit.afterCommit(() =>
        this.bus.emit(created ? "notification.created" : "notification.changed", notification),
      );
      return { notification, created };
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
   * Spec 1, "Notification status": active -> dismissed | resolved; dismissed | resolved -> active (reopen);
   * anything else is an illegal transition (400).
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
    this.unit.afterCommit(() => this.bus.emit("notification.changed", updated));
    return updated;
  }
}
