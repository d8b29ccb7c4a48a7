// A finished turn read from the agents' own transcripts (docs/api.md, "Item context"): the fixtures are real files
// written by Claude Code 2.1.330 and Codex 0.169.0 against the loopback model (trimmed to their message lines); the
// longer sessions below append lines of the very shapes those files hold.
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { fileTouch, readTurn, TURN_TAIL_MESSAGES } from "../../src/hooks/transcript.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/transcripts/", import.meta.url));
const LAST = "Turn 1 done.\n\n- a\n- b\n\n```js\nx()\n```";

function copy(name: string): string {
  const path = join(tempDir("transcript-"), name);
  copyFileSync(join(FIXTURES, name), path);
  return path;
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const claudeUser = (content: unknown, timestamp: string, extra: Record<string, unknown> = {}) =>
  line({ type: "user", message: { role: "user", content }, timestamp, ...extra });
const claudeAssistant = (id: string, content: unknown[], timestamp: string) =>
  line({ type: "assistant", message: { id, role: "assistant", content }, timestamp });

describe("readTurn", () => {
  it("Claude Code: the prompt before the last message, and the turn's start", () => {
    const turn = readTurn("claude-code", copy("claude-code-2.1.330.jsonl"), LAST);
    expect(turn).toEqual({
      startedMs: Date.parse("2026-11-28T02:34:33.368Z"),
      messages: [{ role: "user", text: "say hello" }],
      truncated: false,
      complete: true,
    });
  });

  it("Codex: the person's prompt (not the environment context), and task_started as the start", () => {
    const raw = readFileSync(join(FIXTURES, "codex-0.169.0.jsonl"), "utf8");
    const last = "Turn 2 done.\n\n- a\n- b\n\n```js\nx()\n```";
    const turn = readTurn("codex", copy("codex-0.169.0.jsonl"), last);
    expect(raw).toContain("<environment_context>");
    expect(turn).toEqual({
      startedMs: Date.parse("2026-11-28T02:34:34.829Z"),
      messages: [{ role: "user", text: "say hello" }],
      truncated: false,
      complete: true,
    });
  });

  it("Codex: a follow-up reply wrapped in <hook_prompt> reads as the person's words and starts the turn", () => {
    const path = copy("codex-0.169.0.jsonl");
    appendFileSync(
      path,
      line({ timestamp: "2026-11-28T02:40:00.000Z", type: "event_msg", payload: { type: "task_started" } }) +
        line({
          timestamp: "2026-11-28T02:40:00.100Z",
          type: "response_item",
          payload: {
            type: "message",
            role: "user",
            content: [
              { type: "input_text", text: '<hook_prompt hook_run_id="stop:1">Now run the tests.</hook_prompt>' },
            ],
          },
        }) +
        line({
          timestamp: "2026-11-28T02:40:09.000Z",
          type: "response_item",
          payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: "All green." }] },
        }),
    );
    const turn = readTurn("codex", path, "All green.");
    expect(turn?.startedMs).toBe(Date.parse("2026-11-28T02:40:00.000Z"));
    expect(turn?.messages.slice(-2)).toEqual([
      { role: "assistant", text: "Turn 2 done.\n\n- a\n- b\n\n```js\nx()\n```" },
      { role: "user", text: "Now run the tests." },
    ]);
  });

  it("Claude Code: tool results and reminders are not prompts; one message's blocks are one message", () => {
    const path = copy("claude-code-2.1.330.jsonl");
    appendFileSync(
      path,
      claudeUser("fix the failing test", "2026-11-28T03:00:00.000Z") +
        claudeUser("<system-reminder>\nnothing for the person</system-reminder>", "2026-11-28T03:00:00.500Z") +
        claudeAssistant("msg_a", [{ type: "text", text: "Looking at it." }], "2026-11-28T03:00:01.000Z") +
        claudeAssistant(
          "msg_a",
          [{ type: "tool_use", id: "t1", name: "Bash", input: {} }],
          "2026-11-28T03:00:01.100Z",
        ) +
        claudeUser([{ type: "tool_result", tool_use_id: "t1", content: "ok" }], "2026-11-28T03:00:30.000Z") +
        claudeUser("meta", "2026-11-28T03:00:31.000Z", { isMeta: true }) +
        // A follow-up reply, as Claude Code 2.1.330 writes a Stop hook's block (seen in follow-up-e2e's transcript).
        claudeUser("Stop hook feedback:\nNow run the tests.", "2026-11-28T03:00:40.000Z", { isMeta: true }) +
        claudeAssistant("msg_b", [{ type: "text", text: "First part." }], "2026-11-28T03:01:00.000Z") +
        claudeAssistant("msg_b", [{ type: "text", text: "Second part." }], "2026-11-28T03:01:00.100Z") +
        claudeAssistant("msg_c", [{ type: "text", text: "Fixed." }], "2026-11-28T03:01:05.000Z"),
    );
    const turn = readTurn("claude-code", path, "Fixed.");
    // The turn began with the reply that continued it, not with the tool result before it.
    expect(turn?.startedMs).toBe(Date.parse("2026-11-28T03:00:40.000Z"));
    expect(turn?.messages.slice(-4)).toEqual([
      { role: "user", text: "fix the failing test" },
      { role: "assistant", text: "Looking at it." },
      { role: "user", text: "Now run the tests." },
      { role: "assistant", text: "First part.\n\nSecond part." },
    ]);
  });

  it("keeps the last few messages, cuts a long one with the marker, and says so", () => {
    const path = join(tempDir("transcript-"), "long.jsonl");
    let text = "";
    for (let index = 0; index < 20; index++) {
      text += claudeUser(`prompt ${index}`, `2026-11-28T03:00:${String(index).padStart(2, "0")}.000Z`);
    }
    text += claudeAssistant("msg_long", [{ type: "text", text: "x".repeat(10_000) }], "2026-11-28T03:01:00.000Z");
    text += claudeAssistant("msg_last", [{ type: "text", text: "Done." }], "2026-11-28T03:01:01.000Z");
    writeFileSync(path, text);
    const turn = readTurn("claude-code", path, "Done.");
    expect(turn?.messages).toHaveLength(TURN_TAIL_MESSAGES);
    expect(turn?.truncated).toBe(true);
    expect(turn?.messages.at(-1)?.text).toMatch(/… \[cut: \d+ more characters not shown\]$/);
    expect(turn?.messages[0]?.text).toBe("prompt 15");
  });

  it("reads only the file's end; a torn first line and lines that are not JSON are skipped", () => {
    const path = join(tempDir("transcript-"), "big.jsonl");
    const filler = claudeUser("y".repeat(2000), "2026-11-28T02:00:00.000Z");
    writeFileSync(
      path,
      filler.repeat(400) +
        "{not json\n" +
        claudeUser("the real prompt", "2026-11-28T03:00:00.000Z") +
        claudeAssistant("m", [{ type: "text", text: "Done." }], "2026-11-28T03:00:02.000Z"),
    );
    const turn = readTurn("claude-code", path, "Done.", 4096);
    expect(turn?.messages.at(-1)).toEqual({ role: "user", text: "the real prompt" });
    expect(turn?.startedMs).toBe(Date.parse("2026-11-28T03:00:00.000Z"));
  });

  it("a transcript that does not end with the agent's last message yet is not complete (the hook reads again)", () => {
    const turn = readTurn("claude-code", copy("claude-code-2.1.330.jsonl"), "Turn 2 done.");
    expect(turn?.complete).toBe(false);
    expect(turn?.messages.at(-1)).toEqual({ role: "assistant", text: LAST });
  });

  it("a missing file, or an agent whose transcript is not known: nothing", () => {
    expect(readTurn("claude-code", join(tempDir("transcript-"), "gone.jsonl"), "x")).toBeUndefined();
    expect(readTurn("gemini" as never, copy("claude-code-2.1.330.jsonl"), "x")).toBeUndefined();
  });
});

/** The recorded session's file (Read, then Edit after the file changed on disk, then Write), moved under `dir`. */
function filesTranscript(dir: string): string {
  const path = join(dir, "session.jsonl");
  const raw = readFileSync(join(FIXTURES, "claude-code-2.1.330-files.jsonl"), "utf8");
  writeFileSync(path, raw.replaceAll("/tmp/PROJECT", dir));
  return path;
}

const toolUse = (id: string, name: string, input: unknown, timestamp: string) =>
  claudeAssistant(`msg_${id}`, [{ type: "tool_use", id, name, input }], timestamp);
const toolResult = (id: string, timestamp: string, extra: Record<string, unknown> = {}) =>
  claudeUser([{ tool_use_id: id, type: "tool_result", content: "ok", ...extra }], timestamp);

describe("fileTouch", () => {
  it("Claude Code: the result of the last Read, Edit or Write of the file", () => {
    const dir = tempDir("touch-");
    const path = filesTranscript(dir);
    // Read's result 08:42:40.687, Edit's 08:42:41.116, Write's 08:42:41.382 (each stamped after its tool ran).
    expect(fileTouch("claude-code", path, join(dir, "a.txt"))).toEqual({
      touchedMs: Date.parse("2026-11-28T08:42:41.382Z"),
      pending: [],
    });
    expect(fileTouch("claude-code", path, join(dir, "b.txt"))).toEqual({ pending: [] });
    expect(fileTouch("codex", path, join(dir, "a.txt"))).toBeUndefined();
    expect(fileTouch("claude-code", join(dir, "missing.jsonl"), join(dir, "a.txt"))).toBeUndefined();
  });

  it("a failed call is not a read, a call without its result is pending, another tool naming the path is neither", () => {
    const dir = tempDir("touch-");
    const path = join(dir, "session.jsonl");
    const file = join(dir, "src", "db.ts");
    writeFileSync(
      path,
      toolUse("t1", "Read", { file_path: file }, "2026-11-28T10:00:00.000Z") +
        toolResult("t1", "2026-11-28T10:00:01.000Z") +
        toolUse("t2", "Edit", { file_path: file, old_string: "a", new_string: "b" }, "2026-11-28T10:00:02.000Z") +
        toolResult("t2", "2026-11-28T10:00:03.000Z", { is_error: true }) +
        toolUse("t3", "Grep", { pattern: "x", path: file }, "2026-11-28T10:00:04.000Z") +
        toolResult("t3", "2026-11-28T10:00:05.000Z") +
        toolUse("t4", "Read", { file_path: `${dir}/src/../src/db.ts` }, "2026-11-28T10:00:06.000Z"),
    );
    expect(fileTouch("claude-code", path, file)).toEqual({
      touchedMs: Date.parse("2026-11-28T10:00:01.000Z"),
      pending: [{ name: "Read", input: { file_path: `${dir}/src/../src/db.ts` } }],
    });
    appendFileSync(path, toolResult("t4", "2026-11-28T10:00:07.000Z"));
    expect(fileTouch("claude-code", path, file)).toEqual({
      touchedMs: Date.parse("2026-11-28T10:00:07.000Z"),
      pending: [],
    });
    // NotebookEdit names its file `notebook_path`.
    appendFileSync(
      path,
      toolUse("t5", "NotebookEdit", { notebook_path: file, new_source: "x" }, "2026-11-28T10:00:08.000Z") +
        toolResult("t5", "2026-11-28T10:00:09.000Z") +
        toolUse("t6", "Edit", { file_path: file, old_string: "b", new_string: "c" }, "2026-11-28T10:00:10.000Z"),
    );
    expect(fileTouch("claude-code", path, file)).toEqual({
      touchedMs: Date.parse("2026-11-28T10:00:09.000Z"),
      pending: [{ name: "Edit", input: { file_path: file, old_string: "b", new_string: "c" } }],
    });
  });

  it("reads only the tail: a read further back than the bytes read is not known", () => {
    const dir = tempDir("touch-");
    const path = join(dir, "session.jsonl");
    const file = join(dir, "a.txt");
    const filler = claudeUser("x".repeat(1000), "2026-11-28T10:00:02.000Z");
    writeFileSync(
      path,
      toolUse("t1", "Read", { file_path: file }, "2026-11-28T10:00:00.000Z") +
        toolResult("t1", "2026-11-28T10:00:01.000Z") +
        filler.repeat(100),
    );
    expect(fileTouch("claude-code", path, file)?.touchedMs).toBe(Date.parse("2026-11-28T10:00:01.000Z"));
    expect(fileTouch("claude-code", path, file, 50 * 1024)).toEqual({ pending: [] });
  });
});
