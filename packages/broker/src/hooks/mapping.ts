import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ArcContext, ArcSender } from "@notify/contracts";
import type { SessionSignal } from "@notify/contracts/sessions";
import canonicalize from "canonicalize";
import { type AgentId, displayName, SENDERS } from "./agents.js";
import {
  ASK_USER_QUESTION,
  type AskedQuestion,
  askedQuestions,
  type QuestionRequest,
  questionRequests,
} from "./ask-user-question.js";
import { ELICITATION, type FormQuestion, formQuestions } from "./elicitation.js";
import type { HookInput } from "./hook-input.js";
import { cut, PROMPT_LIMIT, permissionPrompt } from "./prompt.js";

/** The MCP server name `notify mcp install` registers (mcp/install.ts SERVER_NAME). */
const MCP_SERVER_NAME = "notify";

/**
 * How the decision is printed for the agent (decision-output.ts): Claude Code's and Codex's PermissionRequest,
 * Claude Code's PreToolUse, Copilot CLI's permissionRequest, or a before-tool gate (Gemini CLI's BeforeTool,
 * Notify's OpenCode plugin).
 */
export type DecisionFormat = "permission-request" | "pre-tool-use" | "copilot-permission" | "gate";

/**
 * What one hook invocation does, decided from the agent's stdin alone (no I/O), so every mapping is a pure
 * function tested against the documented payloads.
 */
export interface HookPlan {
  sender: ArcSender;
  context: ArcContext;
  /** Open questions to withdraw first: those of this tool call (under any key it may have), or every one of the session. */
  settle?: { keys: string[] } | { session: string };
  /** An answerable permission request to open and wait for. */
  ask?: {
    key: string;
    message: string;
    format: DecisionFormat;
    tool: { name: string; input: unknown; suggestions?: unknown };
    /**
     * A before-tool gate (issue 38): asked only while the person is not present; present, the hook
     * stays out of the way and the agent's own prompt applies.
     */
    gate?: boolean;
  };
  /**
   * Claude Code's own AskUserQuestion call (PreToolUse): its questions to open at once and wait for; every one
   * answered makes the call's answers (ask-user-question.ts).
   */
  questions?: { keys: string[]; asked: AskedQuestion[]; requests: QuestionRequest[]; toolInput: unknown };
  /**
   * Claude Code's Elicitation (an MCP server asks the person): a question per field and the decision, last
   * (elicitation.ts); `keys[i]` is `questions[i]`'s.
   */
  form?: { keys: string[]; questions: FormQuestion[] };
  /** A notification, keyed per session so it updates in place. */
  notify?: { key: string; kind: "question" | "completion"; title: string; message: string };
  /**
   * A finished turn (Stop) that may ask for a follow-up (docs/hooks.md, "Follow-ups"): while the person is away, a
   * text question in the session's item (`notify`'s key) whose reply becomes the agent's next instruction.
   */
  followUp?: { session: string; prompt: string; lastMessage: string; continued: boolean; transcriptPath?: string };
  /** The agent's transcript, when the event names it: a question's context reads the agent's last file reads there. */
  transcriptPath?: string;
  /** What the event says about its agent session (issue 37, item 1: sessions/sessions.ts). */
  session?: { signal: SessionSignal; lastMessage?: string };
}

const hash = (value: string): string => createHash("sha256").update(value).digest("hex").slice(0, 32);

/**
 * A question's key: per agent session and tool call. The tool call is named by its tool and input, which every
 * event about it carries (PermissionRequest has no tool_use_id, in Claude Code or Codex), so PostToolUse finds the
 * same key; and by the subagent (`agent_id`) that makes it, so two subagents running the same command at once ask
 * two questions. Two identical calls of the same (sub)agent at once still share one question: nothing in the
 * payload tells them apart, and PostToolUse must find the question again.
 */
export function toolCallKey(
  agent: AgentId,
  sessionId: string | undefined,
  toolName: string,
  input: unknown,
  subagent?: string,
): string {
  // A shell call is named by its command alone: Codex's PermissionRequest adds a description (and says
  // NetworkAccess) that its PostToolUse for the same call does not carry.
  const { detail, kind } = callIdentity(toolName, input);
  const call =
    canonicalize({ session: sessionId ?? "", kind, detail, ...(subagent !== undefined ? { subagent } : {}) }) ?? "";
  return `${agent}:tool:${hash(call)}`;
}

/**
 * The key of a question about a tool call the agent names (Claude Code's and Codex's `tool_use_id`): each call gets
 * its own question, so one answer never releases two runs (issue 21, item 11).
 */
export function toolUseKey(agent: AgentId, sessionId: string | undefined, toolUseId: string): string {
  return `${agent}:tool:${hash(canonicalize({ session: sessionId ?? "", call: toolUseId }) ?? "")}`;
}

function callIdentity(toolName: string, input: unknown): { kind: string; detail: unknown } {
  const record =
    input !== null && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  if (typeof record.command === "string") return { kind: "command", detail: record.command };
  return { kind: toolName, detail: input ?? null };
}

/** The attention/completion notification's key: one per agent session. */
export const sessionKey = (agent: AgentId, sessionId: string | undefined): string =>
  `${agent}:session:${hash(sessionId ?? "none")}`;

/** The key prefix of every question Notify's hooks open for `agent`. */
export const toolKeyPrefix = (agent: AgentId): string => `${agent}:tool:`;

/** The project: the name of the repository root above `cwd` (the folder holding .git), else the cwd's name. */
export function projectOf(cwd: string | undefined, exists: (path: string) => boolean = existsSync): string | undefined {
  if (cwd === undefined) return undefined;
  let dir = cwd;
  for (let depth = 0; depth < 64; depth += 1) {
    if (exists(join(dir, ".git"))) return basename(dir) || undefined;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return basename(cwd) || undefined;
}

/**
 * ARC context limits (docs/arc.md, "Limits"): a value over its limit is left out rather than failing the whole event.
 */
function contextOf(input: HookInput, project: string | undefined, pid: number | undefined): ArcContext {
  const context: ArcContext = {};
  const within = (value: string | undefined, limit: number): string | undefined =>
    value !== undefined && Array.from(value).length <= limit ? value : undefined;
  const sessionId = within(input.sessionId, 100);
  if (sessionId !== undefined) context.session_id = sessionId;
  const turnId = within(input.turnId, 200);
  if (turnId !== undefined) context.turn_id = turnId;
  const cwd = within(input.cwd, 1024);
  if (cwd !== undefined) context.cwd = cwd;
  const name = project !== undefined ? cut(project, 200) : undefined;
  if (name !== undefined) context.project = name;
  const requestId = within(input.toolUseId, 200);
  if (requestId !== undefined) context.native_request_id = requestId;
  if (pid !== undefined && Number.isInteger(pid) && pid >= 0) context.pid = pid;
  return context;
}

export interface MapOptions {
  /** The agent's process (the hook's parent), for display. */
  pid?: number;
  /** Finds the repository root; tests pass a fake. */
  exists?: (path: string) => boolean;
}

/**
 * Maps one hook event to what Notify does. `event` is the name on the command line (`notify hook <agent>
 * <event>`); the payload's own hook_event_name wins when present, so one command line serves every event.
 */
export function planHook(agent: AgentId, event: string, input: HookInput, options: MapOptions = {}): HookPlan {
  const given = input.hookEventName ?? input.type ?? event;
  const name = CANONICAL_EVENTS[given] ?? given;
  const plan = planEvent(agent, name, input, options);
  if (input.transcriptPath !== undefined) plan.transcriptPath = input.transcriptPath;
  // A tool call that asks (a permission, Claude Code's own questions) waits on the person.
  const signal = plan.ask !== undefined || plan.questions !== undefined ? "asking" : SESSION_SIGNAL_OF[name];
  if (signal !== undefined && input.sessionId !== undefined) {
    const said = name === "Stop" || name === "agent-turn-complete" ? input.lastAssistantMessage : undefined;
    plan.session = { signal, ...(said !== undefined ? { lastMessage: said } : {}) };
  }
  return plan;
}

/**
 * The new agents' events under the names Notify maps (Claude Code's): Copilot CLI's camelCase events, Gemini CLI's
 * AfterTool, AfterAgent and BeforeAgent, and the OpenCode plugin's events. Gemini's BeforeTool and the plugin's
 * tool.execute.before stay themselves: a gate, not a permission request.
 */
const CANONICAL_EVENTS: Record<string, string> = {
  permissionRequest: "PermissionRequest",
  preToolUse: "PreToolUse",
  postToolUse: "PostToolUse",
  agentStop: "Stop",
  notification: "Notification",
  userPromptSubmitted: "UserPromptSubmit",
  sessionEnd: "SessionEnd",
  AfterTool: "PostToolUse",
  AfterAgent: "Stop",
  BeforeAgent: "UserPromptSubmit",
  "tool.execute.before": "BeforeTool",
  "session.idle": "Stop",
  "session.deleted": "SessionEnd",
  "chat.message": "UserPromptSubmit",
};

/** What each hook event says about its session; an event not listed says nothing. */
const SESSION_SIGNAL_OF: Record<string, SessionSignal> = {
  UserPromptSubmit: "working",
  PreToolUse: "working",
  BeforeTool: "working",
  PostToolUse: "working",
  PostToolUseFailure: "working",
  PermissionRequest: "asking",
  Elicitation: "asking",
  // Not Notification: Claude Code's `idle_prompt` comes about a minute after every finished turn and opens no
  // question; counted, it turned each finished session back to working (a question open is what "waiting" reads).
  Stop: "finished",
  "agent-turn-complete": "finished",
  SessionEnd: "ended",
};

function planEvent(agent: AgentId, name: string, input: HookInput, options: MapOptions): HookPlan {
  const project = projectOf(input.cwd, options.exists);
  const plan: HookPlan = { sender: SENDERS[agent], context: contextOf(input, project, options.pid) };
  const who = displayName(agent);
  const where = project ? ` in ${project}` : "";

  switch (name) {
    case "PermissionRequest":
    case "PreToolUse": {
      if (input.toolName === undefined) return plan;
      if (agent === "claude-code" && input.toolName === ASK_USER_QUESTION) {
        // Not a permission: the questions themselves are asked, from PreToolUse (whose updatedInput carries the
        // answers). Its PermissionRequest, which comes with the terminal's own dialog once the hook has not
        // answered, asks nothing: the person answers there.
        if (name !== "PreToolUse") return plan;
        const asked = askedQuestions(input.toolInput);
        if (asked === undefined) return plan;
        const call = input.toolUseId ?? (canonicalize(input.toolInput ?? null) as string);
        plan.questions = {
          keys: asked.map((_, index) => toolUseKey(agent, input.sessionId, `${call}#${index + 1}`)),
          asked,
          requests: questionRequests(asked, input.toolInput, who, where),
          toolInput: input.toolInput,
        };
        return plan;
      }
      // Copilot CLI runs permissionRequest before its own rules, for Notify's own MCP tools too (`notify/ask_person`):
      // asking the person whether the agent may ask the person is no question. No output: Copilot's rules decide.
      if (agent === "copilot" && input.toolName.startsWith(`${MCP_SERVER_NAME}/`)) return plan;
      // Codex's PreToolUse can only deny, never allow (its hooks page), so only its PermissionRequest asks; Copilot's
      // preToolUse is not hooked (its permissionRequest asks).
      if (name === "PreToolUse" && agent !== "claude-code") return plan;
      plan.ask = {
        key:
          input.toolUseId !== undefined
            ? toolUseKey(agent, input.sessionId, input.toolUseId)
            : toolCallKey(agent, input.sessionId, input.toolName, input.toolInput, input.agentId),
        message: permissionPrompt(agent, input.toolName, input.toolInput, project),
        format:
          name !== "PermissionRequest"
            ? "pre-tool-use"
            : agent === "copilot"
              ? "copilot-permission"
              : "permission-request",
        tool: {
          name: input.toolName,
          input: input.toolInput,
          ...(input.permissionSuggestions !== undefined ? { suggestions: input.permissionSuggestions } : {}),
        },
      };
      return plan;
    }
    case "BeforeTool": {
      // Gemini CLI's BeforeTool, OpenCode's tool.execute.before: no hook answers the agent's own prompt, so Notify
      // gates the call here, and only while the person is away (run-hook.ts reads the presence).
      if (input.toolName === undefined || (agent !== "gemini" && agent !== "opencode")) return plan;
      plan.ask = {
        key:
          input.toolUseId !== undefined
            ? toolUseKey(agent, input.sessionId, input.toolUseId)
            : toolCallKey(agent, input.sessionId, input.toolName, input.toolInput, input.agentId),
        message: permissionPrompt(agent, input.toolName, input.toolInput, project),
        format: "gate",
        tool: { name: input.toolName, input: input.toolInput },
        gate: true,
      };
      return plan;
    }
    case "PostToolUse":
    case "PostToolUseFailure":
      // The tool ran (or failed) after all: its question, if one is open, is no longer needed.
      if (input.toolName === undefined) return plan;
      // The question may be under the call's id (a PreToolUse asked) or its command (a PermissionRequest asked).
      plan.settle = {
        keys: [
          ...(input.toolUseId !== undefined ? [toolUseKey(agent, input.sessionId, input.toolUseId)] : []),
          toolCallKey(agent, input.sessionId, input.toolName, input.toolInput, input.agentId),
        ],
      };
      return plan;
    case "Notification": {
      // The permission dialog's own notification: the PermissionRequest hook already asks that question (Claude
      // Code's permission_prompt; Copilot CLI's permission notifications). Gemini CLI's ToolPermission stays: its
      // prompt waits in the terminal, and no hook can answer it.
      if (input.notificationType === "permission_prompt") return plan;
      if (agent === "copilot" && /permission/i.test(input.notificationType ?? "")) return plan;
      plan.notify = {
        key: sessionKey(agent, input.sessionId),
        kind: "question",
        title: cut(`${who} needs your attention${where}`, 200),
        message: cut(input.message ?? `${who} is waiting for your input`, 4000),
      };
      return plan;
    }
    case "Stop":
    case "agent-turn-complete": {
      if (input.sessionId !== undefined) plan.settle = { session: input.sessionId };
      const last = input.lastAssistantMessage?.trim();
      const said = last !== undefined && last !== "" ? last : `${who} finished its turn`;
      plan.notify = {
        key: sessionKey(agent, input.sessionId),
        kind: "completion",
        title: cut(`${who} finished${where}`, 200),
        message: cut(said, 4000),
      };
      // Only a Stop hook can continue the turn; Codex's legacy notify (agent-turn-complete) only reports. OpenCode's
      // session.idle continues through Notify's plugin, only where the session lives on (not a one-shot `run`).
      const continues = agent !== "opencode" || input.canContinue === true;
      if (name === "Stop" && continues && input.sessionId !== undefined) {
        plan.followUp = {
          session: input.sessionId,
          prompt: cut(said, PROMPT_LIMIT),
          lastMessage: said,
          continued: input.stopHookActive === true,
          ...(input.transcriptPath !== undefined ? { transcriptPath: input.transcriptPath } : {}),
        };
      }
      return plan;
    }
    case ELICITATION: {
      if (agent !== "claude-code" || input.elicitation === undefined) return plan;
      const { elicitation } = input;
      const call = `elicitation:${elicitation.id ?? canonicalize({ ...elicitation, at: input.toolUseId ?? null })}`;
      const base = toolUseKey(agent, input.sessionId, call);
      const questions = formQuestions(elicitation, base.slice(toolKeyPrefix(agent).length), who, where);
      plan.form = {
        keys: questions.map((question, index) => (question.field === undefined ? base : `${base}:field:${index + 1}`)),
        questions,
      };
      return plan;
    }
    case "UserPromptSubmit":
    case "SessionEnd":
      // The session moved on: any question still open in it was answered in the terminal.
      if (input.sessionId !== undefined) plan.settle = { session: input.sessionId };
      return plan;
    default:
      return plan;
  }
}
