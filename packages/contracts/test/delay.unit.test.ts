import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backoffMs, delay, MAX_TIMER_MS } from "../src/retry.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("delay", () => {
  it("resolves after the time it was given, not before", async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = delay(1_000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });

  it("resolves as soon as the signal aborts, and at once for an aborted signal", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let done = false;
    const waiting = delay(60_000, controller.signal).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    controller.abort();
    await waiting;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await delay(60_000, controller.signal);
  });

  it("clamps a wait past the timer limit instead of firing at once", async () => {
    vi.useFakeTimers();
    let done = false;
    void delay(MAX_TIMER_MS * 4).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(done).toBe(false);
    expect(vi.getTimerCount()).toBe(1);
  });

  it("treats a negative or NaN wait as none", async () => {
    await delay(-5);
    await delay(Number.NaN);
  });
});

describe("backoffMs", () => {
  it("doubles from the base, stays under the cap, and jitters to 50-100%", () => {
    const options = { baseMs: 500, maxMs: 8_000 };
    expect(backoffMs(1, { ...options, random: () => 0.999999 })).toBe(500);
    expect(backoffMs(3, { ...options, random: () => 0.999999 })).toBe(2_000);
    expect(backoffMs(10, { ...options, random: () => 0.999999 })).toBe(8_000);
    expect(backoffMs(10, { ...options, random: () => 0 })).toBe(4_000);
  });
});

/** Every source file of every package, for the checks below. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name === "dist" ? [] : sources(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

describe("one delay helper and one backoff", () => {
  const packages = join(import.meta.dirname, "..", "..");
  const files = readdirSync(packages)
    .filter((name) => name !== "test-kit")
    .flatMap((name) => {
      const src = join(packages, name, "src");
      try {
        return sources(src);
      } catch {
        return [];
      }
    });

  it("finds the packages' sources", () => {
    expect(files.length).toBeGreaterThan(300);
  });

  it("no package writes its own promise around setTimeout to wait", () => {
    // A wait that resolves to a value (`setTimeout(resolve, ms, value)`) is a race's deadline, not a delay.
    const own = files.filter((file) =>
      /new Promise(<[^>]*>)?\(\(resolve\)\s*=>\s*setTimeout\(resolve,[^,\n]*(\([^)\n]*\))?[^,\n]*\)\)/.test(
        readFileSync(file, "utf8"),
      ),
    );
    expect(own).toEqual([]);
  });

  it("no package doubles a delay by hand (2 ** n) outside contracts/src/retry.ts", () => {
    const own = files.filter(
      (file) =>
        !file.endsWith(join("contracts", "src", "retry.ts")) &&
        /\b\w+\s*\*\s*2\s*\*\*\s*[\w(]/.test(readFileSync(file, "utf8")),
    );
    expect(own).toEqual([]);
  });
});
