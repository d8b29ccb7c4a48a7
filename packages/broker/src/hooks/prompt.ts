import type { AgentId } from "./agents.js";
import { displayName } from "./agents.js";

/**
 * A question's prompt is at most 2000 characters (docs/api.md, "Limits"); the rest of this budget is the framing text.
 */
export const PROMPT_LIMIT = 2000;
const DETAIL_LIMIT = 1500;

/**
 * Cuts `text` to `limit` characters (code points, as ARC counts) with a visible marker saying how much was left
 * out, so a person never approves a command whose end they could not see without knowing it.
 */
export function cut(text: string, limit: number): string {
  const points = Array.from(text);
  if (points.length <= limit) return text;
  const marker = (left: number): string => `\n… [cut: ${left} more characters not shown]`;
  // The marker's own length depends on the count; one pass with a generous reserve keeps it simple and exact.
  const keep = Math.max(0, limit - marker(points.length).length);
  return `${points.slice(0, keep).join("")}${marker(points.length - keep)}`;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const stringField = (record: Record<string, unknown>, ...names: string[]): string | undefined => {
  for (const name of names) {
    const value = record[name];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
};

/**
 * What the tool wants, as one line of intent and the detail a person must see: the command for a shell, the file
 * for an edit, the URL for a fetch, otherwise the tool's input as JSON.
 */
export function describeToolCall(toolName: string, toolInput: unknown): { intent: string; detail: string } {
  const input = asRecord(toolInput);
  const command = stringField(input, "command", "cmd");
  if (command !== undefined) {
    const why = stringField(input, "description", "justification");
    const intent =
      toolName === "NetworkAccess" ? "wants network access for a shell command" : "wants to run a shell command";
    return { intent: why ? `${intent} (${why})` : intent, detail: command };
  }
  const file = stringField(input, "file_path", "notebook_path", "path");
  if (file !== undefined) {
    const verb = /^(write|edit|multiedit|notebookedit)$/i.test(toolName) ? "change a file" : "use a file";
    return { intent: `wants to ${verb} with ${toolName}`, detail: file };
  }
  const url = stringField(input, "url");
  if (url !== undefined) return { intent: `wants to fetch a URL with ${toolName}`, detail: url };
  let json = "";
  try {
    json = JSON.stringify(toolInput ?? {}, null, 2) ?? "";
  } catch {
    json = "";
  }
  return { intent: `wants to use the tool ${toolName}`, detail: json === "{}" ? "" : json };
}

/** The permission question's prompt: who wants what, where, the detail cut with a visible marker. */
export function permissionPrompt(agent: AgentId, toolName: string, toolInput: unknown, project?: string): string {
  const { intent, detail } = describeToolCall(toolName, toolInput);
  const where = project ? ` in ${project}` : "";
  const head = `${displayName(agent)} ${intent}${where}:`;
  const body = detail === "" ? head : `${head}\n\n${cut(detail, DETAIL_LIMIT)}`;
  return cut(body, PROMPT_LIMIT);
}
