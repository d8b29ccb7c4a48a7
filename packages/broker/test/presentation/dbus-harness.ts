import { type ChildProcess, spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import dbus from "dbus-next";

/** Whether the suite can run: dbus-daemon is Debian's `dbus` package (.ci/run installs it). */
export function dbusAvailable(): boolean {
  const found = existsSync("/usr/bin/dbus-daemon");
  if (!found) {
    if (process.env.CI === "true") throw new Error("dbus-daemon is missing: apt-get install dbus");
    console.warn("\n*** SKIPPING desktop adapter tests: dbus-daemon not found (apt-get install dbus) ***\n");
  }
  return found;
}

/** A private session bus: `dbus-daemon --session`-like config in a temp dir, address read from --print-address. */
export class SessionBus {
  private child: ChildProcess | undefined;
  address = "";

  constructor(private readonly directory: string) {}

  async start(): Promise<string> {
    const socket = join(this.directory, "bus");
    rmSync(socket, { force: true });
    const config = join(this.directory, "session.conf");
    writeFileSync(
      config,
      `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
    );
    const child = spawn("dbus-daemon", [`--config-file=${config}`, "--nofork", "--print-address=1"], {
      // stderr only carries its "cannot raise the fd limit" notice when not privileged.
      stdio: ["ignore", "pipe", "ignore"],
    });
    this.child = child;
    this.address = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const line = text.split("\n")[0];
        if (text.includes("\n") && line) resolve(line.trim());
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
    });
    return this.address;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }
}

export interface NotifyCall {
  id: number;
  appName: string;
  replacesId: number;
  icon: string;
  summary: string;
  body: string;
  actions: string[];
  hints: Record<string, unknown>;
  expireTimeout: number;
  at: number;
}

/**
 * A notification server exported on the test's bus, as the Desktop Notifications spec describes it: it records
 * every call, answers CloseNotification with NotificationClosed reason 3, and lets the test press buttons
 * (ActionInvoked) and close toasts (NotificationClosed).
 */
export class RecordingServer extends EventEmitter {
  readonly notifies: NotifyCall[] = [];
  readonly closes: number[] = [];
  private nextId = 1;
  private bus: dbus.MessageBus | undefined;
  private readonly iface: ServerInterface;

  constructor(private readonly capabilities: string[] = ["actions", "body", "persistence"]) {
    super();
    this.iface = new ServerInterface(this);
  }

  async connect(address: string): Promise<void> {
    const bus = dbus.sessionBus({ busAddress: address });
    bus.on("error", () => {});
    this.bus = bus;
    await new Promise<void>((resolve) => bus.once("connect", () => resolve()));
    bus.export("/org/freedesktop/Notifications", this.iface);
    await bus.requestName("org.freedesktop.Notifications", 0);
  }

  /** Calls GetCapabilities on whichever server owns the name now; throws while none does. */
  async ping(address: string): Promise<void> {
    const bus = dbus.sessionBus({ busAddress: address });
    bus.on("error", () => {});
    try {
      await new Promise<void>((resolve) => bus.once("connect", () => resolve()));
      await bus.call(
        new dbus.Message({
          destination: "org.freedesktop.Notifications",
          path: "/org/freedesktop/Notifications",
          interface: "org.freedesktop.Notifications",
          member: "GetCapabilities",
        }),
      );
    } finally {
      bus.disconnect();
    }
  }

  disconnect(): void {
    try {
      this.bus?.disconnect();
    } catch {
      // Already gone with its bus.
    }
    this.bus = undefined;
  }

  /** The server side of each method, called by the exported interface. */
  onNotify(call: Omit<NotifyCall, "id" | "at">): number {
    const id = call.replacesId > 0 ? call.replacesId : this.nextId++;
    const recorded = { ...call, id, at: performance.now() };
    this.notifies.push(recorded);
    // Announced after the reply has gone out, as a real server's buttons come after the toast is on screen.
    setImmediate(() => this.emit("notify", recorded));
    return id;
  }

  onClose(id: number): void {
    this.closes.push(id);
    this.emit("close", id);
    this.iface.NotificationClosed(id, 3);
  }

  /** A minimal server may lack GetCapabilities (it answers UnknownMethod). */
  getCapabilities(): string[] {
    if (this.capabilities.length === 0) {
      throw new dbus.DBusError("org.freedesktop.DBus.Error.UnknownMethod", "GetCapabilities is not implemented");
    }
    return this.capabilities;
  }

  invoke(id: number, actionKey: string): void {
    this.iface.ActionInvoked(id, actionKey);
  }

  /** A reply typed into a toast's inline reply field (KDE's `inline-reply` extension). */
  reply(id: number, text: string): void {
    this.iface.NotificationReplied(id, text);
  }

  closeByUser(id: number, reason = 2): void {
    this.iface.NotificationClosed(id, reason);
  }

  /** Resolves when `count` Notify calls have been recorded. */
  async notified(count: number): Promise<NotifyCall[]> {
    while (this.notifies.length < count) await new Promise((resolve) => this.once("notify", resolve));
    return this.notifies;
  }

  async closed(count: number): Promise<number[]> {
    while (this.closes.length < count) await new Promise((resolve) => this.once("close", resolve));
    return this.closes;
  }
}

class ServerInterface extends dbus.interface.Interface {
  constructor(private readonly server: RecordingServer) {
    super("org.freedesktop.Notifications");
  }

  Notify(
    appName: string,
    replacesId: number,
    icon: string,
    summary: string,
    body: string,
    actions: string[],
    hints: Record<string, { value: unknown }>,
    expireTimeout: number,
  ): number {
    const plainHints = Object.fromEntries(Object.entries(hints).map(([key, variant]) => [key, variant.value]));
    return this.server.onNotify({
      appName,
      replacesId,
      icon,
      summary,
      body,
      actions,
      hints: plainHints,
      expireTimeout,
    });
  }

  CloseNotification(id: number): void {
    this.server.onClose(id);
  }

  GetCapabilities(): string[] {
    return this.server.getCapabilities();
  }

  GetServerInformation(): string[] {
    return ["recording-server", "notify-tests", "1.0", "1.2"];
  }

  ActionInvoked(id: number, actionKey: string): unknown[] {
    return [id, actionKey];
  }

  NotificationClosed(id: number, reason: number): unknown[] {
    return [id, reason];
  }

  NotificationReplied(id: number, text: string): unknown[] {
    return [id, text];
  }
}

ServerInterface.configureMembers({
  methods: {
    Notify: { inSignature: "susssasa{sv}i", outSignature: "u" },
    CloseNotification: { inSignature: "u", outSignature: "" },
    GetCapabilities: { inSignature: "", outSignature: "as" },
    GetServerInformation: { inSignature: "", outSignature: "ssss" },
  },
  signals: {
    ActionInvoked: { signature: "us" },
    NotificationClosed: { signature: "uu" },
    NotificationReplied: { signature: "us" },
  },
});
