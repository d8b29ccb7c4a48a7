import { routingSummary } from "@notify/contracts/routing-summary";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/domain/clock.js";
import {
  DIGEST_MAX_LINES,
  type DigestEntry,
  DigestWindows,
  digestPayload,
  digestText,
} from "../../src/outbox/digest.js";

// Issue 37, item 4 (docs/outbound.md, "Less noise"): a digest route's windows, on a clock moved by hand.

const entry = (id: string, extra: Partial<DigestEntry> = {}): DigestEntry => ({
  notificationId: id,
  title: `Item ${id}`,
  priority: "normal",
  state: "open",
  ...extra,
});

describe("digest windows (manual clock)", () => {
  it("editable: the first item posts, later items of the window edit, an item after the window posts anew", () => {
    const clock = new ManualClock();
    const windows = new DigestWindows(() => clock.now());
    const first = windows.plan("r1", 60, entry("n1"), true);
    expect(first.action).toBe("post");
    windows.shown(first.window, "chat:1");
    // Seen again (a retry): the message already shows it.
    expect(windows.plan("r1", 60, entry("n1"), true).action).toBe("done");
    clock.advance(59_999);
    const second = windows.plan("r1", 60, entry("n2"), true);
    expect(second).toMatchObject({ action: "edit", window: first.window });
    expect(second.window.entries.map((line) => line.notificationId)).toEqual(["n1", "n2"]);
    windows.shown(second.window);
    // Another route has its own window.
    expect(windows.plan("r2", 60, entry("n2"), true).action).toBe("post");
    clock.advance(1);
    const third = windows.plan("r1", 60, entry("n3"), true);
    expect(third.action).toBe("post");
    expect(third.window).not.toBe(first.window);
    expect(third.window.entries.map((line) => line.notificationId)).toEqual(["n3"]);
  });

  it("editable: a post that failed is made again with every entry of the window", () => {
    const clock = new ManualClock();
    const windows = new DigestWindows(() => clock.now());
    const first = windows.plan("r1", 60, entry("n1"), true);
    clock.advance(1_000);
    // The first post failed (no handle): the next item posts, listing both.
    const second = windows.plan("r1", 60, entry("n2"), true);
    expect(second).toMatchObject({ action: "post", window: first.window });
    windows.shown(second.window, "chat:7");
    expect(windows.plan("r1", 60, entry("n1"), true).action).toBe("done");
  });

  it("not editable: items wait for the window's end, then the first due sends it once and the rest are done", () => {
    const clock = new ManualClock();
    const windows = new DigestWindows(() => clock.now());
    const opened = clock.now();
    const plans = ["n1", "n2", "n3"].map((id, index) => {
      clock.set(opened + index * 10_000);
      return windows.plan("r1", 60, entry(id), false);
    });
    for (const plan of plans) expect(plan).toMatchObject({ action: "wait", until: opened + 60_000 });
    clock.set(opened + 60_000);
    const due = windows.plan("r1", 60, entry("n1"), false);
    expect(due.action).toBe("send");
    expect(due.window.entries).toHaveLength(3);
    due.window.sent = true;
    expect(windows.plan("r1", 60, entry("n2"), false).action).toBe("done");
    expect(windows.plan("r1", 60, entry("n3"), false).action).toBe("done");
    // The next item opens the next window.
    const next = windows.plan("r1", 60, entry("n4"), false);
    expect(next).toMatchObject({ action: "wait", until: clock.now() + 60_000 });
    expect(next.window).not.toBe(due.window);
  });

  it("a settle marks the item's line (by notification or by question) and names the posted windows to edit", () => {
    const clock = new ManualClock();
    const windows = new DigestWindows(() => clock.now());
    const posted = windows.plan("r1", 60, entry("n1", { questionId: "int_1" }), true).window;
    windows.plan("r1", 60, entry("n2"), true);
    windows.shown(posted, "chat:1");
    expect(windows.upToDate(posted)).toBe(true);
    expect(windows.settle({ questionId: "int_1" }, "answered")).toEqual([posted]);
    expect(windows.upToDate(posted)).toBe(false);
    expect(windows.settle({ notificationId: "n2" }, "dismissed")).toEqual([posted]);
    // Settled once: a later status does not rewrite the line.
    expect(windows.settle({ notificationId: "n2" }, "resolved")).toEqual([]);
    expect(digestText(posted)).toEqual({
      title: "Notify: 2 items, 0 open",
      lines: "✓ Item n1 (answered)\n✓ Item n2 (dismissed)",
    });
    // A window not posted yet has nothing to edit; its line still changes.
    const waiting = windows.plan("r2", 60, entry("n3"), false).window;
    expect(windows.settle({ notificationId: "n3" }, "resolved")).toEqual([]);
    expect(waiting.entries[0]?.state).toBe("resolved");
  });

  it("the text lists at most DIGEST_MAX_LINES lines and counts the rest; the payload takes the highest priority", () => {
    const clock = new ManualClock();
    const windows = new DigestWindows(() => clock.now());
    let window = windows.plan("r1", 60, entry("n0"), false).window;
    for (let index = 1; index < DIGEST_MAX_LINES + 5; index++) {
      window = windows.plan("r1", 60, entry(`n${index}`, index === 7 ? { priority: "high" } : {}), false).window;
    }
    const { title, lines } = digestText(window);
    expect(title).toBe(`Notify: ${DIGEST_MAX_LINES + 5} items`);
    expect(lines.split("\n")).toHaveLength(DIGEST_MAX_LINES + 1);
    expect(lines.split("\n").at(-1)).toBe("… and 5 more");
    expect(digestPayload(window)).toMatchObject({ type: "digest", priority: "high", title, message: lines });
  });
});

describe("routingSummary with a digest", () => {
  it("says the window after the timing and the quiet hours", () => {
    expect(routingSummary({ digest_seconds: 300 })).toBe("at once; digest every 5 min");
    expect(routingSummary({ when: "away", quiet_hours: { start: "22:00", end: "07:00" }, digest_seconds: 60 })).toBe(
      "when away; quiet 22:00-07:00; digest every 1 min",
    );
    expect(routingSummary({ digest_seconds: 0 })).toBe("at once");
  });
});
