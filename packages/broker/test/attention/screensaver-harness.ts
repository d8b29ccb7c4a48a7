import dbus from "dbus-next";

/**
 * A screen saver exported on the test's session bus, as KDE's answers: GetActive (locked), GetSessionIdleTime (ms
 * without input) and the ActiveChanged signal when the lock changes. The test sets both and watches what the broker
 * reads. `withoutIdleTime` answers GetSessionIdleTime with NotSupported, as some desktops do.
 */
export class FakeScreenSaver {
  locked = false;
  idleMs = 0;
  readonly calls: string[] = [];
  private bus: dbus.MessageBus | undefined;
  private readonly iface: ScreenSaverInterface;

  constructor(readonly withoutIdleTime = false) {
    this.iface = new ScreenSaverInterface(this);
  }

  async connect(address: string): Promise<void> {
    const bus = dbus.sessionBus({ busAddress: address });
    bus.on("error", () => {});
    this.bus = bus;
    await new Promise<void>((resolve) => bus.once("connect", () => resolve()));
    bus.export("/org/freedesktop/ScreenSaver", this.iface);
    await bus.requestName("org.freedesktop.ScreenSaver", 0);
  }

  /** Locks or unlocks, and says so with ActiveChanged as a real screen saver does. */
  setLocked(locked: boolean): void {
    this.locked = locked;
    this.iface.ActiveChanged(locked);
  }

  disconnect(): void {
    try {
      this.bus?.disconnect();
    } catch {
      // Already gone with its bus.
    }
    this.bus = undefined;
  }
}

class ScreenSaverInterface extends dbus.interface.Interface {
  constructor(private readonly saver: FakeScreenSaver) {
    super("org.freedesktop.ScreenSaver");
  }

  GetActive(): boolean {
    this.saver.calls.push("GetActive");
    return this.saver.locked;
  }

  GetSessionIdleTime(): number {
    this.saver.calls.push("GetSessionIdleTime");
    if (this.saver.withoutIdleTime) {
      throw new dbus.DBusError("org.freedesktop.DBus.Error.NotSupported", "idle time is not supported");
    }
    return this.saver.idleMs;
  }

  ActiveChanged(active: boolean): boolean {
    return active;
  }
}

ScreenSaverInterface.configureMembers({
  methods: {
    GetActive: { inSignature: "", outSignature: "b" },
    GetSessionIdleTime: { inSignature: "", outSignature: "u" },
  },
  signals: {
    ActiveChanged: { signature: "b" },
  },
});
