import type { AgentAccountView, AgentFileBackup } from "@notify/contracts/ui";
import { call } from "../api/client.js";

/**
 * /ui/api/router/agents (packages/broker/src/http/routes/ui-router-agents.ts; shapes in docs/connectors.md):
 * the accounts of Codex and Claude Code, connect and disconnect, and the copies taken before every change.
 */
export type AgentAccount = AgentAccountView;
export type AgentBackup = AgentFileBackup;

export interface ConnectInput {
  model?: string;
  effort?: string;
  subagent_model?: string;
  review_model?: string;
  replace_lineup?: boolean;
}

export const agentsApi = {
  list: () => call<{ accounts: AgentAccount[]; selectors: string[] }>("GET", "/router/agents"),
  connect: (agent: string, input: ConnectInput) =>
    call<{ accounts: AgentAccount[] }>("POST", `/router/agents/${encodeURIComponent(agent)}/connect`, input),
  disconnect: (agent: string) =>
    call<{ accounts: AgentAccount[] }>("POST", `/router/agents/${encodeURIComponent(agent)}/disconnect`, {}),
  backups: () => call<{ backups: AgentBackup[] }>("GET", "/router/agents/backups"),
  restore: (id: string) => call<unknown>("POST", `/router/agents/backups/${encodeURIComponent(id)}/restore`, {}),
};
