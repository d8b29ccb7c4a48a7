import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import {
  contextBytes,
  type FileChange,
  fitItemContext,
  ITEM_CONTEXT_MAX_BYTES,
  type ItemContextInput,
  TOOL_CONTEXT_LIMITS,
  type ToolContext,
} from "@notify/contracts/item-context";
import { delay } from "@notify/contracts/retry";
import type { AgentId } from "./agents.js";
import { type LineDiff, lineDiff, linesOf } from "./line-diff.js";
import { cut } from "./prompt.js";
import { fileTouch } from "./transcript.js";

/** A file larger than this is not read for its diff: the change is shown against what the agent sent only. */
export const MAX_DIFF_FILE_BYTES = 8 * 1024 * 1024;

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const str = (record: Json, name: string): string | undefined =>
  typeof record[name] === "string" ? (record[name] as string) : undefined;

/**
 * A file whose last change (mtime) is later than this after the agent last read or wrote it is flagged. The
 * transcript's stamp is taken after the tool ran, from the clock the file's times come from; file systems round
 * their times down (to a clock tick, a second, two), never up: this only absorbs the rounding of either.
 */
export const CHANGED_ON_DISK_SLACK_MS = 100;

/**
 * How long the transcript is read again for the call being asked about: Claude Code 2.1.330 writes it (and the
 * previous call's result) behind its PermissionRequest hook, a few hundred ms. At most a second, then not known.
 */
export const TRANSCRIPT_WAIT = { retries: 40, ms: 25 };

/** Where the agent's record of what it read lies: the hook input's `transcript_path` (Claude Code's alone is read). */
export interface ReadRecord {
  agent: AgentId;
  transcriptPath?: string;
}

/** The file a Claude Code file tool's call changes: Edit's, MultiEdit's and Write's `file_path`, NotebookEdit's `notebook_path`. */
function changedFile(toolName: string, toolInput: unknown): string | undefined {
  if (!isRecord(toolInput)) return undefined;
  if (toolName === "NotebookEdit") return str(toolInput, "notebook_path");
  return ["Edit", "MultiEdit", "Write"].includes(toolName) ? str(toolInput, "file_path") : undefined;
}

/**
 * When the agent last read or wrote the file its call changes, from the transcript's tail (transcript.ts, bounded):
 * read again, `pause` apart, until the call itself is written there (so everything before it is too), at most
 * TRANSCRIPT_WAIT. Not known, so undefined: no transcript (another agent, a hook without one), a new file (nothing
 * on disk the agent could have read), no read in the tail (never read, or long ago), or the call not written in time.
 */
export async function lastReadMs(
  toolName: string,
  toolInput: unknown,
  cwd: string | undefined,
  record: ReadRecord,
  pause: () => Promise<void> = () => delay(TRANSCRIPT_WAIT.ms),
): Promise<number | undefined> {
  const named = changedFile(toolName, toolInput);
  if (record.transcriptPath === undefined || named === undefined) return undefined;
  const path = absolute(named, cwd);
  if (!isAbsolute(path) || "missing" in statOf(path)) return undefined;
  for (let attempt = 0; ; attempt++) {
    const touch = fileTouch(record.agent, record.transcriptPath, resolve(path));
    if (touch === undefined) return undefined;
    if (touch.pending.some((call) => call.name === toolName && sameCall(call.input, toolInput))) return touch.touchedMs;
    if (attempt >= TRANSCRIPT_WAIT.retries) return undefined;
    await pause();
  }
}

/**
 * Whether a call in the transcript is the one asked about: every text of the hook's input (the path, the old and new
 * text, the content) is the same there. Claude Code writes the input it parsed (`replace_all: false` added), so the
 * other fields may differ.
 */
function sameCall(written: Record<string, unknown>, asked: unknown): boolean {
  if (!isRecord(asked)) return false;
  return Object.entries(asked).every(([name, value]) => typeof value !== "string" || written[name] === value);
}

/** {@link toolContext}, a file changed on disk since the agent last read it flagged ({@link lastReadMs}). */
export async function toolContextWithRead(
  toolName: string,
  toolInput: unknown,
  cwd: string | undefined,
  record: ReadRecord,
): Promise<ItemContextInput | undefined> {
  return toolContext(toolName, toolInput, cwd, await lastReadMs(toolName, toolInput, cwd, record));
}

function statOf(path: string): { mtimeMs: number } | { missing: true } {
  try {
    const stat = statSync(path);
    return stat.isFile() ? { mtimeMs: stat.mtimeMs } : { missing: true };
  } catch {
    return { missing: true };
  }
}

/** The file's text and last change, or that it does not exist (or is not a file), or is too large to read. */
function readText(
  path: string,
): { text: string; mtimeMs: number } | { missing: true } | { tooLarge: true; mtimeMs: number } {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return { missing: true };
    if (stat.size > MAX_DIFF_FILE_BYTES) return { tooLarge: true, mtimeMs: stat.mtimeMs };
    return { text: readFileSync(path, "utf8"), mtimeMs: stat.mtimeMs };
  } catch {
    return { missing: true };
  }
}

const absolute = (path: string, cwd: string | undefined): string =>
  isAbsolute(path) || cwd === undefined ? path : resolve(cwd, path);

/** One Edit-style replacement, applied as the agent's tool would: the first match, or every one. */
interface Replacement {
  old: string;
  next: string;
  all: boolean;
}

/** `file`, flagged when its file on disk changed after the agent last read it (`readMs`: not known). */
function flagged(file: FileChange, mtimeMs: number, readMs: number | undefined): FileChange {
  return readMs !== undefined && mtimeMs > readMs + CHANGED_ON_DISK_SLACK_MS
    ? { ...file, changed_on_disk: true }
    : file;
}

/**
 * The change of Edit or MultiEdit to `path`: the replacements applied to the file as it is on disk. A replacement
 * whose old text is not in the file means the file changed since the agent read it: the change is then shown as
 * the agent's own old and new text, flagged `changed_on_disk`.
 */
function editChange(
  path: string,
  cwd: string | undefined,
  replacements: Replacement[],
  readMs: number | undefined,
): FileChange {
  const file = readText(absolute(path, cwd));
  if ("text" in file) {
    let text = file.text;
    let found = true;
    for (const { old, next, all } of replacements) {
      if (old === "") {
        // An empty old string creates the file (Claude Code's Edit on a new file).
        if (text !== "") found = false;
        text = next;
        continue;
      }
      if (!text.includes(old)) {
        found = false;
        break;
      }
      text = all ? text.split(old).join(next) : text.replace(old, () => next);
    }
    if (found) return flagged(change(path, "modified", lineDiff(file.text, text)), file.mtimeMs, readMs);
  }
  if ("missing" in file && replacements.every(({ old }) => old === "")) {
    return change(path, "added", lineDiff("", replacements.at(-1)?.next ?? ""));
  }
  // Not on disk as the agent saw it: its own before and after, each replacement on its own.
  const parts = replacements.map(({ old, next }) => lineDiff(old, next));
  return { ...change(path, "modified", joined(parts)), changed_on_disk: true };
}

/** Diffs of a file's separate pieces (the agent's own before and after, each) as one: hunks in order, counts summed. */
function joined(parts: LineDiff[]): LineDiff {
  return {
    diff: parts.map((part) => part.diff).join("\n"),
    added: parts.reduce((sum, part) => sum + part.added, 0),
    removed: parts.reduce((sum, part) => sum + part.removed, 0),
    cutLines: parts.reduce((sum, part) => sum + part.cutLines, 0),
  };
}

function change(path: string, status: FileChange["status"], diff: LineDiff): FileChange {
  const file: FileChange = { path, status, added: diff.added, removed: diff.removed, diff: diff.diff };
  if (diff.cutLines > 0) file.cut_lines = diff.cutLines;
  return file;
}

/** Write: the new content against the file on disk, or all added for a new file. */
function writeChange(path: string, cwd: string | undefined, content: string, readMs: number | undefined): FileChange {
  const file = readText(absolute(path, cwd));
  if ("text" in file) {
    return flagged(change(path, "modified", lineDiff(file.text, content)), file.mtimeMs, readMs);
  }
  // Too large to read: the counts and no lines (the page says nothing more is known).
  if ("tooLarge" in file) {
    const counts: FileChange = { path, status: "modified", added: linesOf(content).length, removed: 0, diff: "" };
    return flagged(counts, file.mtimeMs, readMs);
  }
  // A new file: nothing on disk the agent could have read.
  return change(path, "added", lineDiff("", content));
}

/** NotebookEdit: the cell's source before and after (`edit_mode` replace, insert or delete). */
function notebookChange(input: Json, cwd: string | undefined, readMs: number | undefined): FileChange | undefined {
  const path = str(input, "notebook_path");
  if (path === undefined) return undefined;
  const mode = str(input, "edit_mode") ?? "replace";
  const next = str(input, "new_source") ?? "";
  const cellId = str(input, "cell_id");
  let before = "";
  const file = readText(absolute(path, cwd));
  if ("text" in file && mode !== "insert") {
    try {
      const notebook = JSON.parse(file.text) as { cells?: { id?: string; source?: string | string[] }[] };
      const cell = notebook.cells?.find((candidate) => candidate.id === cellId) ?? notebook.cells?.[0];
      const source = cell?.source;
      before = Array.isArray(source) ? source.join("") : (source ?? "");
    } catch {
      before = "";
    }
  }
  const label = cellId === undefined ? path : `${path} (cell ${cellId})`;
  const cell =
    mode === "delete"
      ? change(label, "modified", lineDiff(before, ""))
      : change(label, mode === "insert" ? "added" : "modified", lineDiff(before, next));
  return "missing" in file ? cell : flagged(cell, file.mtimeMs, readMs);
}

/**
 * Codex's apply_patch (`*** Begin Patch` … `*** End Patch`): per file `*** Add File: P` (every line `+`),
 * `*** Delete File: P`, or `*** Update File: P` (optionally `*** Move to: Q`) with `@@` chunks of ` `, `-` and `+`
 * lines. An update is applied to the file on disk to number its lines; a chunk not found there flags the file.
 */
export function applyPatchChanges(patch: string, cwd: string | undefined): FileChange[] {
  const files: FileChange[] = [];
  const lines = patch.split("\n");
  let index = 0;
  const header = /^\*\*\* (Add|Delete|Update) File: (.+)$/;
  while (index < lines.length) {
    const match = header.exec(lines[index] ?? "");
    index++;
    if (!match) continue;
    const [, action, path = ""] = match;
    const body: string[] = [];
    while (index < lines.length && !header.test(lines[index] ?? "") && lines[index] !== "*** End Patch") {
      body.push(lines[index] as string);
      index++;
    }
    if (action === "Add") {
      const added = body.filter((line) => line.startsWith("+")).map((line) => line.slice(1));
      files.push(change(path, "added", lineDiff("", added.join("\n"))));
    } else if (action === "Delete") {
      const file = readText(absolute(path, cwd));
      files.push(change(path, "deleted", lineDiff("text" in file ? file.text : "", "")));
    } else {
      files.push(updateChange(path, cwd, body));
    }
  }
  return files;
}

function updateChange(path: string, cwd: string | undefined, body: string[]): FileChange {
  const moved = body[0]?.startsWith("*** Move to: ") ? body.shift()?.slice("*** Move to: ".length) : undefined;
  const shownPath = moved === undefined ? path : `${path} → ${moved}`;
  // Chunks: runs of context/removed/added lines separated by `@@` lines.
  const chunks: { old: string[]; next: string[] }[] = [];
  let current: { old: string[]; next: string[] } | undefined;
  for (const line of body) {
    if (line.startsWith("@@") || current === undefined) {
      current = { old: [], next: [] };
      chunks.push(current);
      if (line.startsWith("@@")) continue;
    }
    if (line === "*** End of File") continue;
    const sign = line[0];
    const text = line.slice(1);
    if (sign === " " || sign === undefined) {
      current.old.push(text);
      current.next.push(text);
    } else if (sign === "-") current.old.push(text);
    else if (sign === "+") current.next.push(text);
  }
  const file = readText(absolute(path, cwd));
  if ("text" in file) {
    const original = linesOf(file.text);
    const result = [...original];
    let from = 0;
    let found = true;
    let shift = 0;
    for (const chunk of chunks) {
      const at = findLines(original, chunk.old, from);
      if (at < 0) {
        found = false;
        break;
      }
      result.splice(at + shift, chunk.old.length, ...chunk.next);
      shift += chunk.next.length - chunk.old.length;
      from = at + chunk.old.length;
    }
    if (found) return change(shownPath, "modified", lineDiff(original.join("\n"), result.join("\n")));
  }
  const parts = chunks.map((chunk) => lineDiff(chunk.old.join("\n"), chunk.next.join("\n")));
  return {
    ...change(shownPath, "modified", joined(parts)),
    changed_on_disk: true,
  };
}

/** The first index at or after `from` where `needle` occurs as consecutive lines of `haystack` (-1: nowhere). */
function findLines(haystack: readonly string[], needle: readonly string[], from: number): number {
  if (needle.length === 0) return from;
  outer: for (let at = from; at + needle.length <= haystack.length; at++) {
    for (let offset = 0; offset < needle.length; offset++) {
      if (haystack[at + offset] !== needle[offset]) continue outer;
    }
    return at;
  }
  return -1;
}

/** The patch text of a Codex apply_patch call: the tool input's `input`/`patch`, a string input, or a command. */
function patchText(input: unknown): string | undefined {
  if (typeof input === "string") return input.includes("*** Begin Patch") ? input : undefined;
  if (!isRecord(input)) return undefined;
  for (const name of ["input", "patch", "command"]) {
    const value = input[name];
    if (typeof value === "string" && value.includes("*** Begin Patch")) return value;
    if (Array.isArray(value)) {
      const text = value.find((part) => typeof part === "string" && part.includes("*** Begin Patch"));
      if (typeof text === "string") return text;
    }
  }
  return undefined;
}

/**
 * What a person needs to judge a tool call (docs/hooks.md, "Approvals with context"): a file change's diff against
 * the file on disk (Claude Code Edit, MultiEdit, Write, NotebookEdit; Codex apply_patch), a shell command with its
 * working directory and the agent's reason, a fetch's URL, otherwise the tool's input as JSON. Cut to the stored
 * limit with the cut said. Undefined when there is nothing to show. With `readMs` (when the agent last read or wrote
 * the file, {@link lastReadMs}), an existing file changed on disk since then is flagged.
 */
export function toolContext(
  toolName: string,
  toolInput: unknown,
  cwd: string | undefined,
  readMs?: number,
): ItemContextInput | undefined {
  const input = isRecord(toolInput) ? toolInput : {};
  let context: Omit<ToolContext, "bytes"> | undefined;
  const patch = patchText(toolInput);
  if (patch !== undefined) {
    context = { kind: "diff", files: applyPatchChanges(patch, cwd), truncated: false };
  } else if (toolName === "Edit" && str(input, "file_path") !== undefined) {
    const replacement = {
      old: str(input, "old_string") ?? "",
      next: str(input, "new_string") ?? "",
      all: input.replace_all === true,
    };
    context = {
      kind: "diff",
      files: [editChange(str(input, "file_path") as string, cwd, [replacement], readMs)],
      truncated: false,
    };
  } else if (toolName === "MultiEdit" && str(input, "file_path") !== undefined && Array.isArray(input.edits)) {
    const edits = input.edits.filter(isRecord).map((edit) => ({
      old: str(edit, "old_string") ?? "",
      next: str(edit, "new_string") ?? "",
      all: edit.replace_all === true,
    }));
    context = {
      kind: "diff",
      files: [editChange(str(input, "file_path") as string, cwd, edits, readMs)],
      truncated: false,
    };
  } else if (toolName === "Write" && str(input, "file_path") !== undefined) {
    context = {
      kind: "diff",
      files: [writeChange(str(input, "file_path") as string, cwd, str(input, "content") ?? "", readMs)],
      truncated: false,
    };
  } else if (toolName === "NotebookEdit") {
    const file = notebookChange(input, cwd, readMs);
    if (file !== undefined) context = { kind: "diff", files: [file], truncated: false };
  } else if (str(input, "command") !== undefined || Array.isArray(input.command)) {
    const command = Array.isArray(input.command)
      ? input.command.map(String).join(" ")
      : (str(input, "command") as string);
    context = { kind: "command", command: cut(command, TOOL_CONTEXT_LIMITS.command), truncated: false };
    if (cwd !== undefined) context.cwd = cut(cwd, TOOL_CONTEXT_LIMITS.cwd);
    const reason = str(input, "description") ?? str(input, "justification");
    if (reason !== undefined) context.reason = cut(reason, TOOL_CONTEXT_LIMITS.reason);
  } else if (str(input, "url") !== undefined) {
    context = { kind: "url", url: cut(str(input, "url") as string, TOOL_CONTEXT_LIMITS.url), truncated: false };
    const reason = str(input, "prompt");
    if (reason !== undefined) context.reason = cut(reason, TOOL_CONTEXT_LIMITS.reason);
  } else if (Object.keys(input).length > 0) {
    context = { kind: "json", json: JSON.stringify(toolInput, null, 2), truncated: false };
  }
  if (context === undefined) return undefined;
  for (const file of context.files ?? []) file.path = cut(file.path, TOOL_CONTEXT_LIMITS.path);
  const sized = { ...context, bytes: contextBytes(context) } as ToolContext;
  const fitted = fitItemContext(sized, ITEM_CONTEXT_MAX_BYTES);
  if (fitted === undefined) return undefined;
  const { bytes: _bytes, ...input_ } = fitted as ToolContext;
  return input_;
}
