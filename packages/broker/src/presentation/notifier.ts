import type { CloseReason } from "./policy.js";
import type { Toast } from "./toast.js";

/**
 * The platform seam (docs/desktop.md, "Adapter interface (macOS and Windows)"). The freedesktop adapter implements it
 * on Linux; a macOS (UNUserNotificationCenter) or Windows (toast notifications) adapter would implement the same four
 * methods and report the same three events. Ids are the platform's own toast ids.
 */
export interface DesktopNotifier {
  /** Connects in the background and keeps reconnecting; reports through the listener; never throws. */
  start(listener: NotifierListener): void;
  /** Shows a toast (or replaces the one with id `replaces`); resolves with the platform id. */
  show(toast: Toast, replaces?: number): Promise<number>;
  /** Closes a toast the platform still shows. */
  close(id: number): Promise<void>;
  stop(): Promise<void>;
}

export interface NotifierListener {
  /** The desktop service came (true) or went (false); toasts shown before it went are gone. */
  availability(available: boolean): void;
  /** A button was pressed: `choice:<choice_id>` or `default`. */
  actionInvoked(id: number, actionKey: string): void;
  closed(id: number, reason: CloseReason): void;
  /** A reply typed into a toast's inline reply field (servers with the `inline-reply` capability). */
  replied?(id: number, text: string): void;
}
