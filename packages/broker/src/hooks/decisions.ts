import type { AgentId } from "./agents.js";
import { displayName } from "./agents.js";
import type { DecisionFormat } from "./mapping.js";
import { cut, PROMPT_LIMIT } from "./prompt.js";

/**
 * The decisions a permission question offers (docs/hooks.md, "Every decision the agent takes"), each one the asking agent accepts and
 * nothing else. An answer is always one choice (the spec's shape); a decision that needs words (a reason, an edited
 * command) asks for them in a second, text question in the same item, and only then goes to the agent.
 */
export type DecisionId = "allow" | "allow_always" | "allow_always_project" | "deny" | "deny_reason" | "edit";

export interface DecisionChoice {
  id: DecisionId;
  label: string;
  detail?: string;
}

/** Claude Code's permission rule for "always allow", as its PermissionRequest `updatedPermissions` takes it. */
export interface PermissionUpdate {
  type: "addRules";
  rules: { toolName: string; ruleContent?: string }[];
  behavior: "allow";
  destination: "session" | "localSettings";
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The rule "always allow" adds: Claude Code's own suggestion for this call (`permission_suggestions`, an `addRules`
 * entry), else one for the tool (a Bash call: its command's first word as a prefix rule, `npm:*`). Undefined when
 * no rule can be named (the choice is then not offered).
 */
export function alwaysRule(
  toolName: string,
  toolInput: unknown,
  suggestions: unknown,
): PermissionUpdate["rules"] | undefined {
  if (Array.isArray(suggestions)) {
    for (const suggestion of suggestions) {
      if (!isRecord(suggestion) || suggestion.type !== "addRules" || !Array.isArray(suggestion.rules)) continue;
      const rules = suggestion.rules
        .filter(isRecord)
        .filter((rule) => typeof rule.toolName === "string")
        .map((rule) => ({
          toolName: rule.toolName as string,
          ...(typeof rule.ruleContent === "string" ? { ruleContent: rule.ruleContent } : {}),
        }));
      if (rules.length > 0) return rules;
    }
  }
  if (toolName === "Bash") {
    const command = isRecord(toolInput) && typeof toolInput.command === "string" ? toolInput.command.trim() : "";
    const first = command.split(/\s+/)[0] ?? "";
    if (!/^[\w./-]+$/.test(first)) return undefined;
    return [{ toolName, ruleContent: `${first}:*` }];
  }
  if (toolName === "") return undefined;
  return [{ toolName }];
}

/** What "always allow" would allow, in words: `Bash(npm:*)`, `Edit`. */
export function ruleWords(rules: PermissionUpdate["rules"]): string {
  return rules.map((rule) => (rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName)).join(", ");
}

/**
 * The choices of a permission question for `agent`'s hook in `format`. Claude Code's PermissionRequest takes all
 * (allow with `updatedPermissions` or `updatedInput`, deny with a `message`); its PreToolUse takes allow and deny
 * with a reason (`permissionDecisionReason`); Codex's PermissionRequest takes allow and deny with a `message`, and
 * refuses `updatedInput` and `updatedPermissions`, so those are never offered for it.
 */
export function decisionChoices(
  agent: AgentId,
  format: DecisionFormat,
  toolName: string,
  toolInput: unknown,
  suggestions: unknown,
): DecisionChoice[] {
  const choices: DecisionChoice[] = [{ id: "allow", label: "Allow" }];
  if (agent === "claude-code" && format === "permission-request") {
    const rules = alwaysRule(toolName, toolInput, suggestions);
    if (rules !== undefined) {
      const what = ruleWords(rules);
      choices.push(
        { id: "allow_always", label: "Always allow (this session)", detail: `Adds the rule ${what} for this session` },
        {
          id: "allow_always_project",
          label: "Always allow (this project)",
          detail: `Adds the rule ${what} to .claude/settings.local.json`,
        },
      );
    }
  }
  choices.push({ id: "deny", label: "Deny" });
  choices.push({ id: "deny_reason", label: "Deny with a reason…", detail: `The reason goes to ${displayName(agent)}` });
  if (agent === "claude-code" && format === "permission-request" && toolName === "Bash") {
    choices.push({ id: "edit", label: "Edit the command…", detail: "The edited command runs instead" });
  }
  return choices;
}

/** The second question a decision needs words for: its title and prompt. */
export function wordsQuestion(
  agent: AgentId,
  decision: "deny_reason" | "edit",
  toolInput: unknown,
): { title: string; message: string } {
  const who = displayName(agent);
  if (decision === "deny_reason") {
    return { title: `Why deny? (sent to ${who})`, message: `${who} is told it was denied, with your reason.` };
  }
  const command = isRecord(toolInput) && typeof toolInput.command === "string" ? toolInput.command : "";
  return {
    title: "Edit the command (it runs as you write it)",
    message: cut(`The command ${who} asked to run:\n\n${command}`, PROMPT_LIMIT),
  };
}
