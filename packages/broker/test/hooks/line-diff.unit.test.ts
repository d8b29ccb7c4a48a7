// The unified diff the approval context shows (docs/hooks.md, "Approvals with context"): every diff, applied to the
// old text, gives the new one; a small change to a large file is fast and shows only its hunks.
import { describe, expect, it } from "vitest";
import { DIFF_TEXT_MAX, lineDiff, linesOf } from "../../src/hooks/line-diff.js";

/** Applies a unified diff to `before`, checking every context and removed line against it. */
function apply(before: string, diff: string): string[] {
  const old = linesOf(before);
  const out: string[] = [];
  let at = 0;
  for (const line of diff === "" ? [] : diff.split("\n")) {
    const hunk = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(line);
    if (hunk) {
      const start = Number(hunk[2]) === 0 ? Number(hunk[1]) : Number(hunk[1]) - 1;
      expect(start).toBeGreaterThanOrEqual(at);
      while (at < start) out.push(old[at++] as string);
      continue;
    }
    if (line.startsWith(" ") || line.startsWith("-")) expect(old[at]).toBe(line.slice(1));
    if (line.startsWith(" ")) out.push(old[at++] as string);
    else if (line.startsWith("-")) at++;
    else out.push(line.slice(1));
  }
  while (at < old.length) out.push(old[at++] as string);
  return out;
}

describe("lineDiff", () => {
  it("3,000 random pairs: the diff turns the old text into the new one, and its counts are its lines", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16_807) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    const text = () =>
      Array.from({ length: Math.floor(random() * 25) }, () => "abcd"[Math.floor(random() * 4)] as string).join("\n");
    for (let round = 0; round < 3000; round++) {
      const before = text();
      const after = text();
      const { diff, added, removed } = lineDiff(before, after);
      expect(apply(before, diff)).toEqual(linesOf(after));
      const lines = diff === "" ? [] : diff.split("\n");
      expect(lines.filter((line) => line.startsWith("+")).length).toBe(added);
      expect(lines.filter((line) => line.startsWith("-")).length).toBe(removed);
    }
  });

  it("a one-line change: one hunk with three lines of context each side, numbered as diff(1) does", () => {
    const before = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join("\n");
    const after = before.replace("line 10", "line ten");
    expect(lineDiff(before, after)).toEqual({
      diff: "@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n line 12\n line 13",
      added: 1,
      removed: 1,
      cutLines: 0,
    });
    expect(lineDiff("", "a\nb\n")).toEqual({ diff: "@@ -0,0 +1,2 @@\n+a\n+b", added: 2, removed: 0, cutLines: 0 });
    expect(lineDiff("a\nb\n", "")).toEqual({ diff: "@@ -1,2 +0,0 @@\n-a\n-b", added: 0, removed: 2, cutLines: 0 });
    expect(lineDiff("same\n", "same\n")).toEqual({ diff: "", added: 0, removed: 0, cutLines: 0 });
  });

  it("a 2 MiB file rewritten whole: the text stops at its size, the counts and the cut lines cover everything", () => {
    const before = Array.from({ length: 35_000 }, (_, index) => `old line ${index} ${"x".repeat(40)}`).join("\n");
    const after = Array.from({ length: 35_000 }, (_, index) => `new line ${index} ${"y".repeat(40)}`).join("\n");
    expect(before.length).toBeGreaterThan(1_900_000);
    // The search is bounded by the file's size (the broker answers http hooks on its own event loop); how long it
    // takes is bench:context's to measure, not this test's.
    const { diff, added, removed, cutLines } = lineDiff(before, after);
    expect({ added, removed }).toEqual({ added: 35_000, removed: 35_000 });
    expect(diff.length).toBeLessThanOrEqual(DIFF_TEXT_MAX);
    expect(diff.split("\n").length + cutLines).toBe(1 + 70_000);
  });

  it("two changes far apart in a 60,000-line file: two small hunks, found fast", () => {
    const old = Array.from({ length: 60_000 }, (_, index) => `line ${index}`);
    const next = [...old];
    next[100] = "changed";
    next.splice(40_000, 0, "inserted");
    const started = performance.now();
    const { diff, added, removed } = lineDiff(old.join("\n"), next.join("\n"));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(diff.split("\n").filter((line) => line.startsWith("@@"))).toEqual([
      "@@ -98,7 +98,7 @@",
      "@@ -39998,6 +39998,7 @@",
    ]);
    expect({ added, removed }).toEqual({ added: 2, removed: 1 });
  });
});
