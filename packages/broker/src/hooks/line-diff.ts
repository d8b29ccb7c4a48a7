/**
 * A unified diff of two texts by lines (docs/hooks.md, "Approvals with context"): Myers' greedy O(ND) algorithm on
 * what is left between the common first and last lines, so a small change to a large file costs little. Past
 * `MAX_EDIT_DISTANCE` differing lines the middle is shown as removed, then added: still a correct diff, only not
 * the shortest one.
 */

export interface LineDiff {
  /** The hunks: `@@ -a,b +c,d @@` lines followed by lines prefixed ` `, `-` or `+`, joined by `\n`. */
  diff: string;
  added: number;
  removed: number;
  /** Lines of the diff left out at its end to keep it within the size asked for (0: none). */
  cutLines: number;
}

/** The diff's text stops growing past this many characters: what a context can hold (256 KiB) and a little more. */
export const DIFF_TEXT_MAX = 300 * 1024;
/**
 * The work the shortest-script search may do, in line comparisons: about (lines of the middle) x (edit distance).
 * A 2 MiB file's middle gets a short search and shows as removed-then-added past it, so a hook answered inside the
 * broker never holds its event loop for long.
 */
const SEARCH_BUDGET = 2_000_000;

/** Beyond this many differing lines the middle is not searched for a shortest script. */
export const MAX_EDIT_DISTANCE = 2000;
const CONTEXT_LINES = 3;

type Op = { kind: " " | "-" | "+"; text: string };

/** A text's lines; a final newline ends the last line rather than starting an empty one. */
export function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The shortest edit script of `a` into `b` (Myers), or undefined past `maxD` edits. */
function myers(a: readonly string[], b: readonly string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxD);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
      let x = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, [...trace, next], offset);
    }
    v = next;
  }
  return undefined;
}

/** `trace[d]` is V as step d found it (V before step d); the last entry is V after the final step. */
function backtrack(a: readonly string[], b: readonly string[], trace: Int32Array[], offset: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let step = trace.length - 2; step > 0; step--) {
    const v = trace[step] as Int32Array;
    const k = x - y;
    const down = k === -step || (k !== step && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK] ?? 0;
    const prevY = prevX - prevK;
    // The snake after the edit, then the edit itself.
    while (x > (down ? prevX : prevX + 1) && y > (down ? prevY + 1 : prevY)) {
      ops.push({ kind: " ", text: a[--x] as string });
      y--;
    }
    if (down) ops.push({ kind: "+", text: b[--y] as string });
    else ops.push({ kind: "-", text: a[--x] as string });
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: " ", text: a[--x] as string });
    y--;
  }
  return ops.reverse();
}

/**
 * The unified diff of `before` into `after` with three lines of context; line numbers start at `firstLine` (1 for a
 * whole file; a window's first line for part of one).
 */
export function lineDiff(before: string, after: string, firstLine = 1, maxChars = DIFF_TEXT_MAX): LineDiff {
  const a = linesOf(before);
  const b = linesOf(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  const middleA = a.slice(prefix, a.length - suffix);
  const middleB = b.slice(prefix, b.length - suffix);
  const maxD = Math.min(MAX_EDIT_DISTANCE, Math.floor(SEARCH_BUDGET / Math.max(1, middleA.length + middleB.length)));
  const middle = myers(middleA, middleB, maxD) ?? [
    ...middleA.map((text): Op => ({ kind: "-", text })),
    ...middleB.map((text): Op => ({ kind: "+", text })),
  ];
  const ops: Op[] = [
    ...a.slice(0, prefix).map((text): Op => ({ kind: " ", text })),
    ...middle,
    ...a.slice(a.length - suffix).map((text): Op => ({ kind: " ", text })),
  ];
  return hunks(ops, firstLine, maxChars);
}

/**
 * Groups an edit script into hunks with CONTEXT_LINES of context, changes closer than twice that in one hunk. The
 * counts cover the whole script; the text stops at `maxChars`, and `cutLines` says how many lines it left out.
 */
function hunks(ops: readonly Op[], firstLine: number, maxChars: number): LineDiff {
  const out: string[] = [];
  let size = 0;
  let cutLines = 0;
  let added = 0;
  let removed = 0;
  for (const op of ops) {
    if (op.kind === "+") added++;
    if (op.kind === "-") removed++;
  }
  const changed = ops.map((op, index) => (op.kind === " " ? -1 : index)).filter((index) => index >= 0);
  // Old and new line numbers before each op.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = firstLine;
  let newLine = firstLine;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== "+") oldLine++;
    if (op.kind !== "-") newLine++;
  }
  const emit = (line: string): void => {
    if (cutLines > 0 || size + line.length + 1 > maxChars) {
      cutLines++;
      return;
    }
    out.push(line);
    size += line.length + 1;
  };
  let index = 0;
  while (index < changed.length) {
    const start = Math.max(0, (changed[index] as number) - CONTEXT_LINES);
    let last = changed[index] as number;
    while (index + 1 < changed.length && (changed[index + 1] as number) - last <= 2 * CONTEXT_LINES) {
      index++;
      last = changed[index] as number;
    }
    const end = Math.min(ops.length, last + CONTEXT_LINES + 1);
    if (cutLines > 0) {
      // Past the size: only the count of what is left out (its header and lines).
      cutLines += 1 + (end - start);
      index++;
      continue;
    }
    const slice = ops.slice(start, end);
    const oldCount = slice.filter((op) => op.kind !== "+").length;
    const newCount = slice.filter((op) => op.kind !== "-").length;
    // An empty side starts at the line before it, as diff(1) writes it (`-0,0` for a new file).
    const oldStart = oldCount === 0 ? (oldAt[start] as number) - 1 : (oldAt[start] as number);
    const newStart = newCount === 0 ? (newAt[start] as number) - 1 : (newAt[start] as number);
    emit(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const op of slice) emit(`${op.kind}${op.text}`);
    index++;
  }
  return { diff: out.join("\n"), added, removed, cutLines };
}
