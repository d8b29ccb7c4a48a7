import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { TURN_MESSAGE_MAX_CHARS, type TurnMessage } from "@notify/contracts/item-context";
import type { AgentId } from "./agents.js";
import { cut } from "./prompt.js";

/** Only the end of a transcript is read: a long session's file runs to many megabytes, its last turn does not. */
export const TRANSCRIPT_TAIL_BYTES = 512 * 1024;
/** A follow-up shows this many messages before the agent's last one. */
export const TURN_TAIL_MESSAGES = 6;

/** A finished turn as its transcript tells it: when it started and its last messages, oldest first. */
export interface TurnRead {
  startedMs?: number;
  messages: TurnMessage[];
  /** Older messages exist that are not in `messages`, or one of them was cut. */
  truncated: boolean;
  /** The transcript ends with the agent's last message: everything of the turn is written. */
  complete: boolean;
}

export type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The text parts of a message's content (a string, or parts with `text`), joined; tool calls and results are not. */
function contentText(content: unknown, partTypes: readonly string[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => isRecord(part) && partTypes.includes(String(part.type)) && typeof part.text === "string")
    .map((part) => (part as { text: string }).text)
    .join("\n");
}

const timeOf = (entry: Json): number | undefined => {
  const ms = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};

/** Text the agent injects as a user message (reminders, command output, environment): not the person's words. */
const INJECTED = /^<(system-reminder|command-|local-command|environment_context|user_instructions|permissions|skills_)/;

/** How Claude Code 2.1.330 writes a Stop hook's block reason into the transcript (a meta user line). */
const STOP_FEEDBACK = "Stop hook feedback:\n";

/** One agent's transcript line: a message to keep, or the start of a turn, or nothing. */
interface LineRead {
  message?: TurnMessage & { id?: string };
  turnStartMs?: number;
}

/**
 * Claude Code 2.1.330's transcript (~/.claude/projects/<project>/<session>.jsonl): `{type, message: {role, content},
 * timestamp, isMeta?}` with `type` and `role` both `user` or both `assistant`. An assistant message is written one content block per line under
 * one `message.id`. A user line whose content is only tool results is not a prompt; any other starts a turn, and so
 * does a follow-up reply, written as the meta line `Stop hook feedback:\nTEXT` (other meta lines are not shown).
 */
function claudeLine(entry: Json): LineRead {
  const message = entry.message;
  if (!isRecord(message)) return {};
  if (entry.type === "user" && message.role === "user") {
    let text = contentText(message.content, ["text"]).trim();
    // A Stop hook's block (a follow-up reply) is a meta user line `Stop hook feedback:\nTEXT`: the person's words.
    if (entry.isMeta === true) {
      if (!text.startsWith(STOP_FEEDBACK)) return {};
      text = text.slice(STOP_FEEDBACK.length).trim();
    }
    if (text === "" || INJECTED.test(text)) return {};
    const started = timeOf(entry);
    return { message: { role: "user", text }, ...(started !== undefined ? { turnStartMs: started } : {}) };
  }
  if (entry.isMeta === true) return {};
  if (entry.type === "assistant" && message.role === "assistant") {
    const text = contentText(message.content, ["text"]).trim();
    if (text === "") return {};
    return { message: { role: "assistant", text, ...(typeof message.id === "string" ? { id: message.id } : {}) } };
  }
  return {};
}

/**
 * Codex 0.169.0's rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): `{timestamp, type, payload}`; messages are
 * `response_item` payloads `{type: "message", role, content: [{type: "input_text"|"output_text", text}]}`, a turn
 * starts with the `event_msg` payload `{type: "task_started"}`. A follow-up reply comes back wrapped in
 * `<hook_prompt ...>TEXT</hook_prompt>`: shown as TEXT.
 */
function codexLine(entry: Json): LineRead {
  const payload = entry.payload;
  if (!isRecord(payload)) return {};
  if (entry.type === "event_msg" && payload.type === "task_started") {
    const started = timeOf(entry);
    return started !== undefined ? { turnStartMs: started } : {};
  }
  if (entry.type !== "response_item" || payload.type !== "message") return {};
  if (payload.role !== "user" && payload.role !== "assistant") return {};
  let text = contentText(payload.content, ["input_text", "output_text"]).trim();
  const hookPrompt = /^<hook_prompt\b[^>]*>([\s\S]*)<\/hook_prompt>$/.exec(text);
  if (hookPrompt) text = (hookPrompt[1] ?? "").trim();
  else if (INJECTED.test(text)) return {};
  if (text === "") return {};
  return { message: { role: payload.role, text } };
}

/** The last `bytes` of a file as lines; the first is dropped when the read began inside it. */
function tailLines(path: string, bytes: number): string[] {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    const lines = buffer.subarray(0, read).toString("utf8").split("\n");
    if (start > 0) lines.shift();
    return lines;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a finished turn from the agent's transcript: when its prompt came and the messages before the agent's last
 * one (`lastMessage`, which the question already shows). Undefined for an agent whose transcript is not known, or a
 * file that cannot be read; a line that is not JSON is skipped (the agent may be writing the next one).
 */
export function readTurn(
  agent: AgentId,
  path: string,
  lastMessage: string | undefined,
  bytes = TRANSCRIPT_TAIL_BYTES,
): TurnRead | undefined {
  const readLine = agent === "claude-code" ? claudeLine : agent === "codex" ? codexLine : undefined;
  if (readLine === undefined) return undefined;
  let lines: string[];
  try {
    lines = tailLines(path, bytes);
  } catch {
    return undefined;
  }
  const messages: (TurnMessage & { id?: string })[] = [];
  let startedMs: number | undefined;
  for (const line of lines) {
    if (line.trim() === "") continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(entry)) continue;
    const read = readLine(entry);
    if (read.turnStartMs !== undefined) startedMs = read.turnStartMs;
    const message = read.message;
    if (message === undefined) continue;
    const previous = messages.at(-1);
    // One assistant message written as several lines (Claude Code, one per content block) is one message.
    if (previous !== undefined && message.id !== undefined && previous.id === message.id) {
      previous.text = `${previous.text}\n\n${message.text}`;
    } else {
      messages.push(message);
    }
  }
  // The agent's last message is the question's prompt: not shown twice.
  const last = messages.at(-1);
  const complete = last?.role === "assistant" && lastMessage !== undefined && last.text.trim() === lastMessage.trim();
  if (complete) messages.pop();
  const tail = messages.slice(-TURN_TAIL_MESSAGES);
  let truncated = messages.length > tail.length;
  const shown = tail.map(({ role, text }) => {
    const kept = cut(text, TURN_MESSAGE_MAX_CHARS);
    if (kept !== text) truncated = true;
    return { role, text: kept };
  });
  return { ...(startedMs !== undefined ? { startedMs } : {}), messages: shown, truncated, complete };
}

/** The tools whose call names a file Claude Code then holds as read (its `file_path`; NotebookEdit's `notebook_path`). */
const FILE_TOOLS = new Set(["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"]);

/** What a transcript's tail says of one file: when the agent last read or wrote it, and its calls still running. */
export interface FileTouch {
  /** The stamp of the last successful result of a Read, Edit, MultiEdit, Write or NotebookEdit naming the file. */
  touchedMs?: number;
  /** The calls naming the file whose result is not written yet (the call being asked about, once written). */
  pending: { name: string; input: Json }[];
}

/**
 * What the agent did with `file` (an absolute, resolved path), as its transcript's tail tells it. Claude Code 2.1.330
 * writes a call as an assistant line (`message.content` holds `{type: "tool_use", id, name, input: {file_path}}`) and
 * its result as a user line (`{type: "tool_result", tool_use_id, is_error?}`) stamped after the tool ran: the file as
 * the agent knows it is at most that old. It writes them behind its hooks: a hook may run before the previous call's
 * result and its own call are in the file (`pending` tells when they are). Undefined for another agent or a
 * transcript that cannot be read; no `touchedMs` when no such call is in the last `bytes` (never read, or long ago).
 */
export function fileTouch(
  agent: AgentId,
  path: string,
  file: string,
  bytes = TRANSCRIPT_TAIL_BYTES,
): FileTouch | undefined {
  if (agent !== "claude-code") return undefined;
  let lines: string[];
  try {
    lines = tailLines(path, bytes);
  } catch {
    return undefined;
  }
  const calls = new Map<string, { name: string; input: Json }>();
  let touchedMs: number | undefined;
  for (const line of lines) {
    // Only lines with a tool call or result are parsed: the tail is read on the broker's event loop.
    if (!line.includes('"tool_use') && !line.includes('"tool_result')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(entry) || !isRecord(entry.message) || !Array.isArray(entry.message.content)) continue;
    for (const part of entry.message.content) {
      if (!isRecord(part)) continue;
      if (entry.type === "assistant" && part.type === "tool_use" && typeof part.id === "string") {
        const input = isRecord(part.input) ? part.input : {};
        const named = input.file_path ?? input.notebook_path;
        if (!FILE_TOOLS.has(String(part.name)) || typeof named !== "string" || !isAbsolute(named)) continue;
        if (resolve(named) === file) calls.set(part.id, { name: String(part.name), input });
      } else if (entry.type === "user" && part.type === "tool_result" && typeof part.tool_use_id === "string") {
        if (!calls.has(part.tool_use_id)) continue;
        calls.delete(part.tool_use_id);
        if (part.is_error !== true) touchedMs = timeOf(entry) ?? touchedMs;
      }
    }
  }
  return { ...(touchedMs !== undefined ? { touchedMs } : {}), pending: [...calls.values()] };
}
