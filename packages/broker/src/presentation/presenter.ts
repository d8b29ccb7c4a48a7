import { randomUUID } from "node:crypto";
import type { ItemKind } from "@notify/contracts/enums";
import { formFieldOf } from "@notify/contracts/form-context";
import { contextSummary, type ItemContext } from "@notify/contracts/item-context";
import type { PresentationSettingsFile } from "../config/presentation-settings.js";
import type { DomainBus } from "../domain/bus.js";
import type { Clock } from "../domain/clock.js";
import type { InteractionService } from "../interactions/service.js";
import type { InteractionDto } from "../interactions/types.js";
import type { Logger } from "../log/logger.js";
import type { NotificationService } from "../notifications/service.js";
import type { NotificationDto } from "../notifications/types.js";
import type { DesktopNotifier } from "./notifier.js";
import { type CloseReason, type Effect, ToastPolicy } from "./policy.js";
import type { SoundLibrary } from "./sounds/sound-library.js";
import type { SoundPlayer } from "./sounds/sound-player.js";

/**
 * Where the presenter notes what became of a toast (the item's delivery timeline), by the toast's key (`n:<id>`,
 * `q:<id>`, toast.ts).
 */
export interface ToastLog {
  /** The desktop service accepted the toast (a first show, or a show again after the service came back). */
  shown(key: string): void;
  /** The toast closed: the desktop service said so, or the broker closed it (`closed`) once its item settled. */
  closed(key: string, reason: CloseReason): void;
}

export interface PresenterOptions {
  bus: DomainBus;
  notifications: NotificationService;
  interactions: InteractionService;
  settings: PresentationSettingsFile;
  notifier: DesktopNotifier;
  sounds: SoundLibrary;
  player: SoundPlayer;
  logger: Logger;
  clock: Clock;
  /** The `default` action: open the web UI at the item (`kind` notification or interaction). */
  open?: (kind: ItemKind, id: string) => void;
  /** Told when a toast was shown and closed; a failure there never stops a toast. */
  log?: ToastLog;
  /**
   * The context a question carries (by the question's id or its notification half's), read once per toast event:
   * the toast's one-line summary (`src/db.ts +12 -4`), and for an MCP form (docs/hooks.md, "MCP elicitation") no
   * toast for a field (the decision has the form's one toast) and no Accept on the decision's toast (the fields are
   * not on it, so Accept there would send what the person never saw).
   */
  questionContext?: (id: string) => ItemContext | undefined;
}

/**
 * Wires the policy to the domain bus, the settings and a desktop adapter. Domain events are fed to the policy as
 * they come; its effects are carried out once per event-loop turn, so a notification and the question opened with
 * it in one transaction become one toast with its buttons rather than a toast and an update.
 */
export class Presenter {
  private readonly policy: ToastPolicy;
  /** Toast key to platform id, resolved once its Notify call returned. */
  private readonly ids = new Map<string, Promise<number | undefined>>();
  private readonly keys = new Map<number, string>();
  private flushScheduled = false;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: (() => void)[] = [];
  /** Resolves when every platform call started so far has settled (tests and the bench wait on it). */
  private work: Promise<void> = Promise.resolve();

  constructor(private readonly options: PresenterOptions) {
    this.policy = new ToastPolicy(
      options.settings.get(),
      options.clock,
      options.notifications.typeRegistry(),
      options.sounds.typeSounds(),
    );
  }

  start(): void {
    const { bus, settings } = this.options;
    const created = (notification: NotificationDto) => {
      // An MCP form's field: its notification half gets no toast either (not even for a moment).
      if (formFieldOf(this.options.questionContext?.(notification.id)) !== undefined) return;
      this.feed(() => this.policy.notificationCreated(notification));
    };
    const changed = (notification: NotificationDto) => this.feed(() => this.policy.notificationChanged(notification));
    const opened = (interaction: InteractionDto) => {
      const context = this.options.questionContext?.(interaction.id);
      const notificationId = this.options.interactions.notificationIdOf(interaction.id);
      if (formFieldOf(context) !== undefined) {
        this.feed(() => this.policy.interactionWithoutToast(interaction, notificationId));
        return;
      }
      const formDecision = context?.kind === "form" && context.field === undefined && context.fields.length > 0;
      const shown = formDecision
        ? { ...interaction, choices: interaction.choices.filter((choice) => choice.id !== "accept") }
        : interaction;
      const summary = context === undefined ? undefined : contextSummary(context);
      this.feed(() => this.policy.interactionOpened(shown, notificationId, summary));
    };
    const settled = (interaction: InteractionDto) => this.feed(() => this.policy.interactionChanged(interaction));
    bus.on("notification.created", created);
    bus.on("notification.changed", changed);
    bus.on("interaction.created", opened);
    bus.on("interaction.changed", settled);
    this.unsubscribe.push(
      () => bus.off("notification.created", created),
      () => bus.off("notification.changed", changed),
      () => bus.off("interaction.created", opened),
      () => bus.off("interaction.changed", settled),
      // Settings changes apply at once (a raised maxVisibleToasts shows waiting toasts now).
      settings.onChange((next) => this.feed(() => this.policy.setSettings(next))),
    );
    this.options.notifier.start({
      availability: (available) => {
        if (!available) {
          this.ids.clear();
          this.keys.clear();
        }
        this.feed(() => this.policy.setAvailable(available));
      },
      actionInvoked: (id, actionKey) => this.withKey(id, (key) => this.actionInvoked(key, actionKey)),
      replied: (id, text) => this.withKey(id, (key) => this.replied(key, text)),
      closed: (id, reason) =>
        this.withKey(id, (key) => {
          this.keys.delete(id);
          this.ids.delete(key);
          this.note(() => this.options.log?.closed(key, reason));
          this.feed(() => this.policy.closedOnDesktop(key, reason));
        }),
    });
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    await this.options.notifier.stop();
  }

  /** The per-type sound choice changed (the sounds route calls this). */
  typeSoundsChanged(): void {
    this.policy.setTypeSounds(this.options.sounds.typeSounds());
  }

  /** Settles when every platform call started so far has settled. */
  async idle(): Promise<void> {
    let seen: Promise<unknown> | undefined;
    while (seen !== this.work || this.flushScheduled) {
      seen = this.work;
      await seen;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  visibleKeys(): string[] {
    return this.policy.visibleKeys();
  }

  queuedKeys(): string[] {
    return this.policy.queuedKeys();
  }

  private feed(input: () => void): void {
    this.policy.setTypes(this.options.notifications.typeRegistry());
    input();
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      this.carryOut(this.policy.drain());
    });
  }

  private carryOut(effects: Effect[]): void {
    const shownNow = new Set<string>();
    for (const effect of effects) {
      switch (effect.kind) {
        case "show": {
          shownNow.add(effect.toast.key);
          // The latest content: a question attached in the same turn rides on the first Notify.
          const toast = this.policy.toastOf(effect.toast.key) ?? effect.toast;
          const id = this.options.notifier.show(toast).then(
            (platformId) => {
              this.keys.set(platformId, toast.key);
              this.note(() => this.options.log?.shown(toast.key));
              return platformId;
            },
            () => {
              // Refused (or the service went away, which requeued it already): the slot must not stay taken.
              this.feed(() => this.policy.closedOnDesktop(toast.key, "undefined"));
              return undefined;
            },
          );
          this.ids.set(toast.key, id);
          this.track(id);
          break;
        }
        case "update": {
          if (shownNow.has(effect.toast.key)) break;
          const previous = this.ids.get(effect.toast.key);
          if (!previous) break;
          const key = effect.toast.key;
          const id = previous.then(async (replaces) => {
            if (replaces === undefined) return undefined;
            const platformId = await this.options.notifier.show(effect.toast, replaces).catch(() => replaces);
            // The Desktop Notifications Specification says a replacement keeps its id; a server that hands out a new one is followed all the same.
            if (platformId !== replaces) {
              this.keys.delete(replaces);
              this.keys.set(platformId, key);
            }
            return platformId;
          });
          this.ids.set(effect.toast.key, id);
          this.track(id);
          break;
        }
        case "close": {
          const id = this.ids.get(effect.key);
          this.ids.delete(effect.key);
          if (!id) break;
          this.track(
            id.then((platformId) => {
              if (platformId === undefined) return;
              // The service's NotificationClosed for it will find no key: the close is noted here.
              this.keys.delete(platformId);
              this.note(() => this.options.log?.closed(effect.key, "closed"));
              return this.options.notifier.close(platformId).catch(() => undefined);
            }),
          );
          break;
        }
        case "sound": {
          const settings = this.options.settings.get();
          this.track(this.options.player.play(effect.sound, settings.volume, settings.soundCommand));
          break;
        }
        default: {
          const _exhaustive: never = effect;
          throw new Error(`unknown effect ${JSON.stringify(_exhaustive)}`);
        }
      }
    }
    this.scheduleDeadline();
  }

  /** Records through the toast log; a write that fails is logged and the toast goes on. */
  private note(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.options.logger.warn(`desktop: could not record a toast event (${(error as Error).message})`);
    }
  }

  private scheduleDeadline(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    const deadline = this.policy.nextDeadline();
    if (deadline === undefined) return;
    this.deadlineTimer = setTimeout(
      () => this.feed(() => this.policy.expireDue()),
      Math.max(0, deadline - this.options.clock.now()),
    );
    this.deadlineTimer.unref();
  }

  private track(promise: Promise<unknown>): void {
    // Settles to undefined, so a long run of calls does not keep a chain of nested results alive.
    this.work = Promise.all([this.work, promise.catch(() => undefined)]).then(() => undefined);
  }

  /**
   * Finds the toast of a platform id. A signal can be read in the same chunk as the reply to its Notify call and so
   * overtake it: an unknown id is looked up again once the calls in flight have settled.
   */
  private withKey(platformId: number, then: (key: string) => void): void {
    const key = this.keys.get(platformId);
    if (key !== undefined) {
      then(key);
      return;
    }
    void this.work.then(() => {
      const later = this.keys.get(platformId);
      if (later !== undefined) then(later);
    });
  }

  /**
   * A toast's inline reply (a server with `inline-reply`) answers its text question through the normal acceptance
   * path with source `toast`: a follow-up reply from this computer's desktop.
   */
  private replied(key: string, text: string): void {
    const toast = this.policy.toastOf(key);
    if (toast?.interactionId === undefined || toast.replyPlaceholder === undefined) return;
    this.answerFromToast(toast.interactionId, { response_id: `toast-${randomUUID()}`, text, source: "toast" });
  }

  /** A toast button: `choice:<id>` answers through the normal acceptance path with source `desktop`. */
  private actionInvoked(key: string, actionKey: string): void {
    const toast = this.policy.toastOf(key);
    if (!toast) return;
    if (actionKey === "default") {
      if (toast.interactionId !== undefined) this.options.open?.("interaction", toast.interactionId);
      else if (toast.notificationId !== undefined) this.options.open?.("notification", toast.notificationId);
      return;
    }
    if (!actionKey.startsWith("choice:") || toast.interactionId === undefined) return;
    const choiceId = actionKey.slice("choice:".length);
    this.answerFromToast(toast.interactionId, {
      response_id: `desktop-${randomUUID()}`,
      choice_id: choiceId,
      source: "desktop",
    });
  }

  /**
   * A toast's answer (a button's choice or an inline reply's text) through the normal acceptance path, with the
   * digest and nonce the broker holds for the question now.
   */
  private answerFromToast(
    interactionId: string,
    answer: { response_id: string; source: string } & ({ choice_id: string } | { text: string }),
  ): void {
    const { interactions, logger } = this.options;
    try {
      const current = interactions.get(interactionId);
      interactions.answer(current.id, {
        ...answer,
        request_digest: current.request_digest,
        nonce: current.nonce,
        via: "toast",
      });
    } catch (error) {
      // Another answer won, or the question expired meanwhile: the toast closes through the settle event.
      logger.info(`desktop: answer from a toast not taken (${(error as Error).message})`);
    }
  }
}
