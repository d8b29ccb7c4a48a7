/**
 * What a question carries besides its prompt, for the person to judge it by (docs/api.md, "Item context"): for a
 * finished turn (a follow-up) how long the turn took and the last few messages of the session; for a tool call the
 * change it makes (a unified diff per file), the whole command, the URL, or the tool's input as JSON. Zod-free, so
 * the broker, the web page and the phone share the shape and its limits.
 *
 * A context is posted before its question (`POST /v1/contexts`) and named by the question's ARC event in the
 * `x-notify-context` extension; the broker binds the two in the question's transaction. The page reads it from
 * `GET /ui/api/items/:id/context`; the phone gets it sealed in the question's envelope (`interaction.context`).
 */

import { checkFormContext, type FormContext } from "./form-context.js";

export type { FormContext } from "./form-context.js";

/** A stored context is at most this many bytes of JSON (UTF-8). */
export const ITEM_CONTEXT_MAX_BYTES = 256 * 1024;
/** A context's id, as `POST /v1/contexts` issues it. */
export const ITEM_CONTEXT_ID_PATTERN = /^ctx_[0-9a-f]{32}$/;
/** A turn context keeps at most this many messages (the newest). */
export const TURN_MAX_MESSAGES = 8;
/** Each message of a turn context is at most this many characters (cut with the visible marker before that). */
export const TURN_MESSAGE_MAX_CHARS = 4000;
/** A turn's duration is at most a week in milliseconds; anything longer is not a turn's. */
const TURN_MAX_DURATION_MS = 7 * 24 * 3600 * 1000;

/** Who said a message of a turn: the person (a prompt or a reply) or the agent. */
export const TURN_ROLES = ["user", "assistant"] as const;
export type TurnRole = (typeof TURN_ROLES)[number];

export interface TurnMessage {
  role: TurnRole;
  text: string;
}

/** A finished turn: its length and the session's last messages before the agent's final one, oldest first. */
export interface TurnContext {
  kind: "turn";
  /** From the prompt that started the turn to its end, when the agent's transcript says. */
  duration_ms?: number;
  messages: TurnMessage[];
  /** Something was left out: older messages, or the end of a long one. */
  truncated: boolean;
  /** The stored JSON's size in bytes (set by the broker). */
  bytes: number;
}

/** What a tool call does to one file. */
export const FILE_CHANGE_STATUSES = ["added", "modified", "deleted"] as const;
export type FileChangeStatus = (typeof FILE_CHANGE_STATUSES)[number];

export interface FileChange {
  path: string;
  status: FileChangeStatus;
  /** Lines added and removed by the whole change (also when `diff` was cut). */
  added: number;
  removed: number;
  /** The unified diff of this file (`@@` hunks, each line prefixed ` `, `+` or `-`), without the `---`/`+++` header. */
  diff: string;
  /** The file on disk is not what the agent read: the change was computed against what is there now. */
  changed_on_disk?: boolean;
  /** Lines of `diff` left out at its end (shown as "N more lines on the desktop"). */
  cut_lines?: number;
}

/** The kinds of a tool call's context. */
export const TOOL_CONTEXT_KINDS = ["diff", "command", "url", "json"] as const;
export type ToolContextKind = (typeof TOOL_CONTEXT_KINDS)[number];

/** A tool call: the files it changes, the command it runs (with where and why), the URL it fetches, or its input. */
export interface ToolContext {
  kind: ToolContextKind;
  files?: FileChange[];
  command?: string;
  cwd?: string;
  /** The agent's stated reason (a Bash call's `description`). */
  reason?: string;
  url?: string;
  /** The tool's input, pretty-printed. */
  json?: string;
  truncated: boolean;
  bytes: number;
}

export type ItemContext = TurnContext | ToolContext | FormContext;

/** What `POST /v1/contexts` takes: a context without the fields the broker sets. */
export type ItemContextInput =
  | (Omit<TurnContext, "bytes" | "truncated"> & { truncated?: boolean })
  | (Omit<ToolContext, "bytes" | "truncated"> & { truncated?: boolean })
  | (Omit<FormContext, "bytes" | "truncated"> & { truncated?: boolean });

/** Bounds of a tool context's fields, in characters; `diff` and `json` are bounded by the whole context's size. */
export const TOOL_CONTEXT_LIMITS = { files: 100, path: 4096, command: 65_536, cwd: 4096, reason: 2000, url: 8192 };

export type ContextCheck = { ok: true; value: ItemContext } | { ok: false; error: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function unknownField(record: Record<string, unknown>, allowed: readonly string[], where: string): string | undefined {
  const extra = Object.keys(record).find((name) => !allowed.includes(name));
  return extra === undefined ? undefined : `${where}.${extra}: unknown field`;
}

/** The UTF-8 size of a context's JSON. */
export function contextBytes(
  context: Omit<TurnContext, "bytes"> | Omit<ToolContext, "bytes"> | Omit<FormContext, "bytes">,
): number {
  return new TextEncoder().encode(JSON.stringify({ ...context, bytes: 0 })).length;
}

/**
 * Checks a posted context: known kind, known fields, types and limits. A valid one comes back with `bytes` set; an
 * invalid one names the first problem as `$.field: what` (the API's 400 message).
 */
export function checkItemContext(raw: unknown): ContextCheck {
  if (!isRecord(raw)) return { ok: false, error: "$: expected an object" };
  if (raw.truncated !== undefined && typeof raw.truncated !== "boolean") {
    return { ok: false, error: "$.truncated: expected a boolean" };
  }
  const checked =
    raw.kind === "turn"
      ? checkTurn(raw)
      : raw.kind === "form"
        ? checkFormContext(raw)
        : (TOOL_CONTEXT_KINDS as readonly unknown[]).includes(raw.kind)
          ? checkTool(raw)
          : { error: `$.kind: expected one of turn, form, ${TOOL_CONTEXT_KINDS.join(", ")}` };
  if ("error" in checked) return { ok: false, error: checked.error };
  const bytes = contextBytes(checked.value);
  if (bytes > ITEM_CONTEXT_MAX_BYTES) return { ok: false, error: `$: at most ${ITEM_CONTEXT_MAX_BYTES} bytes` };
  return { ok: true, value: { ...checked.value, bytes } as ItemContext };
}

type Checked<T> = { value: T } | { error: string };

function checkTurn(raw: Record<string, unknown>): Checked<Omit<TurnContext, "bytes">> {
  const extra = unknownField(raw, ["kind", "duration_ms", "messages", "truncated"], "$");
  if (extra) return { error: extra };
  const context: Omit<TurnContext, "bytes"> = { kind: "turn", messages: [], truncated: raw.truncated === true };
  if (raw.duration_ms !== undefined) {
    const ms = raw.duration_ms;
    if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0 || ms > TURN_MAX_DURATION_MS) {
      return { error: `$.duration_ms: expected an integer from 0 to ${TURN_MAX_DURATION_MS}` };
    }
    context.duration_ms = ms;
  }
  if (!Array.isArray(raw.messages)) return { error: "$.messages: expected an array" };
  if (raw.messages.length > TURN_MAX_MESSAGES) return { error: `$.messages: at most ${TURN_MAX_MESSAGES} messages` };
  for (const [index, message] of raw.messages.entries()) {
    const where = `$.messages[${index}]`;
    if (!isRecord(message)) return { error: `${where}: expected an object` };
    const extraField = unknownField(message, ["role", "text"], where);
    if (extraField) return { error: extraField };
    if (!(TURN_ROLES as readonly unknown[]).includes(message.role)) {
      return { error: `${where}.role: expected "user" or "assistant"` };
    }
    if (typeof message.text !== "string" || message.text === "") {
      return { error: `${where}.text: expected a non-empty string` };
    }
    if (Array.from(message.text).length > TURN_MESSAGE_MAX_CHARS) {
      return { error: `${where}.text: at most ${TURN_MESSAGE_MAX_CHARS} characters` };
    }
    context.messages.push({ role: message.role as TurnRole, text: message.text });
  }
  return { value: context };
}

/** A string field of at most `max` characters (code points), or absent. */
function optionalText(
  raw: Record<string, unknown>,
  name: string,
  max: number,
  where = "$",
): Checked<string | undefined> {
  const value = raw[name];
  if (value === undefined) return { value: undefined };
  if (typeof value !== "string") return { error: `${where}.${name}: expected a string` };
  if (max !== Number.POSITIVE_INFINITY && Array.from(value).length > max) {
    return { error: `${where}.${name}: at most ${max} characters` };
  }
  return { value };
}

const countField = (value: unknown): boolean => typeof value === "number" && Number.isInteger(value) && value >= 0;

function checkFile(raw: unknown, where: string): Checked<FileChange> {
  if (!isRecord(raw)) return { error: `${where}: expected an object` };
  const extra = unknownField(
    raw,
    ["path", "status", "added", "removed", "diff", "changed_on_disk", "cut_lines"],
    where,
  );
  if (extra) return { error: extra };
  if (typeof raw.path !== "string" || raw.path === "") return { error: `${where}.path: expected a non-empty string` };
  if (Array.from(raw.path).length > TOOL_CONTEXT_LIMITS.path) {
    return { error: `${where}.path: at most ${TOOL_CONTEXT_LIMITS.path} characters` };
  }
  if (!(FILE_CHANGE_STATUSES as readonly unknown[]).includes(raw.status)) {
    return { error: `${where}.status: expected one of ${FILE_CHANGE_STATUSES.join(", ")}` };
  }
  for (const name of ["added", "removed"] as const) {
    if (!countField(raw[name])) return { error: `${where}.${name}: expected a whole number` };
  }
  if (typeof raw.diff !== "string") return { error: `${where}.diff: expected a string` };
  const file: FileChange = {
    path: raw.path,
    status: raw.status as FileChangeStatus,
    added: raw.added as number,
    removed: raw.removed as number,
    diff: raw.diff,
  };
  if (raw.changed_on_disk !== undefined) {
    if (typeof raw.changed_on_disk !== "boolean") return { error: `${where}.changed_on_disk: expected a boolean` };
    if (raw.changed_on_disk) file.changed_on_disk = true;
  }
  if (raw.cut_lines !== undefined) {
    if (!countField(raw.cut_lines)) return { error: `${where}.cut_lines: expected a whole number` };
    if ((raw.cut_lines as number) > 0) file.cut_lines = raw.cut_lines as number;
  }
  return { value: file };
}

function checkTool(raw: Record<string, unknown>): Checked<Omit<ToolContext, "bytes">> {
  const extra = unknownField(raw, ["kind", "files", "command", "cwd", "reason", "url", "json", "truncated"], "$");
  if (extra) return { error: extra };
  const context: Omit<ToolContext, "bytes"> = { kind: raw.kind as ToolContextKind, truncated: raw.truncated === true };
  const fields = [
    ["command", TOOL_CONTEXT_LIMITS.command],
    ["cwd", TOOL_CONTEXT_LIMITS.cwd],
    ["reason", TOOL_CONTEXT_LIMITS.reason],
    ["url", TOOL_CONTEXT_LIMITS.url],
    ["json", Number.POSITIVE_INFINITY],
  ] as const;
  for (const [name, max] of fields) {
    const checked = optionalText(raw, name, max);
    if ("error" in checked) return checked;
    if (checked.value !== undefined) context[name] = checked.value;
  }
  if (raw.files !== undefined) {
    if (!Array.isArray(raw.files)) return { error: "$.files: expected an array" };
    if (raw.files.length > TOOL_CONTEXT_LIMITS.files) {
      return { error: `$.files: at most ${TOOL_CONTEXT_LIMITS.files} files` };
    }
    const files: FileChange[] = [];
    for (const [index, file] of raw.files.entries()) {
      const checked = checkFile(file, `$.files[${index}]`);
      if ("error" in checked) return checked;
      files.push(checked.value);
    }
    context.files = files;
  }
  // Each kind names what it shows.
  const needs: Record<ToolContextKind, "files" | "command" | "url" | "json"> = {
    diff: "files",
    command: "command",
    url: "url",
    json: "json",
  };
  const needed = needs[context.kind];
  if (context[needed] === undefined) return { error: `$.${needed}: required for kind ${context.kind}` };
  return { value: context };
}

/**
 * The context cut to `maxBytes` of JSON for a smaller carrier (the phone's sealed envelope), saying it was cut. A
 * turn loses its oldest messages first; a diff keeps each file's header and counts and loses lines from the end of
 * the diffs (`cut_lines` says how many, per file); a command, input or URL is cut at its end with the marker.
 * Undefined when even the cut context does not fit.
 */
export function fitItemContext(context: ItemContext, maxBytes: number): ItemContext | undefined {
  if (context.bytes <= maxBytes) return context;
  // A form is small by its limits and cannot be cut: a form that does not fit is not carried.
  if (context.kind === "form") return undefined;
  const sized = <T extends Omit<ItemContext, "bytes">>(cut: T): ItemContext =>
    ({ ...cut, bytes: contextBytes(cut as Omit<ToolContext, "bytes">) }) as ItemContext;
  if (context.kind === "turn") {
    const messages = [...context.messages];
    while (messages.length > 0) {
      messages.shift();
      const cut = sized({ ...context, messages, truncated: true });
      if (cut.bytes <= maxBytes) return cut;
    }
    const empty = sized({ ...context, messages: [], truncated: true });
    return empty.bytes <= maxBytes ? empty : undefined;
  }
  const { bytes: _bytes, ...rest } = context;
  const cut: Omit<ToolContext, "bytes"> = { ...rest, truncated: true };
  // What the text fields and headers cost with every diff empty; the diffs share the rest, in file order.
  for (const name of ["json", "command"] as const) {
    const value = cut[name];
    if (value === undefined) continue;
    const spare = maxBytes - contextBytes({ ...cut, [name]: "" });
    if (spare < utf8Length(value) + 2) cut[name] = cutToBytes(value, Math.max(0, spare - 64));
  }
  if (cut.files !== undefined) {
    const headers = cut.files.map((file) => ({
      ...file,
      diff: "",
      cut_lines: lineCount(file.diff) + (file.cut_lines ?? 0),
    }));
    let spare = maxBytes - contextBytes({ ...cut, files: headers });
    cut.files = cut.files.map((file, index) => {
      const lines = file.diff === "" ? [] : file.diff.split("\n");
      const kept: string[] = [];
      for (const line of lines) {
        // The line escaped (its quotes' two bytes pay for the escaped newline that joins it to the next).
        const cost = utf8Length(JSON.stringify(line));
        if (cost > spare) break;
        spare -= cost;
        kept.push(line);
      }
      const header = headers[index] as FileChange;
      // Lines this cut leaves out, besides those the diff had already left out.
      const left = lines.length - kept.length + (file.cut_lines ?? 0);
      const { cut_lines: _cut, ...plain } = header;
      return left > 0 ? { ...plain, diff: kept.join("\n"), cut_lines: left } : { ...plain, diff: file.diff };
    });
  }
  const fitted = sized(cut);
  return fitted.bytes <= maxBytes ? fitted : undefined;
}

const lineCount = (text: string): number => (text === "" ? 0 : text.split("\n").length);
const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/** `text` cut to about `max` bytes of JSON at a character boundary, with the visible marker. */
function cutToBytes(text: string, max: number): string {
  const points = Array.from(text);
  let size = 0;
  let keep = 0;
  for (const point of points) {
    const cost = utf8Length(JSON.stringify(point)) - 2;
    if (size + cost > max) break;
    size += cost;
    keep++;
  }
  return `${points.slice(0, keep).join("")}\n… [cut: ${points.length - keep} more characters not shown]`;
}

/**
 * One line for a context, where only one fits (a toast, a notification's subtitle): `src/db.ts +12 -4` (and `, 2
 * more files`), the command's first line, the URL. Undefined for a turn.
 */
export function contextSummary(context: ItemContext): string | undefined {
  switch (context.kind) {
    case "diff": {
      const files = context.files ?? [];
      const first = files[0];
      if (first === undefined) return undefined;
      const more = files.length > 1 ? `, ${files.length - 1} more ${files.length === 2 ? "file" : "files"}` : "";
      const status = first.status === "added" ? " (new)" : first.status === "deleted" ? " (deleted)" : "";
      return `${first.path}${status} +${first.added} -${first.removed}${more}`;
    }
    case "command":
      return context.command?.split("\n")[0];
    case "url":
      return context.url;
    case "form":
      return context.mode === "url"
        ? context.url
        : `${context.fields.length} ${context.fields.length === 1 ? "field" : "fields"} for ${context.server}`;
    default:
      return undefined;
  }
}
