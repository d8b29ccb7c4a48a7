// A notification server for the desktop bench: exports org.freedesktop.Notifications on a session bus, records the
// arrival time of every Notify call, and can press buttons (ActionInvoked) and close toasts (NotificationClosed).
import { EventEmitter } from "node:events";
import dbus from "dbus-next";

const now = () => performance.timeOrigin + performance.now();

class ServerInterface extends dbus.interface.Interface {
  constructor(server) {
    super("org.freedesktop.Notifications");
    this.server = server;
  }
  Notify(appName, replacesId, icon, summary, body, actions, hints, expireTimeout) {
    return this.server.onNotify({ appName, replacesId, icon, summary, body, actions, hints, expireTimeout });
  }
  CloseNotification(id) {
    this.server.emit("close", id);
    this.NotificationClosed(id, 3);
  }
  GetCapabilities() {
    return ["actions", "body"];
  }
  GetServerInformation() {
    return ["bench-server", "notify-bench", "1.0", "1.2"];
  }
  ActionInvoked(id, key) {
    return [id, key];
  }
  NotificationClosed(id, reason) {
    return [id, reason];
  }
}
ServerInterface.configureMembers({
  methods: {
    Notify: { inSignature: "susssasa{sv}i", outSignature: "u" },
    CloseNotification: { inSignature: "u", outSignature: "" },
    GetCapabilities: { inSignature: "", outSignature: "as" },
    GetServerInformation: { inSignature: "", outSignature: "ssss" },
  },
  signals: { ActionInvoked: { signature: "us" }, NotificationClosed: { signature: "uu" } },
});

export class RecordingServer extends EventEmitter {
  constructor() {
    super();
    this.setMaxListeners(0);
    this.calls = [];
    this.nextId = 1;
    this.iface = new ServerInterface(this);
    /** When set, every toast is closed (reason 1, expired) this many ms after it was shown. */
    this.closeAfterMs = undefined;
  }
  async connect(address) {
    this.bus = dbus.sessionBus({ busAddress: address });
    this.bus.on("error", () => {});
    await new Promise((resolve) => this.bus.once("connect", resolve));
    this.bus.export("/org/freedesktop/Notifications", this.iface);
    await this.bus.requestName("org.freedesktop.Notifications", 0);
  }
  onNotify(call) {
    const id = call.replacesId > 0 ? call.replacesId : this.nextId++;
    const recorded = { ...call, id, at: now() };
    this.calls.push(recorded);
    setImmediate(() => this.emit("notify", recorded));
    if (this.closeAfterMs !== undefined) setTimeout(() => this.iface.NotificationClosed(id, 1), this.closeAfterMs);
    return id;
  }
  invoke(id, key) {
    this.iface.ActionInvoked(id, key);
  }
  /** Resolves with the Notify call whose summary is `summary`. */
  waitFor(summary) {
    const found = this.calls.find((call) => call.summary === summary);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const listener = (call) => {
        if (call.summary !== summary) return;
        this.off("notify", listener);
        resolve(call);
      };
      this.on("notify", listener);
    });
  }
  disconnect() {
    this.bus?.disconnect();
  }
}
