import type { EventEmitter } from "node:events";
import dbus from "dbus-next";
import type { Logger } from "../log/logger.js";
import type { PresenceMonitor, PresenceSignal } from "./presence-monitor.js";

// The screen saver interface desktops export on the session bus (KDE, Xfce, GNOME's compatibility shim): GetActive
// says whether the screen is locked, GetSessionIdleTime how long no input came, ActiveChanged when the lock changes.
const SERVICE = "org.freedesktop.ScreenSaver";
const PATH = "/org/freedesktop/ScreenSaver";
const INTERFACE = "org.freedesktop.ScreenSaver";
const BUS_SERVICE = "org.freedesktop.DBus";
const NAME = "screensaver";

export interface ScreenSaverOptions {
  /** DBUS_SESSION_BUS_ADDRESS. */
  address: string;
  logger: Logger;
  /** How often the idle time is read while nothing is signalled (default 10 s). */
  pollMs?: number;
  /** A call unanswered this long counts as no answer (default 5 s). */
  callTimeoutMs?: number;
}

type Bus = dbus.MessageBus;

/**
 * Reads the session bus's screen saver into the presence monitor: locked is away, idle past awayAfterSeconds is
 * away, otherwise present; no bus or no screen saver on it is unknown. The bus going away is a state, not an error:
 * the next poll connects again.
 */
export class ScreenSaverSource {
  private bus: Bus | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private polling = false;
  /** A signal came while a poll was under way: read again as soon as it ends. */
  private again = false;
  private warned = false;

  constructor(
    private readonly options: ScreenSaverOptions,
    private readonly monitor: PresenceMonitor,
  ) {}

  start(): void {
    this.report({ name: NAME, state: "unknown", detail: "connecting to the session bus" });
    void this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.drop();
  }

  private report(signal: PresenceSignal): void {
    if (!this.stopped) this.monitor.report(signal);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), Math.max(50, ms));
    this.timer.unref();
  }

  /** One reading: connect if needed, GetActive, GetSessionIdleTime; the next poll is due when idle could cross. */
  private async poll(): Promise<void> {
    if (this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    const pollMs = this.options.pollMs ?? 10_000;
    let next = pollMs;
    try {
      const bus = this.bus ?? (await this.connect());
      const [locked] = await this.call(bus, "GetActive", []);
      if (locked === true) {
        this.report({ name: NAME, state: "away", detail: "the screen is locked", locked: true });
      } else {
        const idleMs = await this.idleMs(bus);
        const awayMs = this.monitor.awayAfterSeconds * 1000;
        if (idleMs === undefined) {
          this.report({
            name: NAME,
            state: "unknown",
            detail: "unlocked; the screen saver does not tell the idle time",
          });
        } else if (idleMs >= awayMs) {
          this.report({ name: NAME, state: "away", detail: `idle for ${Math.floor(idleMs / 1000)} s` });
        } else {
          this.report({ name: NAME, state: "present", detail: `unlocked, idle for ${Math.floor(idleMs / 1000)} s` });
          // Read again when the idle time would pass awayAfterSeconds, if that comes before the next poll.
          next = Math.min(pollMs, awayMs - idleMs + 100);
        }
      }
      this.warned = false;
    } catch (error) {
      // A DBusError is an answer (no screen saver yet: NameOwnerChanged says when one comes); anything else loses the bus.
      if (!(error instanceof dbus.DBusError)) this.drop();
      const why = describe(error);
      const absent = why === "org.freedesktop.DBus.Error.ServiceUnknown" || why.includes("NameHasNoOwner");
      const detail = absent ? "no screen saver on the session bus" : `session bus: ${why}`;
      this.report({ name: NAME, state: "unknown", detail });
      if (!this.warned && !absent) this.options.logger.warn(`presence: ${detail}; presence from the web page only`);
      this.warned = true;
    } finally {
      this.polling = false;
    }
    this.schedule(this.again ? 0 : next);
    this.again = false;
  }

  /** GetSessionIdleTime in ms (KDE's unit); undefined when the screen saver does not implement it. */
  private async idleMs(bus: Bus): Promise<number | undefined> {
    try {
      const [idle] = await this.call(bus, "GetSessionIdleTime", []);
      return typeof idle === "number" ? idle : undefined;
    } catch (error) {
      if (error instanceof dbus.DBusError && error.type !== "org.freedesktop.DBus.Error.ServiceUnknown") {
        return undefined;
      }
      throw error;
    }
  }

  private async connect(): Promise<Bus> {
    const bus = dbus.sessionBus({ busAddress: this.options.address });
    this.bus = bus;
    bus.on("error", () => this.lost(bus));
    connectionOf(bus)?.on("end", () => this.lost(bus));
    await this.timed(new Promise<void>((resolve) => bus.once("connect", () => resolve())), "session bus handshake");
    bus.on("message", (message: dbus.Message) => {
      if (message.type !== dbus.MessageType.SIGNAL) return;
      // ActiveChanged: the lock changed; NameOwnerChanged: a screen saver came or went. Either way, read again now.
      if (message.interface === INTERFACE && message.member === "ActiveChanged") this.schedule(0);
      else if (message.member === "NameOwnerChanged" && message.body[0] === SERVICE) this.schedule(0);
    });
    for (const rule of [
      `type='signal',interface='${INTERFACE}',member='ActiveChanged'`,
      `type='signal',sender='${BUS_SERVICE}',member='NameOwnerChanged',arg0='${SERVICE}'`,
    ]) {
      await this.timed(
        bus.call(
          new dbus.Message({
            destination: BUS_SERVICE,
            path: "/org/freedesktop/DBus",
            interface: BUS_SERVICE,
            member: "AddMatch",
            signature: "s",
            body: [rule],
          }),
        ),
        "AddMatch",
      );
    }
    return bus;
  }

  private async call(bus: Bus, member: string, body: unknown[]): Promise<unknown[]> {
    const message = new dbus.Message({ destination: SERVICE, path: PATH, interface: INTERFACE, member, body });
    const reply = await this.timed(bus.call(message), member);
    return reply?.body ?? [];
  }

  private timed<T>(promise: Promise<T>, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what} timed out`)), this.options.callTimeoutMs ?? 5000);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  private lost(bus: Bus): void {
    if (this.bus !== bus) return;
    this.drop();
    this.report({ name: NAME, state: "unknown", detail: "the session bus went away" });
    this.schedule(this.options.pollMs ?? 10_000);
  }

  private drop(): void {
    const bus = this.bus;
    this.bus = undefined;
    if (!bus) return;
    bus.removeAllListeners("message");
    try {
      bus.disconnect();
    } catch {
      // Already closed.
    }
  }
}

/** Starts the screen saver source on the session bus and hands its stop to the monitor. */
export function startScreenSaverSource(options: ScreenSaverOptions, monitor: PresenceMonitor): ScreenSaverSource {
  const source = new ScreenSaverSource(options, monitor);
  source.start();
  monitor.addStop(() => source.stop());
  return source;
}

/** dbus-next keeps its socket's end event on a private connection object. */
function connectionOf(bus: Bus): EventEmitter | undefined {
  return (bus as unknown as { _connection?: EventEmitter })._connection;
}

function describe(error: unknown): string {
  if (error instanceof dbus.DBusError) return error.type;
  if (error instanceof Error) return error.message;
  return String(error);
}
