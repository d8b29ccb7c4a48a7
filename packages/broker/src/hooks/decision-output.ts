import type { AgentId } from "./agents.js";
import type { PermissionUpdate } from "./decisions.js";
import type { DecisionFormat } from "./mapping.js";

export type Decision = "allow" | "deny";

/**
 * What a decision carries besides allow or deny (docs/hooks.md, "Every decision the agent takes"), only where the agent takes it: the
 * person's reason for a deny (Claude Code's `message` and `permissionDecisionReason`, Codex's `message`), an edited
 * input and "always allow" rules (Claude Code's PermissionRequest `updatedInput` and `updatedPermissions`).
 */
export interface DecisionMore {
  message?: string;
  updatedInput?: unknown;
  updatedPermissions?: PermissionUpdate[];
}

/**
 * The decision in the agent's own output format, one JSON line for stdout. Claude Code and Codex read the same
 * shapes:
 * - PermissionRequest: `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior":
 *   "allow" or "deny", "message"?}}}` (https://code.claude.com/docs/en/hooks "PermissionRequest decision control";
 *   https://developers.openai.com/codex/hooks "PermissionRequest": Codex refuses updatedInput,
 *   updatedPermissions and interrupt, so they are never sent).
 * - Claude Code PreToolUse: `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
 *   "allow" or "deny", "permissionDecisionReason"}}` (same page, "PreToolUse decision control").
 * - Copilot CLI permissionRequest: `{"behavior": "allow"}` or `{"behavior": "deny", "message"}`.
 * - A before-tool gate (Gemini CLI BeforeTool, Notify's OpenCode plugin): `{"decision": "allow"}` or
 *   `{"decision": "deny", "reason"}`.
 * Without a decision nothing is printed: the agent then shows its own prompt.
 */
export function decisionOutput(
  format: DecisionFormat,
  decision: Decision,
  answeredBy: string,
  more: DecisionMore = {},
): string {
  const said = `${decision === "allow" ? "Allowed" : "Denied"} in Notify (answered from ${answeredBy})`;
  const reason = more.message === undefined ? said : `${more.message}\n(${said})`;
  switch (format) {
    case "permission-request": {
      const allow: Record<string, unknown> = { behavior: "allow" };
      if (more.updatedInput !== undefined) allow.updatedInput = more.updatedInput;
      if (more.updatedPermissions !== undefined) allow.updatedPermissions = more.updatedPermissions;
      return JSON.stringify({
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: decision === "allow" ? allow : { behavior: "deny", message: reason },
        },
      });
    }
    case "pre-tool-use":
      return JSON.stringify({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: decision,
          permissionDecisionReason: reason,
        },
      });
    case "copilot-permission":
      // Copilot CLI's permissionRequest reads `behavior` at the top (its hooks reference; recorded with 1.0.102).
      return JSON.stringify(decision === "allow" ? { behavior: "allow" } : { behavior: "deny", message: reason });
    case "gate":
      // Gemini CLI's BeforeTool (its hooks reference: the reason goes to the model as the tool's error) and Notify's
      // OpenCode plugin (a deny throws the reason, which blocks the call).
      return JSON.stringify(decision === "allow" ? { decision: "allow" } : { decision: "deny", reason });
    default: {
      const _exhaustive: never = format;
      return String(_exhaustive);
    }
  }
}

/**
 * A follow-up reply as the agent's next instruction (docs/hooks.md, "Follow-ups"): the Stop hook's block, which
 * both agents read the same way: `{"decision": "block", "reason": TEXT}` keeps the agent going with TEXT as what
 * to do next (Claude Code: https://code.claude.com/docs/en/hooks "Stop decision control"; Codex:
 * https://developers.openai.com/codex/hooks "Stop").
 */
export function continueOutput(text: string, agent?: AgentId): string {
  // Gemini CLI's AfterAgent: a deny with a reason sends the reason to the agent as its next prompt (its hooks
  // reference, "AfterAgent"). Copilot CLI's agentStop reads Claude Code's block (its hooks reference, "agentStop").
  if (agent === "gemini") return JSON.stringify({ decision: "deny", reason: text });
  return JSON.stringify({ decision: "block", reason: text });
}
