// What an approval shows (docs/hooks.md, "Approvals with context"): the diff of a file change against the file on
// disk, flagged when the file is not what the agent read; the whole command with where and why; the URL; the input.
// Tool inputs are the agents' own shapes (Claude Code 2.1.330 Edit, MultiEdit, Write, NotebookEdit, Bash, WebFetch;
// Codex 0.169.0 apply_patch).
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FileChange, ToolContext } from "@notify/contracts/item-context";
import { ITEM_CONTEXT_MAX_BYTES } from "@notify/contracts/item-context";
import { tempDir } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { CHANGED_ON_DISK_SLACK_MS, toolContext } from "../../src/hooks/tool-context.js";

const lines = (count: number, word = "line") => Array.from({ length: count }, (_, index) => `${word} ${index + 1}`);

function project(files: Record<string, string>): string {
  const dir = tempDir("tool-context-");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const fileOf = (context: unknown): FileChange => ((context as ToolContext).files ?? [])[0] as FileChange;

describe("toolContext", () => {
  it("Edit: the replacement against the file on disk, with its real line numbers", () => {
    const cwd = project({ "db.ts": `${lines(30).join("\n")}\n` });
    const context = toolContext(
      "Edit",
      { file_path: "db.ts", old_string: "line 20", new_string: "row 20\nrow 20b" },
      cwd,
    );
    expect(context).toMatchObject({ kind: "diff", truncated: false });
    expect(fileOf(context)).toEqual({
      path: "db.ts",
      status: "modified",
      added: 2,
      removed: 1,
      diff: "@@ -17,7 +17,8 @@\n line 17\n line 18\n line 19\n-line 20\n+row 20\n+row 20b\n line 21\n line 22\n line 23",
    });
  });

  it("Edit whose old text is no longer in the file: the agent's own change, flagged changed on disk", () => {
    const cwd = project({ "db.ts": "something else\n" });
    const file = fileOf(toolContext("Edit", { file_path: join(cwd, "db.ts"), old_string: "a", new_string: "b" }, cwd));
    expect(file).toMatchObject({ status: "modified", changed_on_disk: true, added: 1, removed: 1 });
    expect(file.diff).toBe("@@ -1,1 +1,1 @@\n-a\n+b");
  });

  it("MultiEdit applies its edits in order; replace_all replaces every match", () => {
    const cwd = project({ "a.txt": "x\ny\nx\n" });
    const file = fileOf(
      toolContext(
        "MultiEdit",
        {
          file_path: "a.txt",
          edits: [
            { old_string: "x", new_string: "z", replace_all: true },
            { old_string: "y", new_string: "w" },
          ],
        },
        cwd,
      ),
    );
    expect(file).toMatchObject({ added: 3, removed: 3, status: "modified" });
  });

  it("Write: a new file is all added; an existing one is diffed against it", () => {
    const cwd = project({ "old.md": "# Title\nbody\n" });
    expect(fileOf(toolContext("Write", { file_path: "new.md", content: "a\nb\n" }, cwd))).toEqual({
      path: "new.md",
      status: "added",
      added: 2,
      removed: 0,
      diff: "@@ -0,0 +1,2 @@\n+a\n+b",
    });
    expect(fileOf(toolContext("Write", { file_path: "old.md", content: "# Title\nnew body\n" }, cwd))).toMatchObject({
      status: "modified",
      added: 1,
      removed: 1,
    });
  });

  it("NotebookEdit: the cell's source before and after", () => {
    const notebook = { cells: [{ id: "c1", cell_type: "code", source: ["x = 1\n", "print(x)\n"] }] };
    const cwd = project({ "nb.ipynb": JSON.stringify(notebook) });
    const file = fileOf(
      toolContext("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "c1", new_source: "x = 2\nprint(x)\n" }, cwd),
    );
    expect(file).toMatchObject({ path: "nb.ipynb (cell c1)", added: 1, removed: 1 });
  });

  it("Codex apply_patch: added, updated (numbered against the file), moved and deleted files", () => {
    const cwd = project({ "app.py": `${lines(10).join("\n")}\n`, "gone.txt": "bye\n" });
    const patch = [
      "*** Begin Patch",
      "*** Add File: hello.txt",
      "+Hello",
      "+world",
      "*** Update File: app.py",
      "*** Move to: main.py",
      "@@",
      " line 6",
      "-line 7",
      "+line seven",
      " line 8",
      "*** Delete File: gone.txt",
      "*** End Patch",
    ].join("\n");
    const context = toolContext("apply_patch", { command: ["apply_patch", patch] }, cwd) as ToolContext;
    expect(context.kind).toBe("diff");
    const [added, updated, deleted] = context.files ?? [];
    expect(added).toMatchObject({
      path: "hello.txt",
      status: "added",
      added: 2,
      diff: "@@ -0,0 +1,2 @@\n+Hello\n+world",
    });
    expect(updated).toMatchObject({ path: "app.py → main.py", status: "modified", added: 1, removed: 1 });
    expect(updated?.diff.split("\n")[0]).toBe("@@ -4,7 +4,7 @@");
    expect(updated?.changed_on_disk).toBeUndefined();
    expect(deleted).toMatchObject({ path: "gone.txt", status: "deleted", removed: 1 });
    // The same patch against a file that changed: flagged.
    const stale = project({ "app.py": "other\n" });
    const again = toolContext("apply_patch", { input: patch }, stale) as ToolContext;
    expect(again.files?.[1]).toMatchObject({ changed_on_disk: true });
  });

  it("a shell command with its directory and reason; a fetch's URL; anything else as JSON", () => {
    expect(toolContext("Bash", { command: "rm -rf build", description: "Clean the build" }, "/w")).toEqual({
      kind: "command",
      command: "rm -rf build",
      cwd: "/w",
      reason: "Clean the build",
      truncated: false,
    });
    expect(toolContext("WebFetch", { url: "https://example.com/x", prompt: "Read the docs" }, "/w")).toEqual({
      kind: "url",
      url: "https://example.com/x",
      reason: "Read the docs",
      truncated: false,
    });
    expect(toolContext("mcp__db__query", { sql: "select 1" }, "/w")).toEqual({
      kind: "json",
      json: '{\n  "sql": "select 1"\n}',
      truncated: false,
    });
    expect(toolContext("Nothing", {}, "/w")).toBeUndefined();
  });

  it("a 1 MiB file rewritten: cut to the stored limit, its counts whole, and quick", () => {
    const before = `${lines(80_000, "old line").join("\n")}\n`;
    const cwd = project({ "big.txt": before });
    const after = `${lines(80_000, "new line").join("\n")}\n`;
    expect(after.length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    const context = toolContext("Write", { file_path: "big.txt", content: after }, cwd) as ToolContext;
    expect(performance.now() - started).toBeLessThan(5000);
    expect(context.truncated).toBe(true);
    const file = fileOf(context);
    expect(file).toMatchObject({ added: 80_000, removed: 80_000 });
    expect(file.cut_lines).toBeGreaterThan(0);
    expect(new TextEncoder().encode(JSON.stringify({ ...context, bytes: 0 })).length).toBeLessThanOrEqual(
      ITEM_CONTEXT_MAX_BYTES,
    );
  });
});

describe("toolContext: a file changed on disk since the agent read it (Claude Code's transcript)", () => {
  const READ_AT = "2026-11-28T10:00:01.000Z";
  const readMs = Date.parse(READ_AT);

  /** A project with `name` and a transcript whose agent read it (its result stamped READ_AT), as Claude Code writes. */
  function session(name: string, text: string) {
    const cwd = project({ [name]: text });
    const file = join(cwd, name);
    const transcriptPath = join(cwd, "session.jsonl");
    const line = (value: unknown) => `${JSON.stringify(value)}\n`;
    writeFileSync(
      transcriptPath,
      line({
        type: "assistant",
        message: {
          id: "msg_1",
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: file } }],
        },
        timestamp: "2026-11-28T10:00:00.500Z",
      }) +
        line({
          type: "user",
          message: { role: "user", content: [{ tool_use_id: "t1", type: "tool_result", content: "1\tone" }] },
          timestamp: READ_AT,
        }),
    );
    /** Sets the file's last change `afterMs` after the read's result. */
    const changedAt = (afterMs: number) => utimesSync(file, new Date(readMs + afterMs), new Date(readMs + afterMs));
    return { cwd, file, record: { agent: "claude-code" as const, transcriptPath }, changedAt };
  }

  it("Edit and Write of a file changed after the agent's read are flagged; their diff is still against the disk", () => {
    const { cwd, file, record, changedAt } = session("db.ts", "one\ntwo\n");
    changedAt(5_000);
    const edit = fileOf(toolContext("Edit", { file_path: file, old_string: "two", new_string: "2" }, cwd, record));
    expect(edit).toEqual({
      path: file,
      status: "modified",
      added: 1,
      removed: 1,
      diff: "@@ -1,2 +1,2 @@\n one\n-two\n+2",
      changed_on_disk: true,
    });
    // A relative path is the file under the working directory.
    const write = fileOf(toolContext("Write", { file_path: "db.ts", content: "one\n" }, cwd, record));
    expect(write).toMatchObject({ status: "modified", removed: 1, changed_on_disk: true });
    const multi = fileOf(
      toolContext("MultiEdit", { file_path: file, edits: [{ old_string: "one", new_string: "1" }] }, cwd, record),
    );
    expect(multi.changed_on_disk).toBe(true);
  });

  it("a file last changed before the read, or within the slack after it, is not flagged", () => {
    const { cwd, file, record, changedAt } = session("db.ts", "one\ntwo\n");
    const edit = () =>
      fileOf(toolContext("Edit", { file_path: file, old_string: "two", new_string: "2" }, cwd, record));
    changedAt(-60_000);
    expect(edit().changed_on_disk).toBeUndefined();
    changedAt(CHANGED_ON_DISK_SLACK_MS);
    expect(edit().changed_on_disk).toBeUndefined();
    changedAt(CHANGED_ON_DISK_SLACK_MS + 1);
    expect(edit().changed_on_disk).toBe(true);
  });

  it("the agent's own later write is its latest read: the file is as it knows it", () => {
    const { cwd, file, record, changedAt } = session("db.ts", "one\ntwo\n");
    changedAt(5_000);
    const line = (value: unknown) => `${JSON.stringify(value)}\n`;
    writeFileSync(
      record.transcriptPath,
      line({
        type: "assistant",
        message: {
          id: "msg_2",
          role: "assistant",
          content: [{ type: "tool_use", id: "t2", name: "Write", input: { file_path: file, content: "one\ntwo\n" } }],
        },
        timestamp: "2026-11-28T10:00:05.000Z",
      }) +
        line({
          type: "user",
          message: { role: "user", content: [{ tool_use_id: "t2", type: "tool_result", content: "done" }] },
          timestamp: "2026-11-28T10:00:06.000Z",
        }),
      { flag: "a" },
    );
    expect(
      fileOf(toolContext("Write", { file_path: file, content: "x\n" }, cwd, record)).changed_on_disk,
    ).toBeUndefined();
  });

  it("not known, not flagged: no transcript, a file the agent never read, another agent, a new file", () => {
    const { cwd, file, record, changedAt } = session("db.ts", "one\ntwo\n");
    changedAt(5_000);
    const edit = { file_path: file, old_string: "two", new_string: "2" };
    expect(fileOf(toolContext("Edit", edit, cwd)).changed_on_disk).toBeUndefined();
    expect(fileOf(toolContext("Edit", edit, cwd, { agent: "claude-code" })).changed_on_disk).toBeUndefined();
    const gone = { agent: "claude-code" as const, transcriptPath: join(cwd, "none.jsonl") };
    expect(fileOf(toolContext("Edit", edit, cwd, gone)).changed_on_disk).toBeUndefined();
    expect(fileOf(toolContext("Edit", edit, cwd, { ...record, agent: "codex" })).changed_on_disk).toBeUndefined();
    writeFileSync(join(cwd, "other.ts"), "a\n");
    const other = join(cwd, "other.ts");
    utimesSync(other, new Date(readMs + 5_000), new Date(readMs + 5_000));
    expect(
      fileOf(toolContext("Edit", { file_path: other, old_string: "a", new_string: "b" }, cwd, record)).changed_on_disk,
    ).toBeUndefined();
    expect(fileOf(toolContext("Write", { file_path: join(cwd, "new.ts"), content: "n\n" }, cwd, record))).toEqual({
      path: join(cwd, "new.ts"),
      status: "added",
      added: 1,
      removed: 0,
      diff: "@@ -0,0 +1,1 @@\n+n",
    });
  });
});
