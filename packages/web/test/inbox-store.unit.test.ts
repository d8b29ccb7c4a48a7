import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/** The page's EventSource, as far as the store uses it: named listeners, readyState, close. */
class FakeEventSource {
  static readonly CLOSED = 2;
  static last: FakeEventSource | undefined;
  readyState = 1;
  closed = false;
  readonly listeners = new Map<string, ((event: { data: string }) => void)[]>();
  constructor(readonly url: string) {
    FakeEventSource.last = this;
  }
  addEventListener(name: string, listener: (event: { data: string }) => void) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }
  close() {
    this.closed = true;
  }
  emit(name: string, data: unknown = {}) {
    for (const listener of this.listeners.get(name) ?? []) listener({ data: JSON.stringify(data) });
  }
}

const note = (id: string, createdAt: string, updatedAt = createdAt, title = id) => ({
  id,
  type: "task_done",
  title,
  message: "",
  agent: "codex",
  status: "active",
  createdAt,
  updatedAt,
});

let snapshots: unknown[];
let inboxUrls: string[];

beforeEach(() => {
  vi.resetModules();
  vi.useFakeTimers({ now: 0 });
  snapshots = [];
  inboxUrls = [];
  vi.stubGlobal("document", { hidden: false });
  vi.stubGlobal("window", { setTimeout: (run: () => void, ms: number) => setTimeout(run, ms) });
  vi.stubGlobal("requestAnimationFrame", (run: () => void) => setTimeout(run, 16));
  vi.stubGlobal("EventSource", FakeEventSource);
  vi.stubGlobal("fetch", async (url: string) => {
    inboxUrls.push(url);
    return new Response(JSON.stringify(snapshots.shift()), { status: 200 });
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function started() {
  const { inboxStore } = await import("../src/api/inbox-store.js");
  const stop = inboxStore.subscribe(() => {});
  await vi.advanceTimersByTimeAsync(0);
  return { inboxStore, stop };
}

const titles = (items: { item: unknown }[]) => items.map((entry) => (entry.item as { title: string }).title);

describe("the inbox store", () => {
  it("reads the snapshot newest first, then follows the stream from its cursor", async () => {
    snapshots.push({
      notifications: [note("a", "2026-01-01T00:00:01Z"), note("b", "2026-01-01T00:00:03Z")],
      interactions: [],
      cursor: "c1",
    });
    const { inboxStore } = await started();
    expect(inboxUrls).toEqual(["/ui/api/inbox?limit=200"]);
    expect(inboxStore.snapshot().connection).toBe("live");
    expect(titles(inboxStore.snapshot().items)).toEqual(["b", "a"]);
    expect(FakeEventSource.last?.url).toBe("/ui/api/stream?since=c1");

    // A new item goes in by its time; applied once per frame, not per event.
    FakeEventSource.last?.emit("created", { kind: "notification", item: note("c", "2026-01-01T00:00:02Z") });
    expect(titles(inboxStore.snapshot().items)).toEqual(["b", "a"]);
    await vi.advanceTimersByTimeAsync(16);
    expect(titles(inboxStore.snapshot().items)).toEqual(["b", "c", "a"]);
  });

  it("an item is replaced only by a copy at least as new (replays change nothing)", async () => {
    snapshots.push({
      notifications: [note("a", "2026-01-01T00:00:01Z", "2026-01-01T00:00:05Z", "current")],
      interactions: [],
      cursor: "c1",
    });
    const { inboxStore } = await started();
    const stream = FakeEventSource.last;
    stream?.emit("changed", {
      kind: "notification",
      item: note("a", "2026-01-01T00:00:01Z", "2026-01-01T00:00:04Z", "older"),
    });
    await vi.advanceTimersByTimeAsync(16);
    expect(titles(inboxStore.snapshot().items)).toEqual(["current"]);
    stream?.emit("changed", {
      kind: "notification",
      item: note("a", "2026-01-01T00:00:01Z", "2026-01-01T00:00:06Z", "newer"),
    });
    await vi.advanceTimersByTimeAsync(16);
    expect(titles(inboxStore.snapshot().items)).toEqual(["newer"]);
  });

  it("a reset from the broker reads the snapshot again; a stream error shows reconnecting or failed", async () => {
    snapshots.push({ notifications: [note("a", "2026-01-01T00:00:01Z")], interactions: [], cursor: "c1" });
    snapshots.push({ notifications: [note("z", "2026-01-01T00:00:09Z")], interactions: [], cursor: "c2" });
    const { inboxStore } = await started();
    const first = FakeEventSource.last;
    first?.emit("reset");
    await vi.advanceTimersByTimeAsync(0);
    expect(first?.closed).toBe(true);
    expect(FakeEventSource.last?.url).toBe("/ui/api/stream?since=c2");
    expect(titles(inboxStore.snapshot().items)).toEqual(["z"]);

    const second = FakeEventSource.last;
    second?.emit("error");
    expect(inboxStore.snapshot().connection).toBe("reconnecting");
    if (second) second.readyState = FakeEventSource.CLOSED;
    second?.emit("error");
    expect(inboxStore.snapshot().connection).toBe("failed");
  });
});
