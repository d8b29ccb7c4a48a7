import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startPresenceReporter } from "../src/presence-reporter.js";

/** The page's document and window, as far as the reporter uses them: visibility and event listeners. */
class FakeTarget {
  readonly listeners = new Map<string, Set<() => void>>();
  addEventListener(name: string, listener: () => void) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name)?.add(listener);
  }
  removeEventListener(name: string, listener: () => void) {
    this.listeners.get(name)?.delete(listener);
  }
  fire(name: string) {
    for (const listener of this.listeners.get(name) ?? []) listener();
  }
  count(): number {
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}

let page: FakeTarget & { visibilityState: "visible" | "hidden" };
let window_: FakeTarget;
let posts: { visible: boolean; at: number }[];
let keepalives: (boolean | undefined)[];
let everySeconds: number;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  page = Object.assign(new FakeTarget(), { visibilityState: "visible" as "visible" | "hidden" });
  window_ = new FakeTarget();
  posts = [];
  keepalives = [];
  everySeconds = 30;
  vi.stubGlobal("document", page);
  vi.stubGlobal("window", window_);
  vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
    posts.push({ visible: (JSON.parse(String(init.body)) as { visible: boolean }).visible, at: Date.now() });
    keepalives.push(init.keepalive);
    return new Response(JSON.stringify({ report_every_seconds: everySeconds }), { status: 200 });
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("presence reporter throttling", () => {
  it("reports once when shown, then at most once per interval while input keeps coming", async () => {
    const stop = startPresenceReporter();
    await vi.advanceTimersByTimeAsync(0);
    expect(posts).toEqual([{ visible: true, at: 1_000_000 }]);
    // Input every second for 70 s: one report at the end of each 30 s interval, not one per event.
    for (let second = 1; second <= 70; second += 1) {
      await vi.advanceTimersByTimeAsync(1000);
      window_.fire("pointermove");
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(posts.map((post) => post.at - 1_000_000)).toEqual([0, 30_000, 60_000]);
    stop();
  });

  it("input inside the interval is reported when the interval ends (a trailing report), once", async () => {
    const stop = startPresenceReporter();
    await vi.advanceTimersByTimeAsync(5000);
    window_.fire("keydown");
    window_.fire("keydown");
    await vi.advanceTimersByTimeAsync(24_999);
    expect(posts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(posts.map((post) => post.at - 1_000_000)).toEqual([0, 30_000]);
    // No input since: nothing more.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(posts).toHaveLength(2);
    stop();
  });

  it("follows the broker's report_every_seconds", async () => {
    everySeconds = 10;
    const stop = startPresenceReporter();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(10_000);
    window_.fire("wheel");
    await vi.advanceTimersByTimeAsync(0);
    expect(posts.map((post) => post.at - 1_000_000)).toEqual([0, 10_000]);
    stop();
  });

  it("hiding reports at once and cancels a pending trailing report; input while hidden is not reported", async () => {
    const stop = startPresenceReporter();
    await vi.advanceTimersByTimeAsync(1000);
    window_.fire("pointerdown");
    page.visibilityState = "hidden";
    page.fire("visibilitychange");
    window_.fire("pointerdown");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(posts).toEqual([
      { visible: true, at: 1_000_000 },
      { visible: false, at: 1_001_000 },
    ]);
    stop();
  });

  it("every report is sent keepalive: the hidden report of a page that unloads (closed, reloaded) still goes out", async () => {
    const stop = startPresenceReporter();
    await vi.advanceTimersByTimeAsync(0);
    page.visibilityState = "hidden";
    page.fire("visibilitychange");
    await vi.advanceTimersByTimeAsync(0);
    expect(posts.map((post) => post.visible)).toEqual([true, false]);
    expect(keepalives).toEqual([true, true]);
    stop();
  });

  it("stopping removes every listener and sends nothing more", async () => {
    const stop = startPresenceReporter();
    await vi.advanceTimersByTimeAsync(1000);
    window_.fire("keydown");
    stop();
    expect(page.count() + window_.count()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(posts).toHaveLength(1);
  });
});
