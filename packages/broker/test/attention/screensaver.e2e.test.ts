import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PresenceResponse } from "@notify/contracts";
import { afterEach, describe, expect, it } from "vitest";
import type { PresenceSnapshot } from "../../src/attention/presence-monitor.js";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { runCli } from "../cli/cli-harness.js";
import { dbusAvailable, SessionBus } from "../presentation/dbus-harness.js";
import { FakeScreenSaver } from "./screensaver-harness.js";

// Issue 24, "Must show": presence from a real dbus-daemon with a test-exported ScreenSaver toggling locked and idle.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "notify-presence-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Setup {
  bus: SessionBus;
  broker: RunningBroker;
  dataDir: string;
  changes: PresenceSnapshot[];
  presence(): Promise<PresenceResponse>;
  /** Polls GET /ui/api/presence until `check` holds (a deadline a loaded machine meets). */
  until(check: (presence: PresenceResponse) => boolean, timeoutMs?: number): Promise<PresenceResponse>;
}

/** A broker on a private session bus; awayAfterSeconds 2; the idle time read once a minute unless due sooner. */
async function setup(pollMs = 60_000): Promise<Setup> {
  const bus = new SessionBus(temp());
  const address = await bus.start();
  cleanups.push(() => bus.stop());
  const dataDir = temp();
  writeFileSync(join(dataDir, "config.json"), JSON.stringify({ awayAfterSeconds: 2 }));
  const broker = await startBroker({
    dataDir,
    port: 0,
    env: { PATH: process.env.PATH ?? "", DBUS_SESSION_BUS_ADDRESS: address },
    desktop: { retryMinMs: 50, retryMaxMs: 200, callTimeoutMs: 2000 },
    presence: { pollMs },
  });
  cleanups.push(() => broker.close());
  const changes: PresenceSnapshot[] = [];
  broker.presence.onChange((snapshot) => changes.push(snapshot));
  const presence = async () => {
    const response = await fetch(`${broker.url}/ui/api/presence`, {
      headers: { authorization: `Bearer ${broker.settings.authToken}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as PresenceResponse;
  };
  const until = async (check: (presence: PresenceResponse) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    let last = await presence();
    while (!check(last)) {
      if (Date.now() > deadline) throw new Error(`presence never matched: ${JSON.stringify(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      last = await presence();
    }
    return last;
  };
  return { bus, broker, dataDir, changes, presence, until };
}

const screensaver = (presence: PresenceResponse) => presence.sources.find((source) => source.name === "screensaver");

describe.runIf(dbusAvailable())("presence from the session bus's screen saver (real dbus-daemon)", () => {
  it("unknown without a screen saver; present once one comes; away when locked (ActiveChanged) and when idle", async () => {
    const { bus, broker, changes, until } = await setup();
    // No screen saver on the bus: a signal that says nothing.
    const none = await until((presence) => screensaver(presence)?.detail === "no screen saver on the session bus");
    expect(none).toMatchObject({
      state: "unknown",
      sources: expect.arrayContaining([expect.objectContaining({ name: "web", state: "unknown" })]),
    });

    // One takes the name: read at once (NameOwnerChanged), not at the next minute's poll.
    const saver = new FakeScreenSaver();
    await saver.connect(bus.address);
    cleanups.push(() => saver.disconnect());
    const present = await until((presence) => presence.state === "present");
    expect(screensaver(present)).toEqual({ name: "screensaver", state: "present", detail: "unlocked, idle for 0 s" });

    // Locked: ActiveChanged says so; away at once, the lock named.
    saver.setLocked(true);
    const locked = await until((presence) => presence.state === "away");
    expect(screensaver(locked)).toEqual({ name: "screensaver", state: "away", detail: "the screen is locked" });
    expect(Date.parse(locked.since)).toBeGreaterThan(Date.parse(present.since));

    // Unlocked and used: present; then no input past awayAfterSeconds (2 s): the broker reads again when the idle
    // time would cross it, not a minute later.
    saver.setLocked(false);
    await until((presence) => presence.state === "present");
    saver.idleMs = 5_000;
    const idle = await until((presence) => presence.state === "away", 15_000);
    expect(screensaver(idle)).toEqual({ name: "screensaver", state: "away", detail: "idle for 5 s" });

    // Each change of the combined state was one event for routing to re-evaluate on.
    expect(changes.map((change) => change.state)).toEqual(["present", "away", "present", "away"]);
    expect(broker.presence.snapshot().state).toBe("away");
  });

  it("notify presence prints the state and its sources; --json prints the API's object", async () => {
    const { bus, broker, dataDir, until } = await setup();
    const saver = new FakeScreenSaver();
    await saver.connect(bus.address);
    cleanups.push(() => saver.disconnect());
    saver.setLocked(true);
    const away = await until((presence) => presence.state === "away");
    const target = ["--port", String(broker.port), "--data-dir", dataDir];

    const json = await runCli(["presence", "--json", ...target]);
    expect(json.code).toBe(0);
    expect(json.stderr).toBe("");
    expect(JSON.parse(json.stdout)).toEqual(away);

    const text = await runCli(["presence", ...target]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(new RegExp(`^away since ${away.since.replaceAll(".", "\\.")} \\(\\d+ s ago\\)$`));
    expect(lines.slice(1)).toEqual([
      "  web          unknown  no visible page has reported activity",
      "  screensaver  away     the screen is locked",
    ]);
  });

  it("a screen saver without GetSessionIdleTime: locked is away, unlocked is unknown", async () => {
    const { bus, until } = await setup();
    const saver = new FakeScreenSaver(true);
    await saver.connect(bus.address);
    cleanups.push(() => saver.disconnect());
    const unlocked = await until((presence) => screensaver(presence)?.detail.startsWith("unlocked") === true);
    expect(unlocked.state).toBe("unknown");
    expect(screensaver(unlocked)?.detail).toBe("unlocked; the screen saver does not tell the idle time");
    saver.setLocked(true);
    await until((presence) => presence.state === "away");
  });

  it("the bus going away leaves the screen saver's reading unknown and the broker answering", async () => {
    const { bus, until } = await setup(200);
    const saver = new FakeScreenSaver();
    await saver.connect(bus.address);
    cleanups.push(() => saver.disconnect());
    saver.setLocked(true);
    await until((presence) => presence.state === "away");
    await bus.stop();
    const gone = await until((presence) => presence.state === "unknown");
    expect(screensaver(gone)?.state).toBe("unknown");
  });
});
