// What an approval shows (docs/hooks.md, "Approvals with context"): the diff of a file change against the file on
// disk, flagged when the file is not what the agent read; the whole command with where and why; the URL; the input.
// Tool inputs are the agents' own shapes (Claude Code 2.1.330 Edit, MultiEdit, Write, NotebookEdit, Bash, WebFetch;
// Codex 0.169.0 apply_patch).
import { appendFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FileChange, ToolContext } from "@notify/contracts/item-context";
import { ITEM_CONTEXT_MAX_BYTES } from "@notify/contracts/item-context";
import { tempDir } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import {
  CHANGED_ON_DISK_SLACK_MS,
  lastReadMs,
  TRANSCRIPT_WAIT,
  toolContext,
  toolContextWithRead,
} from "../../src/hooks/tool-context.js";

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

describe("a file changed on disk since the agent last read it (Claude Code's transcript)", () => {
  const READ_AT = "2026-11-28T10:00:01.000Z";
  const readMs = Date.parse(READ_AT);
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const toolUse = (id: string, name: string, input: unknown) =>
    line({
      type: "assistant",
      message: { id: `msg_${id}`, role: "assistant", content: [{ type: "tool_use", id, name, input }] },
      timestamp: "2026-11-28T10:00:00.500Z",
    });
  const toolResult = (id: string, timestamp: string) =>
    line({
      type: "user",
      message: { role: "user", content: [{ tool_use_id: id, type: "tool_result", content: "done" }] },
      timestamp,
    });

  /** A project with `name`, and a transcript in which the agent read it (the result stamped READ_AT), as Claude Code writes. */
  function session(name: string, text: string) {
    const cwd = project({ [name]: text });
    const file = join(cwd, name);
    const transcriptPath = join(cwd, "session.jsonl");
    writeFileSync(transcriptPath, toolUse("t1", "Read", { file_path: file }) + toolResult("t1", READ_AT));
    /** Sets the file's last change `afterMs` after the read's result. */
    const changedAt = (afterMs: number) => utimesSync(file, new Date(readMs + afterMs), new Date(readMs + afterMs));
    /** The call being asked about, as Claude Code writes it behind the hook. */
    const asked = (name: string, input: unknown, id = "asked") =>
      appendFileSync(transcriptPath, toolUse(id, name, input));
    return { cwd, file, transcriptPath, record: { agent: "claude-code" as const, transcriptPath }, changedAt, asked };
  }

  it("Edit, MultiEdit and Write of a file changed after the read are flagged; the diff is still against the disk", () => {
    const { cwd, file, changedAt } = session("db.ts", "one\ntwo\n");
    changedAt(5_000);
    const edit = fileOf(toolContext("Edit", { file_path: file, old_string: "two", new_string: "2" }, cwd, readMs));
    expect(edit).toEqual({
      path: file,
      status: "modified",
      added: 1,
      removed: 1,
      diff: "@@ -1,2 +1,2 @@\n one\n-two\n+2",
      changed_on_disk: true,
    });
    const write = fileOf(toolContext("Write", { file_path: "db.ts", content: "one\n" }, cwd, readMs));
    expect(write).toMatchObject({ status: "modified", removed: 1, changed_on_disk: true });
    const multi = fileOf(
      toolContext("MultiEdit", { file_path: file, edits: [{ old_string: "one", new_string: "1" }] }, cwd, readMs),
    );
    expect(multi.changed_on_disk).toBe(true);
  });

  it("a file last changed before the read, or within the slack after it, is not flagged", () => {
    const { cwd, file, changedAt } = session("db.ts", "one\ntwo\n");
    const edit = () =>
      fileOf(toolContext("Edit", { file_path: file, old_string: "two", new_string: "2" }, cwd, readMs));
    changedAt(-60_000);
    expect(edit().changed_on_disk).toBeUndefined();
    changedAt(CHANGED_ON_DISK_SLACK_MS);
    expect(edit().changed_on_disk).toBeUndefined();
    changedAt(CHANGED_ON_DISK_SLACK_MS + 1);
    expect(edit().changed_on_disk).toBe(true);
  });

  it("the read comes from the transcript once the call asked about is written there, however late", async () => {
    const { cwd, file, record, changedAt, asked } = session("db.ts", "one\ntwo\n");
    changedAt(5_000);
    const input = { file_path: file, old_string: "two", new_string: "2" };
    // Claude Code writes the call (and the previous call's result) behind its hook: read again until it is there.
    let pauses = 0;
    const late = async () => {
      pauses++;
      if (pauses === 3) asked("Edit", input);
    };
    expect(await lastReadMs("Edit", input, cwd, record, late)).toBe(readMs);
    expect(pauses).toBe(3);
    expect(fileOf(await toolContextWithRead("Edit", input, cwd, record)).changed_on_disk).toBe(true);
  });

  it("the call asked about is the one with the same texts: an earlier call of the same tool is not it", async () => {
    const { cwd, file, transcriptPath, record, changedAt, asked } = session("db.ts", "one\ntwo\nthree\n");
    // The agent's first Edit ran (its result not written yet) and changed the file; its second is asked about.
    asked("Edit", { replace_all: false, file_path: file, old_string: "one", new_string: "1" }, "first");
    changedAt(5_000);
    const second = { file_path: file, old_string: "two", new_string: "2" };
    let pauses = 0;
    const late = async () => {
      pauses++;
      if (pauses === 2) {
        appendFileSync(transcriptPath, toolResult("first", "2026-11-28T10:00:07.000Z"));
        asked("Edit", { replace_all: false, ...second });
      }
    };
    expect(await lastReadMs("Edit", second, cwd, record, late)).toBe(Date.parse("2026-11-28T10:00:07.000Z"));
    expect(pauses).toBe(2);
  });

  it("the agent's own later write is its latest read: the file is as it knows it", async () => {
    const { cwd, file, transcriptPath, record, changedAt, asked } = session("db.ts", "one\ntwo\n");
    changedAt(5_000);
    appendFileSync(
      transcriptPath,
      toolUse("t2", "Write", { file_path: file, content: "one\ntwo\n" }) + toolResult("t2", "2026-11-28T10:00:06.000Z"),
    );
    asked("Write", { file_path: file, content: "x\n" });
    const context = await toolContextWithRead("Write", { file_path: file, content: "x\n" }, cwd, record);
    expect(fileOf(context).changed_on_disk).toBeUndefined();
  });

  it("not known, not flagged: no transcript, another agent, a new file, a file never read, the call never written", async () => {
    const { cwd, file, record, changedAt, asked } = session("db.ts", "one\ntwo\n");
    changedAt(5_000);
    const edit = { file_path: file, old_string: "two", new_string: "2" };
    const never = async () => {
      throw new Error("read again, though nothing can be known");
    };
    expect(fileOf(toolContext("Edit", edit, cwd)).changed_on_disk).toBeUndefined();
    expect(await lastReadMs("Edit", edit, cwd, { agent: "claude-code" }, never)).toBeUndefined();
    const gone = { agent: "claude-code" as const, transcriptPath: join(cwd, "none.jsonl") };
    expect(await lastReadMs("Edit", edit, cwd, gone, never)).toBeUndefined();
    expect(await lastReadMs("Edit", edit, cwd, { ...record, agent: "codex" }, never)).toBeUndefined();
    expect(await lastReadMs("Write", { file_path: join(cwd, "new.ts"), content: "n\n" }, cwd, record, never)).toBe(
      undefined,
    );
    expect(await lastReadMs("Bash", { command: "ls" }, cwd, record, never)).toBeUndefined();
    // The call never shows in the transcript: read again TRANSCRIPT_WAIT.retries times, then not known.
    let pauses = 0;
    const counted = async () => {
      pauses++;
    };
    expect(await lastReadMs("Edit", edit, cwd, record, counted)).toBeUndefined();
    expect(pauses).toBe(TRANSCRIPT_WAIT.retries);
    // A file the agent never read: its call written, no read before it.
    writeFileSync(join(cwd, "other.ts"), "a\n");
    const other = { file_path: join(cwd, "other.ts"), old_string: "a", new_string: "b" };
    asked("Edit", other);
    expect(await lastReadMs("Edit", other, cwd, record, never)).toBeUndefined();
  });
});
