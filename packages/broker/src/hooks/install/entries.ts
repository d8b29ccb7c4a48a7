import { type AgentId, HOOK_TIMEOUT_SECONDS } from "../agents.js";

/**
 * The Gemini CLI tools Notify's BeforeTool gate asks about (a regex on the tool name, Gemini's matcher): the shell
 * and the file writers. Reads, searches and MCP tools (Notify's own ask_person among them) are never gated.
 */
export const GEMINI_GATED_TOOLS = "^(run_shell_command|write_file|replace)$";

/** The events Notify hooks into per agent, and the tool matcher of those that take one. */
export const HOOK_EVENTS: Record<AgentId, { event: string; matcher?: string }[]> = {
  "claude-code": [
    { event: "PermissionRequest", matcher: "*" },
    { event: "PostToolUse", matcher: "*" },
    { event: "Notification" },
    { event: "Stop" },
    // The next prompt withdraws a question left open by an interrupted turn: an agent that kills its hook with
    // SIGKILL (Codex on Esc) gives the hook no chance to withdraw it itself.
    { event: "UserPromptSubmit" },
    // Claude Code's own question tool: its questions go to Notify, the answers come back as the call's input
    // (issue 26, item 3; hooks/ask-user-question.ts).
    { event: "PreToolUse", matcher: "AskUserQuestion" },
    // An MCP server asking the person (elicitation): its form goes to Notify, the answer back to the server
    // (issue 36, item 4; hooks/elicitation.ts).
    { event: "Elicitation" },
    // The session's end: the sessions list shows it ended (issue 37, item 1), and its open questions are withdrawn.
    { event: "SessionEnd" },
  ],
  codex: [
    { event: "PermissionRequest", matcher: "*" },
    { event: "PostToolUse", matcher: "*" },
    { event: "Stop" },
    { event: "UserPromptSubmit" },
  ],
  // Gemini CLI (docs/hooks.md, "Gemini CLI"): no hook answers its own prompt, so Notify gates the tools that change
  // something in BeforeTool (mapping.ts); AfterAgent is its finished turn, BeforeAgent its next prompt.
  gemini: [
    { event: "BeforeTool", matcher: GEMINI_GATED_TOOLS },
    { event: "AfterAgent" },
    { event: "Notification" },
    { event: "BeforeAgent" },
    { event: "SessionEnd" },
  ],
  // GitHub Copilot CLI (docs/hooks.md, "GitHub Copilot CLI"): camelCase events, flat entries (no matcher groups).
  copilot: [
    { event: "permissionRequest" },
    { event: "postToolUse" },
    { event: "agentStop" },
    { event: "notification" },
    { event: "userPromptSubmitted" },
    { event: "sessionEnd" },
  ],
  // OpenCode has no command hooks: its plugin file (opencode-plugin.ts) runs `notify hook opencode <event>` itself.
  opencode: [],
};

type Json = Record<string, unknown>;

/** Which kind of hook an event uses: Claude Code posting to the broker itself, or a `notify hook` process. */
export type HookKind = "http" | "command";

/** The path of Claude Code's `"type": "http"` hooks (docs/hooks.md, "HTTP hooks"). */
export const HTTP_HOOK_PATH = "/v1/hooks/claude-code";
/** The variable Claude Code fills the hook's Authorization header from (user settings `env`, never a project's). */
export const HOOK_TOKEN_VARIABLE = "NOTIFY_HOOK_TOKEN";
/** An event that asks nothing runs within the hook's 30 s budget (run-hook.ts); Claude Code's timeout is a bit more. */
const REPORT_TIMEOUT_SECONDS = 40;
/** Events that open a question wait up to its expiry, like the command hook (agents.ts). */
const ASKING_EVENTS = new Set(["PermissionRequest", "PreToolUse", "Elicitation", "BeforeTool", "permissionRequest"]);
/** The events that end a turn and may wait for a follow-up: Claude Code's and Codex's Stop, Gemini's AfterAgent, Copilot's agentStop. */
const STOP_EVENTS = new Set(["Stop", "AfterAgent", "agentStop"]);
/**
 * A finished turn may wait for a follow-up up to config.json `followUp.waitSeconds` (at most a day): the Stop entry's
 * timeout covers the longest window, so changing the setting needs no new install. Both agents kill a hook at 600 s
 * unless its entry says otherwise; the hook itself ends at the window the broker names (run-hook.ts).
 */
export const STOP_TIMEOUT_SECONDS = 86_400 + 60;
/**
 * What the agent shows while the Stop hook runs (Claude Code: "running Stop hook" and, after a reply, the line naming
 * the hook; Codex: beside "Working"): it says what the wait is and how to leave it.
 */
export const STOP_STATUS_MESSAGE =
  "Notify: waiting for a follow-up from your phone or chat (type here or Esc to go on)";

/** The timeout (and status line) of Notify's entry for `event`. */
function entryTiming(event: string, asking: number, reporting: number): Json {
  if (event === "Stop") return { timeout: STOP_TIMEOUT_SECONDS, statusMessage: STOP_STATUS_MESSAGE };
  return { timeout: ASKING_EVENTS.has(event) ? asking : reporting };
}

/** The seconds an agent gives Notify's entry for `event` before it kills the hook. */
const entrySeconds = (event: string): number => (STOP_EVENTS.has(event) ? STOP_TIMEOUT_SECONDS : HOOK_TIMEOUT_SECONDS);

/**
 * One command entry in the agent's own shape: Claude Code and Codex `{type, command, timeout}` (seconds), Gemini CLI
 * `{type, name, command, timeout}` (milliseconds; its hooks reference), Copilot CLI `{type, bash, timeoutSec}`.
 */
function commandEntry(agent: AgentId, event: string, command: string): Json {
  if (agent === "gemini") return { type: "command", name: "notify", command, timeout: entrySeconds(event) * 1000 };
  if (agent === "copilot") return { type: "command", bash: command, timeoutSec: entrySeconds(event) };
  return { type: "command", command, ...entryTiming(event, HOOK_TIMEOUT_SECONDS, HOOK_TIMEOUT_SECONDS) };
}

/** A hook entry's shell command: `command`, or Copilot's `bash`. */
export const commandOf = (hook: unknown): unknown => {
  if (hook === null || typeof hook !== "object") return undefined;
  const { command, bash } = hook as Json;
  return command ?? bash;
};

/** Copilot CLI lists its entries flat under each event; the others in matcher groups `{matcher?, hooks: [...]}`. */
const FLAT_AGENTS: ReadonlySet<AgentId> = new Set(["copilot"]);

/**
 * Claude Code's `"type": "http"` entry for one event: the broker on loopback (its request guard allows 127.0.0.1),
 * the hook token named, not written: Claude Code fills `$NOTIFY_HOOK_TOKEN` from the variables listed in
 * `allowedEnvVars` only.
 */
export function httpHook(port: number, event: string): Json {
  return {
    type: "http",
    url: `http://127.0.0.1:${port}${HTTP_HOOK_PATH}`,
    headers: { Authorization: `Bearer $${HOOK_TOKEN_VARIABLE}` },
    allowedEnvVars: [HOOK_TOKEN_VARIABLE],
    ...entryTiming(event, HOOK_TIMEOUT_SECONDS, REPORT_TIMEOUT_SECONDS),
  };
}

/** An http entry Notify wrote: a loopback URL ending in the hook route. */
export function isNotifyHttpHook(hook: unknown): boolean {
  if (hook === null || typeof hook !== "object") return false;
  const { type, url } = hook as Json;
  return (
    type === "http" &&
    typeof url === "string" &&
    new RegExp(`^http://(?:127\\.0\\.0\\.1|\\[::1\\]):\\d+${HTTP_HOOK_PATH}$`).test(url)
  );
}

/** The kind of a hook entry when Notify wrote it, else undefined. */
export function notifyHookKind(hook: unknown, agent: AgentId): HookKind | undefined {
  if (isNotifyCommand(commandOf(hook), agent)) return "command";
  if (agent === "claude-code" && isNotifyHttpHook(hook)) return "http";
  return undefined;
}

/** Single-quotes a word for the POSIX shell the agents run hook commands with. */
export const shellQuote = (word: string): string =>
  /^[A-Za-z0-9_./:=@-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

/** `notify hook <agent> <event>` as a command line: the program words (node and the CLI) then the hook's words. */
export function hookCommand(program: string[], agent: AgentId, event: string, extra: string[] = []): string {
  return [...program, "hook", agent, event, ...extra].map(shellQuote).join(" ");
}

/** A command Notify wrote: `... hook <agent> <Event>` run by a program named notify or Notify's CLI file. */
export function isNotifyCommand(command: unknown, agent: AgentId): boolean {
  if (typeof command !== "string") return false;
  return new RegExp(`(?:^|[\\s/'"])(?:notify|main\\.js)'?\\s+hook\\s+${agent}\\s`).test(command);
}

/** Claude Code's http hooks posting to the broker on this port (`notify hooks install --kind http`). */
export interface HttpHooks {
  port: number;
}

/**
 * The events an http hook cannot serve, which keep the `notify hook` command: Claude Code runs no http hook for
 * SessionStart and Setup (its changelog, 2.1.51). Notify hooks neither, so today every event of HOOK_EVENTS goes over
 * http; the set is here so an event added later lands on the right side.
 */
export const COMMAND_ONLY_EVENTS: ReadonlySet<string> = new Set(["SessionStart", "Setup"]);

/**
 * The matcher groups Notify adds, one per event (Claude Code and Codex read the same settings shape): `notify hook`
 * commands, or for Claude Code with `http` an http entry per event that one can serve.
 */
export function notifyGroups(
  agent: AgentId,
  program: string[],
  extra: string[] = [],
  http?: HttpHooks,
): Record<string, Json> {
  const groups: Record<string, Json> = {};
  for (const { event, matcher } of HOOK_EVENTS[agent]) {
    const hook =
      http !== undefined && agent === "claude-code" && !COMMAND_ONLY_EVENTS.has(event)
        ? httpHook(http.port, event)
        : commandEntry(agent, event, hookCommand(program, agent, event, extra));
    groups[event] = FLAT_AGENTS.has(agent)
      ? hook
      : matcher !== undefined
        ? { matcher, hooks: [hook] }
        : { hooks: [hook] };
  }
  return groups;
}

/** Sets the hook token in a parsed settings document's `env` (Claude Code's user settings only), in place. */
export function setHookToken(document: Json, token: string): void {
  const env = document.env;
  document.env = {
    ...(env !== null && typeof env === "object" && !Array.isArray(env) ? (env as Json) : {}),
    [HOOK_TOKEN_VARIABLE]: token,
  };
}

/** Takes the hook token out of a parsed settings document's `env` (and `env` when left empty), in place. */
export function stripHookToken(document: Json): boolean {
  const env = document.env;
  if (env === null || typeof env !== "object" || Array.isArray(env) || !(HOOK_TOKEN_VARIABLE in env)) return false;
  delete (env as Json)[HOOK_TOKEN_VARIABLE];
  if (Object.keys(env).length === 0) delete document.env;
  return true;
}

/** Removes Notify's hook commands (and groups left empty by that) from a parsed settings document, in place. */
export function stripNotify(document: Json, agent: AgentId): boolean {
  const hooks = document.hooks;
  if (hooks === null || typeof hooks !== "object" || Array.isArray(hooks)) return false;
  let changed = false;
  const byEvent = hooks as Record<string, unknown>;
  for (const [event, groups] of Object.entries(byEvent)) {
    if (!Array.isArray(groups)) continue;
    const kept: unknown[] = [];
    for (const group of groups) {
      if (FLAT_AGENTS.has(agent)) {
        if (notifyHookKind(group, agent) === undefined) kept.push(group);
        else changed = true;
        continue;
      }
      const commands = (group as Json | null)?.hooks;
      if (!Array.isArray(commands)) {
        kept.push(group);
        continue;
      }
      const others = commands.filter((hook) => notifyHookKind(hook, agent) === undefined);
      if (others.length === commands.length) kept.push(group);
      else {
        changed = true;
        if (others.length > 0) kept.push({ ...(group as Json), hooks: others });
      }
    }
    if (kept.length === 0) delete byEvent[event];
    else byEvent[event] = kept;
  }
  if (changed && Object.keys(byEvent).length === 0) delete document.hooks;
  return changed;
}

/** Adds Notify's groups to a parsed settings document (after removing any older Notify entries), in place. */
export function addNotify(
  document: Json,
  agent: AgentId,
  program: string[],
  extra: string[] = [],
  http?: HttpHooks,
): void {
  stripNotify(document, agent);
  // Copilot CLI reads a hooks file of `"version": 1` only (its hooks reference, "Hook configuration format").
  if (agent === "copilot" && document.version === undefined) document.version = 1;
  if (document.hooks === undefined) document.hooks = {};
  const byEvent = document.hooks as Record<string, unknown>;
  for (const [event, group] of Object.entries(notifyGroups(agent, program, extra, http))) {
    const existing = byEvent[event];
    byEvent[event] = Array.isArray(existing) ? [...existing, group] : [group];
  }
}

/** The events whose Notify hook is present in a parsed document. */
export function installedEvents(document: Json, agent: AgentId): string[] {
  return Object.keys(installedKinds(document, agent));
}

/** Each event Notify hooks into in a parsed document, with the kind its entry is (http or command). */
export function installedKinds(document: Json, agent: AgentId): Record<string, HookKind> {
  const hooks = document.hooks;
  const kinds: Record<string, HookKind> = {};
  if (hooks === null || typeof hooks !== "object" || Array.isArray(hooks)) return kinds;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const commands = FLAT_AGENTS.has(agent) ? [group] : (group as Json | null)?.hooks;
      if (!Array.isArray(commands)) continue;
      for (const hook of commands) {
        const kind = notifyHookKind(hook, agent);
        if (kind !== undefined && kinds[event] === undefined) kinds[event] = kind;
      }
    }
  }
  return kinds;
}
