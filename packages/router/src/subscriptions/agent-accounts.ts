/**
 * config.json key `RouterAgentAccounts`: the host agents' extra accounts, beyond each agent's default one, as an
 * array of `{agent: "codex" | "claude-code", dir, label?}`. `dir` is the account's own directory (for Codex, the
 * CODEX_HOME of that account, holding its auth.json): absolute, or `~/`-relative. The agent connectors read the same
 * key (docs/config.md). Entries that do not fit are skipped, never fatal.
 */
export const AGENT_ACCOUNTS_KEY = "RouterAgentAccounts";

export interface AgentAccountEntry {
  agent: "codex" | "claude-code";
  dir: string;
  label?: string;
}

export function parseAgentAccounts(value: unknown): AgentAccountEntry[] {
  if (!Array.isArray(value)) return [];
  const entries: AgentAccountEntry[] = [];
  for (const item of value.slice(0, 100)) {
    if (item === null || typeof item !== "object") continue;
    const { agent, dir, label } = item as Record<string, unknown>;
    if (agent !== "codex" && agent !== "claude-code") continue;
    if (typeof dir !== "string" || dir.length === 0 || dir.length > 1024) continue;
    if (!dir.startsWith("/") && !dir.startsWith("~/")) continue;
    const entry: AgentAccountEntry = { agent, dir };
    if (typeof label === "string" && label.length >= 1 && label.length <= 100) entry.label = label;
    entries.push(entry);
  }
  return entries;
}
