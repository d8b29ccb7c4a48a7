import { createElement, type ReactElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import {
  CONTEXT_VIEW_ELEMENTS,
  type ContextSurface,
  DIFF_OPEN_ROWS,
  diffRows,
  renderToolContext,
} from "../src/context-view.js";
import { checkItemContext, fitItemContext, type ToolContext } from "../src/item-context.js";
import type { ElementFactory } from "../src/markdown.js";

/** React's own factory and server renderer: the markup is what the web page and the phone put in the DOM. */
const h: ElementFactory<ReactElement> = (type, props, ...children) =>
  createElement(type, props, ...(children as ReactNode[]));
const html = (context: ToolContext, surface?: ContextSurface): string =>
  renderToStaticMarkup(renderToolContext(context, h, surface ? { surface } : {}));

/** A plain tree, to read rows and cells the way a person reads them. */
interface Node {
  type: string;
  props: Record<string, string | number | undefined>;
  children: (Node | string)[];
}
const tree: ElementFactory<Node> = (type, props, ...children) => ({ type, props: props ?? {}, children });
const textOf = (node: Node | string): string => (typeof node === "string" ? node : node.children.map(textOf).join(""));
const all = (node: Node, match: (node: Node) => boolean): Node[] => [
  ...(match(node) ? [node] : []),
  ...node.children.flatMap((child) => (typeof child === "string" ? [] : all(child, match))),
];
const byClass = (node: Node, name: string): Node[] =>
  all(node, (entry) =>
    String(entry.props.className ?? "")
      .split(" ")
      .includes(name),
  );
/** Each table row of a file as `old | new | sign | text` (a hunk header as itself). */
const rowsOf = (node: Node): string[] =>
  all(node, (entry) => entry.type === "tr" && String(entry.props.className ?? "").startsWith("diff-")).map((row) =>
    row.children.map((cell) => textOf(cell)).join(" | "),
  );

const tool = (raw: Record<string, unknown>): ToolContext => {
  const checked = checkItemContext(raw);
  if (!checked.ok) throw new Error(checked.error);
  return checked.value as ToolContext;
};

const DB_DIFF = [
  "@@ -10,4 +10,5 @@ export function connect() {",
  "   const pool = createPool();",
  "-  pool.max = 4;",
  "+  pool.max = 16;",
  "+  pool.idleMs = 30_000;",
  "   return pool;",
  "@@ -40,3 +41,2 @@",
  " }",
  "-// old",
  " export default connect;",
  "\\ No newline at end of file",
].join("\n");

describe("renderToolContext: a tool call's context, shown to approve it (issue 36, item 1)", () => {
  it("numbers each diff line as the file does, old and new, with the sign kept beside the highlight", () => {
    expect(
      diffRows(DB_DIFF).map((row) => [row.kind, "old" in row ? row.old : "", "new" in row ? row.new : ""]),
    ).toEqual([
      ["hunk", "", ""],
      ["ctx", 10, 10],
      ["del", 11, ""],
      ["add", "", 11],
      ["add", "", 12],
      ["ctx", 12, 13],
      ["hunk", "", ""],
      ["ctx", 40, 41],
      ["del", 41, ""],
      ["ctx", 42, 42],
      ["note", "", ""],
    ]);
    const view = renderToolContext(
      tool({ kind: "diff", files: [{ path: "src/db.ts", status: "modified", added: 2, removed: 2, diff: DB_DIFF }] }),
      tree,
    );
    expect(rowsOf(view)).toEqual([
      "@@ -10,4 +10,5 @@ export function connect() {",
      "10 | 10 |   |   const pool = createPool();",
      "11 |  | - |   pool.max = 4;",
      " | 11 | + |   pool.max = 16;",
      " | 12 | + |   pool.idleMs = 30_000;",
      "12 | 13 |   |   return pool;",
      "@@ -40,3 +41,2 @@",
      "40 | 41 |   | }",
      "41 |  | - | // old",
      "42 | 42 |   | export default connect;",
      " |  |  | \\ No newline at end of file",
    ]);
    expect(byClass(view, "diff-add")).toHaveLength(2);
    expect(byClass(view, "diff-del")).toHaveLength(2);
    // One focusable region per file, labelled with its path and counts; the header's summary.
    const [region] = all(view, (node) => node.type === "section");
    expect(region?.props).toMatchObject({ tabIndex: 0, "aria-label": "src/db.ts: 2 lines added, 2 removed" });
    expect(textOf(byClass(view, "diff-stat")[0] as Node)).toBe("+2 -2");
    expect(byClass(view, "diff-badge")).toEqual([]);
    expect(byClass(view, "diff-warning")).toEqual([]);
  });

  it("says a new file, a deleted one, a file changed on disk, and several files' total", () => {
    const view = renderToolContext(
      tool({
        kind: "diff",
        files: [
          { path: "src/new.ts", status: "added", added: 2, removed: 0, diff: "@@ -0,0 +1,2 @@\n+a\n+b" },
          { path: "src/old.ts", status: "deleted", added: 0, removed: 1, diff: "@@ -1 +0,0 @@\n-gone" },
          {
            path: "src/db.ts",
            status: "modified",
            added: 1,
            removed: 0,
            diff: "@@ -3 +3,2 @@\n x\n+y",
            changed_on_disk: true,
          },
        ],
      }),
      tree,
    );
    expect(byClass(view, "diff-badge").map(textOf)).toEqual(["new file", "deleted"]);
    expect(all(view, (node) => node.type === "section").map((node) => node.props["aria-label"])).toEqual([
      "src/new.ts (new file): 2 lines added, 0 removed",
      "src/old.ts (deleted): 0 lines added, 1 removed",
      "src/db.ts: 1 line added, 0 removed",
    ]);
    expect(byClass(view, "diff-warning").map(textOf)).toEqual([
      "Warning: changed on disk since the agent read it. The diff is against the file as it is now.",
    ]);
    expect(textOf(byClass(view, "diff-summary")[0] as Node)).toBe("3 files: +3 -1");
    expect(rowsOf(view).slice(1, 3)).toEqual([" | 1 | + | a", " | 2 | + | b"]);
  });

  it("a long diff shows its first lines and the rest behind a native details; a cut one says how many are left", () => {
    const lines = Array.from({ length: 300 }, (_, index) => `+line ${index + 1}`);
    const context = tool({
      kind: "diff",
      files: [
        { path: "big.txt", status: "added", added: 300, removed: 0, diff: `@@ -0,0 +1,300 @@\n${lines.join("\n")}` },
      ],
    });
    const web = renderToolContext(context, tree);
    const tables = all(web, (node) => node.type === "table");
    expect(tables).toHaveLength(2);
    expect(rowsOf(tables[0] as Node)).toHaveLength(DIFF_OPEN_ROWS);
    const [details] = all(web, (node) => node.type === "details");
    expect(textOf(all(details as Node, (node) => node.type === "summary")[0] as Node)).toBe("Show 261 more lines");
    // The numbers go on where the first table stopped, in columns as wide in both tables.
    expect(rowsOf(tables[1] as Node)[0]).toBe(" | 40 | + | line 40");
    expect(tables.map((table) => table.props.className)).toEqual([
      "diff-table diff-digits-3",
      "diff-table diff-digits-3",
    ]);
    expect(byClass(web, "diff-cut")).toEqual([]);

    // Cut for the phone's envelope: what is kept is numbered the same, the rest is said, per surface.
    const fitted = fitItemContext(context, 2000) as ToolContext;
    const cut = fitted.files?.[0]?.cut_lines as number;
    expect(cut).toBeGreaterThan(0);
    const phone = renderToolContext(fitted, tree, { surface: "phone" });
    expect(rowsOf(phone).length + cut).toBe(301);
    expect(byClass(phone, "diff-cut").map(textOf)).toEqual([`… ${cut} more lines on the desktop`]);
    expect(byClass(renderToolContext(fitted, tree), "diff-cut").map(textOf)).toEqual([`… ${cut} more lines not shown`]);
    // A short diff is not folded for a handful of lines.
    const short = tool({
      kind: "diff",
      files: [
        {
          path: "a",
          status: "added",
          added: 44,
          removed: 0,
          diff: `@@ -0,0 +1,44 @@\n${lines.slice(0, 44).join("\n")}`,
        },
      ],
    });
    expect(all(renderToolContext(short, tree), (node) => node.type === "details")).toEqual([]);
  });

  it("a command whole with its directory and reason; a URL as text; the input as code; a cut said", () => {
    const command = renderToolContext(
      tool({
        kind: "command",
        command: "rm -rf build && \\\n  npm run build",
        cwd: "/home/dev/shop",
        reason: "Rebuild from scratch",
      }),
      tree,
    );
    expect(textOf(all(command, (node) => node.type === "pre")[0] as Node)).toBe("rm -rf build && \\\n  npm run build");
    expect(all(command, (node) => node.type === "dt" || node.type === "dd").map(textOf)).toEqual([
      "Working directory",
      "/home/dev/shop",
      "Reason",
      "Rebuild from scratch",
    ]);
    const url = html(tool({ kind: "url", url: "https://evil.example/x?a=1&b=<2>" }));
    expect(url).toContain('<p class="ctx-url" dir="ltr"><code>https://evil.example/x?a=1&amp;b=&lt;2&gt;</code></p>');
    expect(url).not.toContain("href");
    const json = renderToolContext(tool({ kind: "json", json: '{\n  "query": "x"\n}' }), tree);
    expect(textOf(all(json, (node) => node.type === "code")[0] as Node)).toBe('{\n  "query": "x"\n}');

    const long = tool({ kind: "command", command: `echo ${"x".repeat(5000)}` });
    const fitted = fitItemContext(long, 1500) as ToolContext;
    const phone = renderToolContext(fitted, tree, { surface: "phone" });
    expect(textOf(all(phone, (node) => node.type === "pre")[0] as Node)).not.toContain("[cut:");
    expect(byClass(phone, "ctx-cut").map(textOf)).toEqual([
      expect.stringMatching(/^… \d+ more characters on the desktop$/),
    ]);
  });

  it("shows bidi controls as tokens in paths, diff lines, commands and URLs, and never makes a link or an image", () => {
    const hostile = tool({
      kind: "diff",
      files: [
        {
          path: "invoice\u202Etxt.exe",
          status: "modified",
          added: 2,
          removed: 0,
          diff: '@@ -1 +1,3 @@\n x\n+<img src="http://evil.example/p.png" onerror="alert(1)">\n+<a href="javascript:alert(1)">ok</a>\u2067',
        },
      ],
      command: "echo \u202Eok",
      url: "javascript:alert(1)",
      cwd: "/tmp/\u2066x",
      reason: "<script>alert(1)</script>",
    });
    const markup = html(hostile);
    const tags = [...markup.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)/g)].map((match) => match[1] as string);
    expect(tags.filter((tag) => !(CONTEXT_VIEW_ELEMENTS as readonly string[]).includes(tag))).toEqual([]);
    expect(tags).not.toContain("a");
    expect(tags).not.toContain("img");
    expect(tags).not.toContain("script");
    const attributes = new Set([...markup.matchAll(/\s([a-zA-Z-]+)="/g)].map((match) => match[1] as string));
    expect([...attributes].sort()).toEqual(
      ["aria-label", "class", "colSpan", "dir", "scope", "tabindex", "title"].sort(),
    );
    // No raw control reaches the page; each is a visible token, in the label too.
    expect(markup).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    const tokens = [...markup.matchAll(/<mark class="bidi-control"[^>]*>([^<]*)<\/mark>/g)].map((match) => match[1]);
    expect(tokens).toEqual(["&lt;U+202E&gt;", "&lt;U+2067&gt;", "&lt;U+202E&gt;", "&lt;U+2066&gt;"]);
    expect(markup).toContain('aria-label="invoice&lt;U+202E&gt;txt.exe: 2 lines added, 0 removed"');
    expect(markup).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });
});
