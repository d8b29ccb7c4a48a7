import type { PresentationSettings } from "../config/presentation-settings.js";
import type { Clock } from "../domain/clock.js";
import type { InteractionDto } from "../interactions/types.js";
import { TypeRegistry } from "../notifications/type-ids.js";
import type { NotificationDto, Priority } from "../notifications/types.js";
import { soundOf, soundPlays } from "./sound-rule.js";
import { notificationToast, questionToast, type Toast, withQuestion } from "./toast.js";

/** What the presenter must do; the policy itself does no I/O. */
export type Effect =
  | { kind: "show"; toast: Toast }
  /** A visible toast's content changed (a dedup refresh, a question attached): re-sent in place. */
  | { kind: "update"; toast: Toast }
  | { kind: "close"; key: string }
  | { kind: "sound"; sound: string; priority: Priority; key: string };

/** Why a toast went away on the desktop side (freedesktop NotificationClosed reasons 1-4, named). */
export type CloseReason = "expired" | "dismissed" | "closed" | "undefined";

/** Beyond this many waiting toasts the oldest are dropped (a bus that never comes back must not grow memory). */
export const MAX_QUEUED_TOASTS = 10_000;

interface Visible {
  toast: Toast;
  /** Clock time when the policy closes it itself (lifetimeMs > 0), so a server ignoring timeouts frees slots too. */
  expiresAt: number | undefined;
}

/**
 * docs/desktop.md, "Local presentation rules", rules 1-7, as a state machine over the domain events and the settings.
 * Every input records effects; `drain()` hands them over. Time comes from the injected clock only.
 */
export class ToastPolicy {
  private readonly visible = new Map<string, Visible>();
  /** Waiting toasts in arrival order (a Map keeps insertion order and deletes in O(1)). */
  private readonly queue = new Map<string, Toast>();
  private effects: Effect[] = [];
  /** Whether a desktop service is there to show toasts (the bus may come later or go away). */
  private available = false;
  private droppedFromQueue = 0;

  constructor(
    private settings: PresentationSettings,
    private readonly clock: Clock,
    private types: TypeRegistry = new TypeRegistry(),
    private typeSounds: Readonly<Record<string, string>> = {},
  ) {}

  // ---- domain events ----

  notificationCreated(notification: NotificationDto, question?: InteractionDto): void {
    // Rule 1: paused means no toast and no sound; the notification is stored by its service regardless.
    if (this.settings.pauseNotifications) return;
    let toast = notificationToast(notification, this.types);
    if (question) toast = withQuestion(toast, question);
    this.soundFor(toast);
    this.enqueue(toast);
  }

  notificationChanged(notification: NotificationDto): void {
    const key = `n:${notification.id}`;
    // Rule 3: dismissed or resolved closes the toast (and a waiting one never shows).
    if (notification.status !== "active") {
      this.remove(key);
      return;
    }
    const current = this.visible.get(key)?.toast ?? this.queue.get(key);
    if (!current) return;
    const refreshed = { ...notificationToast(notification, this.types), ...pickQuestion(current) };
    this.replace(refreshed);
  }

  /**
   * A question was opened; `notificationId` is the notification it belongs to (ARC), if any; `summary` the one line
   * of what it asks about, if it carries a context.
   */
  interactionOpened(interaction: InteractionDto, notificationId?: string, summary?: string): void {
    if (interaction.status !== "pending") return;
    if (notificationId !== undefined) {
      const key = `n:${notificationId}`;
      const current = this.visible.get(key)?.toast ?? this.queue.get(key);
      if (current) this.replace(withQuestion(current, interaction, summary));
      return;
    }
    if (this.settings.pauseNotifications) return;
    const toast = questionToast(interaction, this.types, summary);
    this.soundFor(toast);
    this.enqueue(toast);
  }

  /** A question shown only as part of another's toast (an MCP form's field): its notification's toast goes too. */
  interactionWithoutToast(interaction: InteractionDto, notificationId?: string): void {
    if (notificationId !== undefined) this.remove(`n:${notificationId}`);
    this.remove(`q:${interaction.id}`);
  }

  /** A question's status changed: once it settles its toast closes (and a notification's toast loses its buttons). */
  interactionChanged(interaction: InteractionDto): void {
    if (interaction.status === "pending") return;
    this.remove(`q:${interaction.id}`);
    for (const toast of [...this.queue.values(), ...[...this.visible.values()].map((entry) => entry.toast)]) {
      if (toast.interactionId === interaction.id) this.remove(toast.key);
    }
  }

  // ---- desktop side ----

  /** The desktop closed a toast (expired, dismissed by the person, or closed on request): its slot is free. */
  closedOnDesktop(key: string, _reason: CloseReason): void {
    if (!this.visible.delete(key)) return;
    this.fill();
  }

  /**
   * The desktop service came or went. Gone: whatever was visible went with it, so it goes back to the head of the
   * queue in its order and is shown again when the service is back (none lost).
   */
  setAvailable(available: boolean): void {
    if (available === this.available) return;
    this.available = available;
    if (!available) {
      const back = [...this.visible.values()].map((entry) => entry.toast);
      this.visible.clear();
      const rest = [...this.queue.values()];
      this.queue.clear();
      for (const toast of [...back, ...rest]) this.queue.set(toast.key, toast);
      return;
    }
    this.fill();
  }

  // ---- time ----

  /** When the next visible toast's lifetime ends (the presenter sets one timer for it). */
  nextDeadline(): number | undefined {
    let next: number | undefined;
    for (const entry of this.visible.values()) {
      if (entry.expiresAt !== undefined && (next === undefined || entry.expiresAt < next)) next = entry.expiresAt;
    }
    return next;
  }

  /** Closes every visible toast whose lifetime has ended by the clock's now. */
  expireDue(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.visible) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
        this.visible.delete(key);
        this.effects.push({ kind: "close", key });
      }
    }
    this.fill();
  }

  // ---- settings (applied at once) ----

  setSettings(settings: PresentationSettings): void {
    this.settings = settings;
    this.fill();
  }

  setTypes(types: TypeRegistry): void {
    this.types = types;
  }

  setTypeSounds(typeSounds: Readonly<Record<string, string>>): void {
    this.typeSounds = typeSounds;
  }

  // ---- output ----

  /** The effects recorded since the last drain, in order. */
  drain(): Effect[] {
    const effects = this.effects;
    this.effects = [];
    return effects;
  }

  visibleKeys(): string[] {
    return [...this.visible.keys()];
  }

  queuedKeys(): string[] {
    return [...this.queue.keys()];
  }

  toastOf(key: string): Toast | undefined {
    return this.visible.get(key)?.toast ?? this.queue.get(key);
  }

  /** How many waiting toasts were dropped past MAX_QUEUED_TOASTS. */
  dropped(): number {
    return this.droppedFromQueue;
  }

  // ---- internals ----

  private soundFor(toast: Toast): void {
    if (!soundPlays(this.settings, toast.priority)) return;
    const sound = soundOf(toast.typeId, this.types, this.typeSounds);
    if (sound !== undefined) this.effects.push({ kind: "sound", sound, priority: toast.priority, key: toast.key });
  }

  private enqueue(toast: Toast): void {
    if (this.visible.has(toast.key) || this.queue.has(toast.key)) return;
    this.queue.set(toast.key, toast);
    if (this.queue.size > MAX_QUEUED_TOASTS) {
      const oldest = this.queue.keys().next().value;
      if (oldest !== undefined) this.queue.delete(oldest);
      this.droppedFromQueue++;
    }
    this.fill();
  }

  private replace(toast: Toast): void {
    const entry = this.visible.get(toast.key);
    if (entry) {
      entry.toast = toast;
      entry.expiresAt = this.expiryOf(toast);
      this.effects.push({ kind: "update", toast });
    } else if (this.queue.has(toast.key)) {
      this.queue.set(toast.key, toast);
    }
  }

  private remove(key: string): void {
    if (this.queue.delete(key)) return;
    if (!this.visible.delete(key)) return;
    this.effects.push({ kind: "close", key });
    this.fill();
  }

  /** Rule 2: shows waiting toasts in order while fewer than maxVisibleToasts are visible (never while paused). */
  private fill(): void {
    if (!this.available || this.settings.pauseNotifications) return;
    while (this.visible.size < this.settings.maxVisibleToasts && this.queue.size > 0) {
      const [key, toast] = this.queue.entries().next().value as [string, Toast];
      this.queue.delete(key);
      this.visible.set(key, { toast, expiresAt: this.expiryOf(toast) });
      this.effects.push({ kind: "show", toast });
    }
  }

  private expiryOf(toast: Toast): number | undefined {
    return toast.lifetimeMs > 0 ? this.clock.now() + toast.lifetimeMs : undefined;
  }
}

function pickQuestion(toast: Toast): Partial<Toast> {
  if (toast.interactionId === undefined) return {};
  return { interactionId: toast.interactionId, actions: toast.actions, lifetimeMs: toast.lifetimeMs };
}
