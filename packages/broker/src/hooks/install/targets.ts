import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { INSTALL_SCOPES, type InstallScope } from "@notify/contracts/enums";
import type { AgentId } from "../agents.js";

/** The user's own settings, or the current project's (the contract's INSTALL_SCOPES, in that order). */
export type Scope = InstallScope;
export const SCOPES: readonly Scope[] = INSTALL_SCOPES;

export interface Target {
  agent: AgentId;
  scope: Scope;
  /** The agent's own per-user directory: its presence is what "the agent is installed" means. */
  agentHome: string;
  /** The file Notify edits. */
  file: string;
  /** The directory holding `file`; created only for the project scope, and only when the agent is installed. */
  dir: string;
}

export interface TargetEnv {
  home?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Where each agent reads its hooks:
 * - Claude Code: `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`) for the user,
 *   `<project>/.claude/settings.json` for a project (https://code.claude.com/docs/en/settings "Settings files").
 * - Codex CLI: `$CODEX_HOME/hooks.json` (default `~/.codex/hooks.json`) for the user, `<project>/.codex/hooks.json`
 *   for a project (https://developers.openai.com/codex/hooks "Where Codex looks for hooks"). A hooks.json beside
 *   config.toml keeps Notify's entries out of the user's TOML.
 * - Gemini CLI: `~/.gemini/settings.json` (`$GEMINI_CLI_HOME/.gemini/settings.json`) for the user,
 *   `<project>/.gemini/settings.json` for a project (its configuration reference, "Settings files").
 * - GitHub Copilot CLI: a file of Notify's own, `~/.copilot/hooks/notify.json` (`$COPILOT_HOME/hooks/`) for the
 *   user, `<project>/.github/hooks/notify.json` for a project: Copilot loads every `*.json` in those folders.
 * - OpenCode: a plugin file of Notify's own, `~/.config/opencode/plugin/notify.js` (`$XDG_CONFIG_HOME/opencode/`)
 *   for the user, `<project>/.opencode/plugin/notify.js` for a project: OpenCode loads every file in those folders.
 */
export function targetFor(agent: AgentId, scope: Scope, where: TargetEnv = {}): Target {
  const env = where.env ?? process.env;
  const home = where.home ?? homedir();
  const cwd = resolve(where.cwd ?? process.cwd());
  if (agent === "gemini") {
    const agentHome = geminiHome(env, home);
    const dir = scope === "user" ? agentHome : join(cwd, ".gemini");
    return { agent, scope, agentHome, dir, file: join(dir, "settings.json") };
  }
  if (agent === "copilot") {
    const agentHome = copilotHome(env, home);
    const dir = scope === "user" ? join(agentHome, "hooks") : join(cwd, ".github", "hooks");
    return { agent, scope, agentHome, dir, file: join(dir, "notify.json") };
  }
  if (agent === "opencode") {
    const agentHome = opencodeHome(env, home);
    const dir = scope === "user" ? join(agentHome, "plugin") : join(cwd, ".opencode", "plugin");
    return { agent, scope, agentHome, dir, file: join(dir, "notify.js") };
  }
  if (agent === "claude-code") {
    const agentHome =
      env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR !== "" ? env.CLAUDE_CONFIG_DIR : join(home, ".claude");
    const dir = scope === "user" ? agentHome : join(cwd, ".claude");
    return { agent, scope, agentHome, dir, file: join(dir, "settings.json") };
  }
  const agentHome = env.CODEX_HOME && env.CODEX_HOME !== "" ? env.CODEX_HOME : join(home, ".codex");
  const dir = scope === "user" ? agentHome : join(cwd, ".codex");
  return { agent, scope, agentHome, dir, file: join(dir, "hooks.json") };
}

const given = (value: string | undefined): string | undefined =>
  value !== undefined && value !== "" ? value : undefined;

/** Gemini CLI's per-user directory: `$GEMINI_CLI_HOME/.gemini`, default `~/.gemini`. */
export const geminiHome = (env: NodeJS.ProcessEnv, home: string): string =>
  join(given(env.GEMINI_CLI_HOME) ?? home, ".gemini");

/** Copilot CLI's per-user directory: `$COPILOT_HOME`, default `~/.copilot` (`copilot help config`). */
export const copilotHome = (env: NodeJS.ProcessEnv, home: string): string =>
  given(env.COPILOT_HOME) ?? join(home, ".copilot");

/** OpenCode's per-user config directory: `$XDG_CONFIG_HOME/opencode`, default `~/.config/opencode`. */
export const opencodeHome = (env: NodeJS.ProcessEnv, home: string): string =>
  join(given(env.XDG_CONFIG_HOME) ?? join(home, ".config"), "opencode");
