import { brokerTarget, type ClientOptions, nonEmpty } from "../client/client.js";
import { AGENTS, type AgentId, isAgent } from "../hooks/agents.js";
import { HookInstallError, type InstallContext } from "../hooks/install/installer.js";
import { SCOPES, type Scope } from "../hooks/install/targets.js";
import { ExitError } from "./exit-error.js";
import { stableCommand } from "./stable-command.js";

/** What `notify hooks install|uninstall` and `notify mcp install|uninstall` are given. */
export interface AgentFileOptions extends ClientOptions {
  agent?: string;
  scope?: string | undefined;
  json?: boolean | undefined;
}

/**
 * How the written command finds the same broker as this command: a data dir or port given here (or in the
 * environment) is written into its arguments.
 */
export function installContext(options: AgentFileOptions): InstallContext {
  const { dataDir } = brokerTarget(options);
  const extra: string[] = [];
  const dir = nonEmpty(options.dataDir) ?? nonEmpty(process.env.NOTIFY_DATA_DIR);
  if (dir !== undefined) extra.push("--data-dir", dir);
  const port = nonEmpty(options.port) ?? nonEmpty(process.env.NOTIFY_PORT);
  if (port !== undefined) extra.push("--port", port);
  return { dataDir, program: stableCommand().program, extra };
}

/** The agent and scope, or exit 1 naming the valid choices. */
export function agentAndScope(options: AgentFileOptions): { agent: AgentId; scope: Scope } {
  const agent = options.agent ?? "";
  if (!isAgent(agent)) throw new ExitError(1, `unknown agent ${agent}: expected ${AGENTS.join(" or ")}`);
  const scope = (options.scope ?? "user") as Scope;
  if (!SCOPES.includes(scope)) throw new ExitError(1, `unknown --scope ${options.scope}: expected user or project`);
  return { agent, scope };
}

/** Runs an install or uninstall; its refusal (a file it cannot parse, a lock held) becomes exit 1 with the reason. */
export function runFileChange<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof HookInstallError) throw new ExitError(1, error.message);
    throw error;
  }
}
