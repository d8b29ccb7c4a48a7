import type { ArcSender } from "@notify/contracts";
import { AGENT_DISPLAY_NAMES, HOOK_AGENTS, type HookAgentId } from "@notify/contracts/enums";

export type AgentId = HookAgentId;
/**
 * The agents Notify installs itself into (docs/hooks.md; issue 38): the contract's agents in name
 * order, Claude Code first, the order `notify hooks status` lists them and an unknown agent's message names them in.
 */
export const AGENTS: readonly AgentId[] = [...HOOK_AGENTS].sort();

export const isAgent = (value: string): value is AgentId => (AGENTS as readonly string[]).includes(value);

/** ARC `sender` per agent: `sender.id` becomes the notification's and the question's `agent`. */
export const SENDERS: Record<AgentId, ArcSender> = {
  "claude-code": { id: "claude-code", name: AGENT_DISPLAY_NAMES["claude-code"] },
  codex: { id: "codex", name: AGENT_DISPLAY_NAMES.codex },
  gemini: { id: "gemini", name: AGENT_DISPLAY_NAMES.gemini },
  copilot: { id: "copilot", name: AGENT_DISPLAY_NAMES.copilot },
  opencode: { id: "opencode", name: AGENT_DISPLAY_NAMES.opencode },
};

/** The agent's name as a person reads it in a prompt or a title. */
export const displayName = (agent: AgentId): string => SENDERS[agent].name ?? agent;

/**
 * Seconds a hook question stays open. The hook entry written into the agent's config gets a longer timeout
 * (HOOK_TIMEOUT_SECONDS), so the question expires and the hook exits quietly before the agent would kill it:
 * the agent's own prompt then decides (issue 12: an unanswered question is never consent and never refusal).
 */
export const QUESTION_TTL_SECONDS = 600;
export const HOOK_TIMEOUT_SECONDS = 660;
