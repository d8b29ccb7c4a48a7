import type { EventEmitter } from "node:events";
import type * as DBus from "dbus-next";
import type { Logger } from "../../log/logger.js";
import type { Priority } from "../../notifications/types.js";
import type { DesktopNotifier, NotifierListener } from "../notifier.js";
import type { CloseReason } from "../policy.js";
import type { Toast } from "../toast.js";

// Desktop Notifications Specification 1.2 (specifications.freedesktop.org/notification): the well-known name, the
// object path and the interface a notification server exports on the session bus.
const SERVICE = "org.freedesktop.Notifications";
const PATH = "/org/freedesktop/Notifications";
const INTERFACE = "org.freedesktop.Notifications";
const BUS_SERVICE = "org.freedesktop.DBus";

/** Urgency hint (byte): 0 low, 1 normal, 2 critical. `high` stays normal so only critical pierces a server's rules. */
const URGENCY: Record<Priority, number> = { low: 0, normal: 1, high: 1, critical: 2 };
/** NotificationClosed reasons 1-4. */
const CLOSE_REASONS: Record<number, CloseReason> = { 1: "expired", 2: "dismissed", 3: "closed", 4: "undefined" };

export interface FreedesktopOptions {
  /** DBUS_SESSION_BUS_ADDRESS. */
  address: string;
  logger: Logger;
  /** The `desktop-entry` hint: the basename of the broker's .desktop file. */
  desktopEntry?: string;
  appName?: string;
  /** Reconnect backoff bounds (tests shorten them). */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** A call unanswered this long counts as the service gone. */
  callTimeoutMs?: number;
}

type Bus = DBus.MessageBus;

/**
 * dbus-next (with xml2js and xmlbuilder, about 60 modules and several MB) loads on the first connection attempt, so
 * a broker without a session bus never loads it (bench/README.md, "Idle cost").
 */
/** The action key a server with the `inline-reply` capability turns into a reply field (KDE Plasma's extension). */
const INLINE_REPLY = "inline-reply";

let dbus: typeof DBus | undefined;
async function loadDbus(): Promise<typeof DBus> {
  dbus ??= (await import("dbus-next")).default as typeof DBus;
  return dbus;
}

/**
 * The freedesktop adapter: Notify / CloseNotification / GetCapabilities calls and the ActionInvoked /
 * NotificationClosed signals over dbus-next. The bus or the server going away (or not being there yet) is a state,
 * not an error: one WARN per outage, reconnects with backoff, availability reported to the presenter.
 */
export class FreedesktopNotifier implements DesktopNotifier {
  private bus: Bus | undefined;
  private listener: NotifierListener | undefined;
  private capabilities = new Set<string>();
  private stopped = false;
  private up = false;
  private warned = false;
  private retryMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<(error: Error) => void>();

  constructor(private readonly options: FreedesktopOptions) {
    this.retryMs = options.retryMinMs ?? 1000;
  }

  start(listener: NotifierListener): void {
    this.listener = listener;
    void this.connect();
  }

  async show(toast: Toast, replaces = 0): Promise<number> {
    if (!dbus || !this.up) throw new Error("no notification service");
    const DBusVariant = dbus.Variant;
    const actions = this.capabilities.has("actions")
      ? toast.actions.flatMap((action) => [action.key, action.label])
      : [];
    // KDE's inline reply (the server lists `inline-reply`): an action of that key makes a reply field, and the reply
    // comes back as NotificationReplied.
    const inlineReply = toast.replyPlaceholder !== undefined && this.capabilities.has("inline-reply");
    if (inlineReply) actions.push(INLINE_REPLY, "Reply");
    const body = this.capabilities.has("body-markup") ? escapeMarkup(toast.body) : toast.body;
    const hints = {
      urgency: new DBusVariant("y", URGENCY[toast.priority]),
      category: new DBusVariant("s", `x-notify.${toast.styleTypeId}`),
      "desktop-entry": new DBusVariant("s", this.options.desktopEntry ?? "notify"),
      // The broker plays its own sounds (docs/desktop.md, "Local presentation rules", rule 5); the server must not add
      // one.
      "suppress-sound": new DBusVariant("b", true),
      ...(inlineReply ? { "x-kde-reply-placeholder-text": new DBusVariant("s", toast.replyPlaceholder) } : {}),
    };
    const reply = await this.call(SERVICE, PATH, INTERFACE, "Notify", "susssasa{sv}i", [
      this.options.appName ?? "Notify",
      replaces,
      toast.icon,
      toast.title,
      body,
      actions,
      hints,
      toast.lifetimeMs,
    ]);
    return Number(reply[0]);
  }

  async close(id: number): Promise<void> {
    await this.call(SERVICE, PATH, INTERFACE, "CloseNotification", "u", [id]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.drop();
  }

  // ---- connection ----

  private async connect(): Promise<void> {
    this.retryTimer = undefined;
    if (this.stopped) return;
    let bus: Bus | undefined;
    try {
      const dbus = await loadDbus();
      if (this.stopped) return;
      bus = dbus.sessionBus({ busAddress: this.options.address });
      const current = bus;
      this.bus = current;
      current.on("error", () => this.lost(current, "the session bus connection failed"));
      connectionOf(current)?.on("end", () => this.lost(current, "the session bus went away"));
      await this.withTimeout(
        new Promise<void>((resolve) => current.once("connect", () => resolve())),
        "session bus handshake",
      );
      current.on("message", (message: DBus.Message) => this.onMessage(current, message));
      for (const rule of [
        `type='signal',interface='${INTERFACE}',path='${PATH}'`,
        `type='signal',sender='${BUS_SERVICE}',member='NameOwnerChanged',arg0='${SERVICE}'`,
      ]) {
        await this.call(BUS_SERVICE, "/org/freedesktop/DBus", BUS_SERVICE, "AddMatch", "s", [rule], current);
      }
      this.retryMs = this.options.retryMinMs ?? 1000;
      await this.serverUp(current);
    } catch (error) {
      // An address dbus-next cannot even parse throws before there is a bus: the same outage, the same retries.
      this.lost(bus, describe(error));
    }
  }

  /**
   * Asks the server for its capabilities and, when it answers, reports the service available. With no server on the
   * bus yet, the connection stays and waits: NameOwnerChanged says when one takes the name.
   */
  private async serverUp(bus: Bus): Promise<void> {
    let capabilities: string[];
    try {
      capabilities = await this.capabilitiesOf(bus);
    } catch (error) {
      if (this.bus !== bus) return;
      if (dbus && error instanceof dbus.DBusError) {
        this.serverDown("no notification server on the session bus");
        return;
      }
      throw error;
    }
    if (this.bus !== bus || this.up) return;
    this.capabilities = new Set(capabilities);
    this.up = true;
    if (this.warned) this.options.logger.info("desktop: the notification service is back; toasts resume");
    this.warned = false;
    this.listener?.availability(true);
  }

  /** The server is gone (its toasts with it) but the bus is still there. */
  private serverDown(why: string): void {
    if (this.up) {
      this.up = false;
      this.listener?.availability(false);
    }
    this.warnOnce(why);
  }

  private warnOnce(why: string): void {
    if (this.warned) return;
    // One WARN per outage, however many reconnect attempts fail.
    this.options.logger.warn(`desktop: no notification service (${why}); toasts wait and the broker goes on`);
    this.warned = true;
  }

  private lost(bus: Bus | undefined, why: string): void {
    if (this.bus !== bus) return;
    this.drop();
    if (this.up) {
      this.up = false;
      this.listener?.availability(false);
    }
    this.warnOnce(why);
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, this.options.retryMaxMs ?? 30_000);
  }

  /** Forgets the current connection and fails whatever was waiting on it. */
  private drop(): void {
    const bus = this.bus;
    this.bus = undefined;
    for (const reject of this.inFlight) reject(new Error("the session bus went away"));
    this.inFlight.clear();
    if (bus) {
      bus.removeAllListeners("message");
      try {
        bus.disconnect();
      } catch {
        // Already closed.
      }
    }
  }

  /**
   * GetCapabilities also tells whether a server is there: no owner of the name is an outage. A server that answers
   * with an error (a minimal one without the method) is there; it is assumed to draw actions and plain bodies.
   */
  private async capabilitiesOf(bus: Bus): Promise<string[]> {
    try {
      const [capabilities] = await this.call(SERVICE, PATH, INTERFACE, "GetCapabilities", "", [], bus);
      return Array.isArray(capabilities) ? capabilities.map(String) : [];
    } catch (error) {
      const absent = ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"];
      if (dbus && error instanceof dbus.DBusError && !absent.includes(error.type)) return ["actions", "body"];
      throw error;
    }
  }

  private onMessage(bus: Bus, message: DBus.Message): void {
    if (!dbus || message.type !== dbus.MessageType.SIGNAL) return;
    if (message.interface === INTERFACE && message.path === PATH) {
      if (message.member === "ActionInvoked") {
        this.listener?.actionInvoked(Number(message.body[0]), String(message.body[1]));
      } else if (message.member === "NotificationReplied") {
        this.listener?.replied?.(Number(message.body[0]), String(message.body[1]));
      } else if (message.member === "NotificationClosed") {
        this.listener?.closed(Number(message.body[0]), CLOSE_REASONS[Number(message.body[1])] ?? "undefined");
      }
    } else if (message.member === "NameOwnerChanged" && message.body[0] === SERVICE) {
      // The server left, came, or was replaced: toasts shown before are gone; show them again on the new one.
      if (message.body[2] === "") {
        this.serverDown("the notification server left the bus");
        return;
      }
      if (this.up) this.serverDown("the notification server was replaced");
      void this.serverUp(bus).catch((error: unknown) => this.lost(bus, describe(error)));
    }
  }

  private call(
    destination: string,
    path: string,
    iface: string,
    member: string,
    signature: string,
    body: unknown[],
    bus: Bus | undefined = this.up ? this.bus : undefined,
  ): Promise<unknown[]> {
    if (!bus || !dbus) return Promise.reject(new Error("no notification service"));
    const message = new dbus.Message({ destination, path, interface: iface, member, signature, body });
    return this.withTimeout(
      bus.call(message).then((reply) => reply?.body ?? []),
      `${member}`,
      bus,
    );
  }

  private withTimeout<T>(promise: Promise<T>, what: string, bus?: Bus): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const fail = (error: Error) => {
        clearTimeout(timer);
        this.inFlight.delete(fail);
        reject(error);
      };
      const timer = setTimeout(() => {
        fail(new Error(`${what} timed out`));
        if (bus && bus === this.bus) this.lost(bus, `${what} timed out`);
      }, this.options.callTimeoutMs ?? 5000);
      this.inFlight.add(fail);
      promise.then(
        (value) => {
          clearTimeout(timer);
          this.inFlight.delete(fail);
          resolve(value);
        },
        (error: unknown) => fail(error instanceof Error ? error : new Error(describe(error))),
      );
    });
  }
}

/** dbus-next keeps its socket's end event on a private connection object. */
function connectionOf(bus: Bus): EventEmitter | undefined {
  return (bus as unknown as { _connection?: EventEmitter })._connection;
}

function describe(error: unknown): string {
  if (dbus && error instanceof dbus.DBusError) return error.type;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** With the body-markup capability, `&`, `<` and `>` are markup (Desktop Notifications spec, "Markup"). */
function escapeMarkup(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
