import { type AgentId, HOOK_TIMEOUT_SECONDS } from "../agents.js";

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
  ],
  codex: [
    { event: "PermissionRequest", matcher: "*" },
    { event: "PostToolUse", matcher: "*" },
    { event: "Stop" },
    { event: "UserPromptSubmit" },
  ],
};

type Json = Record<string, unknown>;

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

/** The matcher groups Notify adds, one per event (Claude Code and Codex read the same settings shape). */
export function notifyGroups(agent: AgentId, program: string[], extra: string[] = []): Record<string, Json> {
  const groups: Record<string, Json> = {};
  for (const { event, matcher } of HOOK_EVENTS[agent]) {
    const hook = { type: "command", command: hookCommand(program, agent, event, extra), timeout: HOOK_TIMEOUT_SECONDS };
    groups[event] = matcher !== undefined ? { matcher, hooks: [hook] } : { hooks: [hook] };
  }
  return groups;
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
      const commands = (group as Json | null)?.hooks;
      if (!Array.isArray(commands)) {
        kept.push(group);
        continue;
      }
      const others = commands.filter((hook) => !isNotifyCommand((hook as Json | null)?.command, agent));
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
export function addNotify(document: Json, agent: AgentId, program: string[], extra: string[] = []): void {
  stripNotify(document, agent);
  if (document.hooks === undefined) document.hooks = {};
  const byEvent = document.hooks as Record<string, unknown>;
  for (const [event, group] of Object.entries(notifyGroups(agent, program, extra))) {
    const existing = byEvent[event];
    byEvent[event] = Array.isArray(existing) ? [...existing, group] : [group];
  }
}

/** The events whose Notify command is present in a parsed document. */
export function installedEvents(document: Json, agent: AgentId): string[] {
  const hooks = document.hooks;
  if (hooks === null || typeof hooks !== "object" || Array.isArray(hooks)) return [];
  const events: string[] = [];
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    const found = groups.some((group) => {
      const commands = (group as Json | null)?.hooks;
      return Array.isArray(commands) && commands.some((hook) => isNotifyCommand((hook as Json | null)?.command, agent));
    });
    if (found) events.push(event);
  }
  return events;
}
