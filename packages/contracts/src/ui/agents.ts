/**
 * /ui/api/router/agents (docs/connectors.md, "Agent connectors"): the accounts of the two host agents as the
 * Agents page and `notify router agents` show them, and the copies taken before every change. The broker's
 * connector service returns these shapes; the page reads them.
 */

import type { ConnectorAgentId } from "../enums.js";

export type { ConnectorAgentId } from "../enums.js";

/** One monitored account of a host agent. */
export interface AgentAccountView {
  id: string;
  agent: ConnectorAgentId;
  label: string;
  dir: string;
  built_in: boolean;
  installed: boolean;
  connected: boolean;
  model: string | null;
  effort: string | null;
  subagent_model: string | null;
  subagent_effort: string | null;
  review_model: string | null;
  small_model: string | null;
  replace_lineup: boolean;
  /** The agent files Notify has written for this account. */
  files: string[];
}

/** One copy of an agent file taken before Notify changed it (docs/connectors.md, "Writing rules"). */
export interface AgentFileBackup {
  id: string;
  agent: ConnectorAgentId;
  account: string;
  /** The agent file the copy was taken from (and is restored to). */
  file: string;
  created_at: string;
  bytes: number;
  /** Why it was taken: `connect`, `rewrite`, `disconnect`, `restore`. */
  reason: string;
}

/**
 * GET /ui/api/agents/integrations (issue 38): one piece of Notify in an agent's own files (the user scope):
 * written, absent, or a file Notify cannot parse.
 */
export type IntegrationState = "installed" | "not_installed" | "unreadable";

/** One agent in the web page's agents list, with Notify's hooks and MCP entry in the user's own files. */
export interface AgentIntegrationView {
  agent: string;
  name: string;
  /** The agent's per-user directory exists (it has run on this computer). */
  installed: boolean;
  hooks: { state: IntegrationState; events: string[]; file: string };
  mcp: { state: IntegrationState; file: string };
}
