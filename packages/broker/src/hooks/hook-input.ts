/**
 * What an agent writes on a hook's stdin, read loosely: agents add fields between releases, and a hook that
 * refuses an unknown field would take the agent's prompt away. Only the fields Notify uses are picked, each
 * checked for its type; anything else is ignored.
 *
 * Shapes (fixtures in test/hooks/fixtures cite them):
 * - Claude Code: https://code.claude.com/docs/en/hooks ("Hook input"): every event has session_id,
 *   transcript_path, cwd, hook_event_name (and permission_mode); PreToolUse, PermissionRequest and PostToolUse add
 *   tool_name, tool_input (PostToolUse also tool_response; PreToolUse and PostToolUse tool_use_id, PermissionRequest
 *   none); a subagent's events add agent_id and agent_type;
 *   Notification adds message and notification_type; Stop adds stop_hook_active and last_assistant_message.
 * - Codex CLI: https://developers.openai.com/codex/hooks ("PermissionRequest", "Stop") and its generated input
 *   schemas (codex-rs/hooks/schema/generated/*.command.input.schema.json): session_id, turn_id, cwd,
 *   hook_event_name, model, permission_mode, transcript_path, tool_name ("Bash" or "NetworkAccess"),
 *   tool_input {command, description?}, agent_id? and agent_type? (a subagent); PreToolUse and PostToolUse add
 *   tool_use_id, PermissionRequest has none; Stop adds stop_hook_active and last_assistant_message.
 * - Codex's older `notify` program (config.toml `notify = [...]`, https://developers.openai.com/codex/config-advanced
 *   "Notifications"): one JSON argument {type: "agent-turn-complete", "thread-id", "turn-id", cwd,
 *   "input-messages", "last-assistant-message"}.
 * - Claude Code's Elicitation (an MCP server asks the person): mcp_server_name, message, mode, requested_schema;
 *   url mode adds url and elicitation_id (elicitation.ts).
 * - Gemini CLI 0.61 (its hooks reference, bundle/docs/hooks/reference.md): session_id, transcript_path, cwd,
 *   hook_event_name, timestamp; BeforeTool adds tool_name and tool_input; AfterAgent prompt, prompt_response and
 *   stop_hook_active; Notification notification_type ("ToolPermission"), message and details.
 * - GitHub Copilot CLI 1.0.102 (recorded from the binary, docs/hooks.md "GitHub Copilot CLI"): camelCase events get
 *   camelCase fields: sessionId, timestamp, cwd; permissionRequest adds hookName, toolName, toolInput and
 *   permissionSuggestions; preToolUse and postToolUse toolName and toolArgs; agentStop transcriptPath, stopReason
 *   and stop_hook_active; userPromptSubmitted prompt; sessionEnd reason.
 * - Notify's OpenCode plugin (install/opencode-plugin.ts) sends Claude Code's names: hook_event_name, session_id,
 *   tool_use_id, cwd, tool_name, tool_input; its session.idle last_assistant_message, stop_hook_active and
 *   can_continue (false in a one-shot `opencode run`, which exits at idle).
 */
import { ELICITATION, type Elicitation, elicitationOf } from "./elicitation.js";

export interface HookInput {
  hookEventName?: string;
  sessionId?: string;
  turnId?: string;
  cwd?: string;
  toolName?: string;
  toolInput?: unknown;
  toolUseId?: string;
  /** The subagent that raised the event (both agents send `agent_id` for a subagent, on every event of its calls). */
  agentId?: string;
  message?: string;
  title?: string;
  notificationType?: string;
  lastAssistantMessage?: string;
  /** Stop: true when the agent goes on because a Stop hook blocked (a follow-up reply continued the turn). */
  stopHookActive?: boolean;
  /** Notify's OpenCode plugin's session.idle: whether the session lives on to take a follow-up (`can_continue`). */
  canContinue?: boolean;
  /** The session's transcript (JSON lines), when the agent names it. */
  transcriptPath?: string;
  /** Claude Code's PermissionRequest: the rules it would offer as "always allow" (`permission_suggestions`). */
  permissionSuggestions?: unknown;
  /** Codex's legacy notify payload type, e.g. `agent-turn-complete`. */
  type?: string;
  /** Claude Code's Elicitation: the MCP server's request, when Notify can ask it (elicitation.ts). */
  elicitation?: Elicitation;
}

/** Parses stdin's text; anything that is not a JSON object is an empty input (the hook then does nothing). */
export function parseHookInput(text: string): HookInput | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const record = raw as Record<string, unknown>;
  const text_ = (...names: string[]): string | undefined => {
    for (const name of names) {
      const value = record[name];
      if (typeof value === "string" && value !== "") return value;
    }
    return undefined;
  };
  const input: HookInput = {};
  const set = <K extends keyof HookInput>(key: K, value: HookInput[K] | undefined): void => {
    if (value !== undefined) input[key] = value;
  };
  set("hookEventName", text_("hook_event_name", "hookName"));
  set("sessionId", text_("session_id", "thread-id", "thread_id", "sessionId"));
  set("turnId", text_("turn_id", "turn-id"));
  set("cwd", text_("cwd"));
  set("toolName", text_("tool_name", "toolName"));
  if ("tool_input" in record) input.toolInput = record.tool_input;
  else if ("toolInput" in record) input.toolInput = record.toolInput;
  else if ("toolArgs" in record) input.toolInput = record.toolArgs;
  set("toolUseId", text_("tool_use_id"));
  set("agentId", text_("agent_id"));
  set("message", text_("message"));
  set("title", text_("title"));
  set("notificationType", text_("notification_type", "notificationType"));
  set("lastAssistantMessage", text_("last_assistant_message", "last-assistant-message", "prompt_response"));
  set("type", text_("type"));
  if (typeof record.stop_hook_active === "boolean") input.stopHookActive = record.stop_hook_active;
  if (typeof record.can_continue === "boolean") input.canContinue = record.can_continue;
  set("transcriptPath", text_("transcript_path", "transcriptPath"));
  if (Array.isArray(record.permission_suggestions)) input.permissionSuggestions = record.permission_suggestions;
  else if (Array.isArray(record.permissionSuggestions) && record.permissionSuggestions.length > 0) {
    input.permissionSuggestions = record.permissionSuggestions;
  }
  if (input.hookEventName === ELICITATION) set("elicitation", elicitationOf(record));
  return input;
}
