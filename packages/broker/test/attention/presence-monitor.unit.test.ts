import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PresenceStateName } from "@notify/contracts";
import { describe, expect, it } from "vitest";
import {
  combinePresence,
  PAGE_HIDDEN_GRACE_MS,
  PresenceMonitor,
  type PresenceSignal,
} from "../../src/attention/presence-monitor.js";
import { loadSettings } from "../../src/config/settings.js";
import { ManualClock } from "../../src/domain/clock.js";

// docs/routing.md, "Presence": how the sources combine, when `since` moves, and the page's activity window.

const signal = (state: PresenceStateName, locked = false): PresenceSignal => ({
  name: "x",
  state,
  detail: "",
  ...(locked ? { locked } : {}),
});

describe("combinePresence", () => {
  it.each([
    [[], "unknown"],
    [[signal("unknown"), signal("unknown")], "unknown"],
    [[signal("present"), signal("unknown")], "present"],
    [[signal("away"), signal("unknown")], "away"],
    // Idle on the bus but a page in use: the person is here.
    [[signal("away"), signal("present")], "present"],
    // A locked screen outranks a page that reported a moment ago.
    [[signal("away", true), signal("present")], "away"],
  ] as [PresenceSignal[], PresenceStateName][])("%j is %s", (signals, state) => {
    expect(combinePresence(signals)).toBe(state);
  });
});

describe("PresenceMonitor", () => {
  it("starts unknown since its start; a change of the combined state moves since and is one event", () => {
    const clock = new ManualClock();
    const start = clock.now();
    const monitor = new PresenceMonitor(clock, 300);
    const events: [PresenceStateName, PresenceStateName][] = [];
    monitor.onChange((current, previous) => events.push([previous.state, current.state]));
    expect(monitor.response()).toEqual({
      state: "unknown",
      since: new Date(start).toISOString(),
      sources: [{ name: "web", state: "unknown", detail: "no visible page has reported activity" }],
    });
    clock.advance(5_000);
    monitor.report({ name: "screensaver", state: "present", detail: "unlocked, idle for 0 s" });
    // A new detail without a new state is no event and keeps since.
    clock.advance(5_000);
    monitor.report({ name: "screensaver", state: "present", detail: "unlocked, idle for 5 s" });
    expect(monitor.snapshot().since).toBe(start + 5_000);
    expect(monitor.snapshot().sources[1]?.detail).toBe("unlocked, idle for 5 s");
    monitor.report({ name: "screensaver", state: "away", detail: "the screen is locked", locked: true });
    expect(monitor.snapshot()).toMatchObject({ state: "away", since: start + 10_000 });
    expect(events).toEqual([
      ["unknown", "present"],
      ["present", "away"],
    ]);
    // The API shows no internal flags.
    expect(monitor.response().sources[1]).toEqual({
      name: "screensaver",
      state: "away",
      detail: "the screen is locked",
    });
    void monitor.stop();
  });

  it("a page's activity vouches for awayAfterSeconds; hidden it stops after the grace; each page counts on its own", () => {
    const clock = new ManualClock();
    const monitor = new PresenceMonitor(clock, 300);
    monitor.pageActivity("page-one-1", true);
    expect(monitor.snapshot().state).toBe("present");
    clock.advance(200_000);
    monitor.pageActivity("page-two-2", true);
    expect(monitor.snapshot().sources[0]?.detail).toBe("2 visible pages reported activity 0 s ago");
    monitor.pageActivity("page-two-2", false);
    expect(monitor.snapshot().sources[0]?.detail).toBe(
      "a visible page reported activity 200 s ago; a page hidden 0 s ago still counts for 10 s",
    );
    clock.advance(PAGE_HIDDEN_GRACE_MS);
    monitor.refreshPages();
    expect(monitor.snapshot().sources[0]?.detail).toBe("a visible page reported activity 210 s ago");
    // 300 s after the first page's last report: stale.
    clock.advance(90_000);
    monitor.refreshPages();
    expect(monitor.snapshot().state).toBe("unknown");
    void monitor.stop();
  });

  it("a reload (issue 31, item 11): the page hidden as it unloads, its successor visible inside the grace", () => {
    const clock = new ManualClock();
    const monitor = new PresenceMonitor(clock, 300);
    const events: PresenceStateName[] = [];
    monitor.onChange((current) => events.push(current.state));
    monitor.pageActivity("before-reload", true);
    const since = monitor.snapshot().since;
    clock.advance(1_000);
    monitor.pageActivity("before-reload", false);
    expect(monitor.snapshot()).toMatchObject({
      state: "present",
      sources: [{ name: "web", state: "present", detail: "a page hidden 0 s ago still counts for 10 s" }],
    });
    clock.advance(PAGE_HIDDEN_GRACE_MS - 1);
    monitor.refreshPages();
    monitor.pageActivity("after-reload", true);
    clock.advance(PAGE_HIDDEN_GRACE_MS);
    monitor.refreshPages();
    expect(monitor.snapshot()).toMatchObject({ state: "present", since });
    expect(monitor.snapshot().sources[0]?.detail).toBe("a visible page reported activity 10 s ago");
    expect(events).toEqual(["present"]);
    // Hidden and not replaced: unknown once the grace is over, not before. Shown again inside it, it counts on.
    monitor.pageActivity("after-reload", false);
    clock.advance(5_000);
    monitor.pageActivity("after-reload", true);
    monitor.pageActivity("after-reload", false);
    clock.advance(PAGE_HIDDEN_GRACE_MS - 1);
    monitor.refreshPages();
    expect(monitor.snapshot().state).toBe("present");
    clock.advance(1);
    monitor.refreshPages();
    expect(monitor.snapshot().state).toBe("unknown");
    expect(events).toEqual(["present", "unknown"]);
    void monitor.stop();
  });

  it("a listener that throws stops neither the others nor the source", () => {
    const monitor = new PresenceMonitor(new ManualClock(), 300);
    const seen: string[] = [];
    monitor.onChange(() => {
      throw new Error("boom");
    });
    monitor.onChange((current) => seen.push(current.state));
    monitor.pageActivity("page-one-1", true);
    expect(seen).toEqual(["present"]);
    void monitor.stop();
  });
});

describe("config.json awayAfterSeconds (docs/config.md, 'config.json': default 300)", () => {
  it.each([
    [undefined, 300, []],
    [120, 120, []],
    [0, 300, ["config.json: awayAfterSeconds 0 <= 0 reset to 300"]],
    ["5", 300, ["config.json: awayAfterSeconds must be an integer; using 300"]],
  ] as [unknown, number, string[]][])("%j gives %d", (value, expected, warnings) => {
    const dataDir = mkdtempSync(join(tmpdir(), "notify-away-"));
    try {
      writeFileSync(join(dataDir, "config.json"), JSON.stringify({ authToken: "t", awayAfterSeconds: value }));
      const warned: string[] = [];
      expect(loadSettings(dataDir, { env: {}, warn: (line) => warned.push(line) }).awayAfterSeconds).toBe(expected);
      expect(warned).toEqual(warnings);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
