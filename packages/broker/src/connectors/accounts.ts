import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { CONNECTOR_AGENTS, type ConnectorAgentId } from "@notify/contracts/enums";
import type { AgentAccountEntry } from "@notify/router";

/**
 * The two hosts with connectors (docs/connectors.md, "Agent connectors"): host A is Codex, host B is Claude Code. The
 * list is the contract's (issue 34: each enum once).
 */
export { CONNECTOR_AGENTS };
export type ConnectorAgent = ConnectorAgentId;

export const isConnectorAgent = (value: string): value is ConnectorAgent =>
  (CONNECTOR_AGENTS as readonly string[]).includes(value);

/** One monitored account of a host: its own configuration directory. */
export interface AgentAccount {
  /** `codex`, `claude-code` for the built-in account; `<agent>:<12 hex of the directory>` for the others. */
  id: string;
  agent: ConnectorAgent;
  dir: string;
  label: string;
  /** The account the host uses when nothing else is said ($CODEX_HOME / $CLAUDE_CONFIG_DIR or the home default). */
  builtIn: boolean;
  /** The directory exists. Nothing is ever created for an account whose directory is missing. */
  installed: boolean;
}

/** Where the connectors look: the broker's environment, or a test's. */
export interface AccountEnv {
  home?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * config.json `RouterAgentAccounts`: extra account directories, `[{agent, dir, label?}]` with `agent` a connector
 * agent (`codex` or `claude-code`).
 * The same key lists the accounts subscription upstreams read (docs/router.md), so one parser reads it for both
 * (@notify/router's parseAgentAccounts: entries of another shape, or a dir not absolute or under ~/, are skipped).
 */
export type ConfiguredAccount = AgentAccountEntry;

const nonEmpty = (value: string | undefined): string | undefined =>
  value !== undefined && value !== "" ? value : undefined;

/**
 * The built-in account's directory: Codex reads `$CODEX_HOME` (default `~/.codex`,
 * https://developers.openai.com/codex/config-advanced "Config and state locations"); Claude Code reads
 * `$CLAUDE_CONFIG_DIR` (default `~/.claude`, https://code.claude.com/docs/en/settings "Settings files").
 */
export function builtInDir(agent: ConnectorAgent, where: AccountEnv = {}): string {
  const env = where.env ?? process.env;
  const home = where.home ?? nonEmpty(env.HOME) ?? homedir();
  if (agent === "codex") return nonEmpty(env.CODEX_HOME) ?? join(home, ".codex");
  return nonEmpty(env.CLAUDE_CONFIG_DIR) ?? join(home, ".claude");
}

const isDirectory = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

const expandHome = (dir: string, home: string): string =>
  dir === "~" ? home : dir.startsWith("~/") ? join(home, dir.slice(2)) : dir;

/** Every monitored account: the built-in one per agent first, then the configured ones (a repeat is listed once). */
export function listAccounts(configured: ConfiguredAccount[], where: AccountEnv = {}): AgentAccount[] {
  const env = where.env ?? process.env;
  const home = where.home ?? nonEmpty(env.HOME) ?? homedir();
  const accounts: AgentAccount[] = [];
  const seen = new Set<string>();
  for (const agent of CONNECTOR_AGENTS) {
    const dir = resolve(builtInDir(agent, { home, env }));
    seen.add(`${agent}\0${dir}`);
    accounts.push({ id: agent, agent, dir, label: "default", builtIn: true, installed: isDirectory(dir) });
  }
  for (const account of configured) {
    const dir = resolve(expandHome(account.dir, home));
    if (seen.has(`${account.agent}\0${dir}`)) continue;
    seen.add(`${account.agent}\0${dir}`);
    const id = `${account.agent}:${createHash("sha256").update(dir).digest("hex").slice(0, 12)}`;
    accounts.push({
      id,
      agent: account.agent,
      dir,
      label: account.label ?? dir,
      builtIn: false,
      installed: isDirectory(dir),
    });
  }
  return accounts;
}
