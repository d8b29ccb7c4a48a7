import { CONNECTOR_AGENTS, type ConnectorAgentId } from "@notify/contracts/enums";

/**
 * config.json key `RouterAgentAccounts`: the host agents' extra accounts, beyond each agent's default one, as an
 * array of `{agent, dir, label?}` with `agent` a connector agent (`codex` or `claude-code`). `dir` is the account's
 * own directory (for Codex, the CODEX_HOME of that account, holding its auth.json): absolute, or `~/`-relative. The
 * agent connectors read the same key (docs/config.md). Entries that do not fit are skipped, never fatal.
 */
export const AGENT_ACCOUNTS_KEY = "RouterAgentAccounts";

export interface AgentAccountEntry {
  agent: ConnectorAgentId;
  dir: string;
  label?: string;
}

const isConnectorAgent = (value: unknown): value is ConnectorAgentId =>
  (CONNECTOR_AGENTS as readonly unknown[]).includes(value);

export function parseAgentAccounts(value: unknown): AgentAccountEntry[] {
  if (!Array.isArray(value)) return [];
  const entries: AgentAccountEntry[] = [];
  for (const item of value.slice(0, 100)) {
    if (item === null || typeof item !== "object") continue;
    const { agent, dir, label } = item as Record<string, unknown>;
    if (!isConnectorAgent(agent)) continue;
    if (typeof dir !== "string" || dir.length === 0 || dir.length > 1024) continue;
    if (!dir.startsWith("/") && !dir.startsWith("~/")) continue;
    const entry: AgentAccountEntry = { agent, dir };
    if (typeof label === "string" && label.length >= 1 && label.length <= 100) entry.label = label;
    entries.push(entry);
  }
  return entries;
}
