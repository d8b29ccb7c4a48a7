/**
 * A tool call's context as the person sees it before approving (docs/hooks.md, "Approvals with context: what you
 * see"), the same on the web page and the phone. Zod-free, DOM-free and React-free, like markdown.ts: the caller
 * passes its element factory (React's `createElement`). So:
 *
 * - a diff shows per file its path, a "new file" / "deleted" badge, its `+12 -4` counts and a warning when the file
 *   changed on disk since the agent read it, then its hunks as a table: old and new line numbers, the `+`/`-` sign
 *   kept as text beside the highlight, the rest of a long diff behind a native `<details>`, and the lines cut
 *   (`cut_lines`) said at its end;
 * - each file is one focusable, labelled region that scrolls sideways inside itself (a keyboard scrolls it too);
 * - a command shows whole in a code block with its working directory and the agent's reason; a URL as text (never a
 *   link); a tool's input as a code block;
 * - every text from the agent is a text node, each bidi control shown as a marked `<U+202E>` token (`bidiParts`);
 * - only the elements in CONTEXT_VIEW_ELEMENTS are made, with the props set here.
 */
import type { FileChange, ToolContext } from "./item-context.js";
import { type ElementFactory, type MarkdownChild, splitCut } from "./markdown.js";
import { bidiParts, showBidiControls } from "./text.js";

/** Every tag the renderer can make. No `a`, no `img`, nothing that loads or runs. */
export const CONTEXT_VIEW_ELEMENTS = [
  "div",
  "section",
  "p",
  "span",
  "mark",
  "pre",
  "code",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "details",
  "summary",
  "dl",
  "dt",
  "dd",
  "strong",
] as const;

/** A diff longer than this many rows shows its first rows and the rest behind "Show N more lines". */
export const DIFF_OPEN_ROWS = 40;

/** Where the context is shown: on the phone a cut part is on the desktop; on the web page it was cut when stored. */
export type ContextSurface = "web" | "phone";

/** One row of a file's diff table. */
export type DiffRow =
  | { kind: "hunk"; text: string }
  | { kind: "add"; new: number; text: string }
  | { kind: "del"; old: number; text: string }
  | { kind: "ctx"; old: number; new: number; text: string }
  /** A line that is not a change (`\ No newline at end of file`, anything unexpected): shown as it is. */
  | { kind: "note"; text: string };

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/**
 * A file's unified diff (`@@ -a,b +c,d @@` hunks, lines prefixed ` `, `+`, `-`) as rows with their line numbers.
 * Nothing is dropped: a line outside a hunk or with another prefix is a note row; only the empty string after a
 * final line feed is not a line.
 */
export function diffRows(diff: string): DiffRow[] {
  if (diff === "") return [];
  const lines = diff.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const line of lines) {
    const header = HUNK_HEADER.exec(line);
    if (header) {
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      inHunk = true;
      rows.push({ kind: "hunk", text: line });
      continue;
    }
    const sign = line[0];
    if (!inHunk || (sign !== " " && sign !== "+" && sign !== "-" && line !== "")) {
      rows.push({ kind: "note", text: line });
    } else if (sign === "+") {
      rows.push({ kind: "add", new: newLine++, text: line.slice(1) });
    } else if (sign === "-") {
      rows.push({ kind: "del", old: oldLine++, text: line.slice(1) });
    } else {
      // A context line (an empty one may have lost its space to a whitespace trim).
      rows.push({ kind: "ctx", old: oldLine++, new: newLine++, text: line.slice(1) });
    }
  }
  return rows;
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`;

/** "… 40 more lines on the desktop" (phone) or "… 40 more lines not shown" (web page). */
export function cutLinesText(count: number, surface: ContextSurface): string {
  return `… ${plural(count, "more line")} ${surface === "phone" ? "on the desktop" : "not shown"}`;
}

const STATUS_BADGE: Record<FileChange["status"], string | undefined> = {
  added: "new file",
  deleted: "deleted",
  modified: undefined,
};

/**
 * Renders a tool call's context with `h`, as one `div.tool-context`. `surface` words what was cut: the phone's copy
 * was cut to fit its envelope (the rest is on the desktop), the web page's only when it was stored.
 */
export function renderToolContext<N>(
  context: ToolContext,
  h: ElementFactory<N>,
  options: { surface?: ContextSurface } = {},
): N {
  const surface = options.surface ?? "web";

  /** Text with each bidi control as a visible token. */
  const text = (value: string): MarkdownChild<N>[] =>
    bidiParts(value).map((part) =>
      "control" in part
        ? h(
            "mark",
            { className: "bidi-control", title: `Hidden ${part.name} (${part.token.slice(1, -1)})` },
            part.token,
          )
        : part.text,
    );

  /** A code block (a command, the input): scrolls inside itself, focusable so a keyboard scrolls it. */
  const codeBlock = (value: string, className: string): N[] => {
    const { body, cut } = splitCut(value);
    const block = h(
      "pre",
      { className: `ctx-code ${className}`, dir: "ltr", tabIndex: 0 },
      h("code", null, ...text(body)),
    );
    if (cut === 0) return [block];
    const where = surface === "phone" ? "on the desktop" : "not shown";
    return [block, h("p", { className: "ctx-cut" }, `… ${plural(cut, "more character")} ${where}`)];
  };

  const numberCell = (value: number | undefined): N =>
    h("td", { className: "diff-num" }, value === undefined ? "" : String(value));

  const row = (entry: DiffRow, index: number): N => {
    switch (entry.kind) {
      case "hunk":
        return h(
          "tr",
          { key: index, className: "diff-hunk" },
          h("td", { className: "diff-hunk-text", colSpan: 4 }, ...text(entry.text)),
        );
      case "note":
        return h(
          "tr",
          { key: index, className: "diff-note" },
          numberCell(undefined),
          numberCell(undefined),
          h("td", { className: "diff-sign" }, ""),
          h("td", { className: "diff-text" }, ...text(entry.text)),
        );
      default: {
        const sign = entry.kind === "add" ? "+" : entry.kind === "del" ? "-" : " ";
        return h(
          "tr",
          { key: index, className: `diff-line diff-${entry.kind}` },
          numberCell(entry.kind === "add" ? undefined : entry.old),
          numberCell(entry.kind === "del" ? undefined : entry.new),
          h("td", { className: "diff-sign" }, sign),
          h("td", { className: "diff-text" }, ...text(entry.text)),
        );
      }
    }
  };

  /** The rows as a table; the header names the columns for a screen reader (hidden on screen). */
  const table = (rows: DiffRow[], offset: number, digits: number): N =>
    h(
      "table",
      { className: `diff-table diff-digits-${digits}` },
      h(
        "thead",
        { className: "diff-columns" },
        h(
          "tr",
          null,
          h("th", { scope: "col" }, "Old line"),
          h("th", { scope: "col" }, "New line"),
          h("th", { scope: "col" }, "Change"),
          h("th", { scope: "col" }, "Text"),
        ),
      ),
      h("tbody", null, ...rows.map((entry, index) => row(entry, offset + index))),
    );

  const file = (change: FileChange, index: number): N => {
    const rows = diffRows(change.diff);
    const highest = rows.reduce(
      (max, entry) => Math.max(max, "old" in entry ? entry.old : 0, "new" in entry ? entry.new : 0),
      0,
    );
    // The number columns as wide as the largest number, the same in both tables of a long diff.
    const digits = Math.min(7, Math.max(2, String(highest).length));
    const badge = STATUS_BADGE[change.status];
    const counts = `${plural(change.added, "line")} added, ${change.removed} removed`;
    const label = `${showBidiControls(change.path)}${badge ? ` (${badge})` : ""}: ${counts}`;
    const parts: N[] = [
      h(
        "div",
        { className: "diff-file-head" },
        h("span", { className: "diff-path", dir: "ltr" }, ...text(change.path)),
        ...(badge ? [h("span", { className: `diff-badge diff-badge-${change.status}` }, badge)] : []),
        h(
          "span",
          { className: "diff-stat" },
          h("span", { className: "diff-stat-add" }, `+${change.added}`),
          " ",
          h("span", { className: "diff-stat-del" }, `-${change.removed}`),
        ),
      ),
    ];
    if (change.changed_on_disk) {
      parts.push(
        h(
          "p",
          { className: "diff-warning" },
          h("strong", null, "Warning: "),
          "changed on disk since the agent read it. The diff is against the file as it is now.",
        ),
      );
    }
    if (rows.length > 0) {
      const open = rows.length > DIFF_OPEN_ROWS + 5 ? rows.slice(0, DIFF_OPEN_ROWS) : rows;
      parts.push(table(open, 0, digits));
      if (open.length < rows.length) {
        const rest = rows.slice(open.length);
        parts.push(
          h(
            "details",
            { className: "diff-more" },
            h("summary", null, `Show ${plural(rest.length, "more line")}`),
            table(rest, open.length, digits),
          ),
        );
      }
    } else if (!change.cut_lines) {
      parts.push(h("p", { className: "diff-empty" }, "No lines to show"));
    }
    if (change.cut_lines) parts.push(h("p", { className: "diff-cut" }, cutLinesText(change.cut_lines, surface)));
    return h("section", { key: index, className: "diff-file", tabIndex: 0, "aria-label": label }, ...parts);
  };

  const parts: N[] = [];
  const files = context.files ?? [];
  if (files.length > 1) {
    const added = files.reduce((sum, entry) => sum + entry.added, 0);
    const removed = files.reduce((sum, entry) => sum + entry.removed, 0);
    parts.push(h("p", { className: "diff-summary" }, `${files.length} files: +${added} -${removed}`));
  }
  parts.push(...files.map(file));
  if (context.command !== undefined) {
    parts.push(h("p", { className: "ctx-label" }, "Command"), ...codeBlock(context.command, "ctx-command"));
  }
  if (context.url !== undefined) {
    parts.push(
      h("p", { className: "ctx-label" }, "URL"),
      h("p", { className: "ctx-url", dir: "ltr" }, h("code", null, ...text(context.url))),
    );
  }
  if (context.json !== undefined) {
    parts.push(h("p", { className: "ctx-label" }, "Input"), ...codeBlock(context.json, "ctx-json"));
  }
  const facts: N[] = [];
  if (context.cwd !== undefined) {
    facts.push(h("dt", null, "Working directory"), h("dd", { dir: "ltr" }, h("code", null, ...text(context.cwd))));
  }
  if (context.reason !== undefined) {
    facts.push(h("dt", null, "Reason"), h("dd", { dir: "auto" }, ...text(context.reason)));
  }
  if (facts.length > 0) parts.push(h("dl", { className: "ctx-facts" }, ...facts));
  // Cut with nothing above saying so (a file left out, say): one line says it.
  const said =
    files.some((entry) => entry.cut_lines) ||
    [context.command, context.json].some((value) => value !== undefined && splitCut(value).cut > 0);
  if (context.truncated && !said) {
    parts.push(
      h("p", { className: "ctx-cut" }, surface === "phone" ? "… the rest is on the desktop" : "… part of it not shown"),
    );
  }
  return h("div", { className: `tool-context tool-context-${context.kind}` }, ...parts);
}
