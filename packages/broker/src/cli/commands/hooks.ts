import { terminalText } from "@notify/contracts/text";
import { brokerTarget, createClient, printJson } from "../../client/client.js";
import { newHookToken, storeHookToken } from "../../hooks/hook-token.js";
import { atLeast, claudeCodeVersion, HTTP_HOOKS_SINCE } from "../../hooks/install/claude-version.js";
import type { HookKind } from "../../hooks/install/entries.js";
import {
  type ChangeResult,
  install as installHooks,
  installStatus,
  uninstall as uninstallHooks,
} from "../../hooks/install/installer.js";
import { SCOPES, type Scope } from "../../hooks/install/targets.js";
import { mcpStatus } from "../../mcp/install.js";
import { type AgentFileOptions, agentAndScope, installContext, runFileChange } from "../agent-files.js";
import { ExitError } from "../exit-error.js";
import { stableCommand } from "../stable-command.js";

export type HooksOptions = AgentFileOptions & { kind?: string };

/** The documented shape, unchanged by the kind (`notify hooks status --json` says which kind each event uses). */
const resultJson = (result: ChangeResult) => ({
  agent: result.target.agent,
  scope: result.target.scope,
  file: result.target.file,
  changed: result.changed,
  backup: result.backup ?? null,
});

const KINDS = ["auto", "http", "command"];

/**
 * The kind of hooks to write for Claude Code: `http` when asked, or with `auto` when the Claude Code found on PATH
 * (or in ~/.claude/local) is at least HTTP_HOOKS_SINCE; `command` otherwise. The line says why, for stderr.
 */
function claudeKind(asked: string): { kind: HookKind; why: string } {
  if (asked === "http" || asked === "command") return { kind: asked, why: `--kind ${asked}` };
  const found = claudeCodeVersion();
  if (found === undefined)
    return { kind: "command", why: "no claude found on PATH: command hooks work with every version" };
  const version = found.version?.join(".");
  if (found.version !== undefined && atLeast(found.version, HTTP_HOOKS_SINCE)) {
    return { kind: "http", why: `Claude Code ${version} posts its hooks to the broker itself` };
  }
  return {
    kind: "command",
    why: `Claude Code ${version ?? "of unknown version"} at ${found.path} predates http hooks (${HTTP_HOOKS_SINCE.join(".")})`,
  };
}

function report(result: ChangeResult, json: boolean | undefined, note?: string): void {
  if (json) {
    printJson(resultJson(result));
    return;
  }
  process.stdout.write(`${result.target.agent} (${result.target.scope}): ${result.summary}\n`);
  if (result.backup !== undefined) process.stdout.write(`backup: ${result.backup}\n`);
  if (note !== undefined) process.stderr.write(`notify: ${note}\n`);
}

/** `notify hooks install <agent> [--scope user|project]` (docs/hooks.md). */
export async function hooksInstall(options: HooksOptions): Promise<void> {
  const { agent, scope } = agentAndScope(options);
  const asked = options.kind ?? "auto";
  if (!KINDS.includes(asked)) throw new ExitError(1, `unknown --kind ${asked}: expected auto, http or command`);
  const context = installContext(options);
  const chosen = agent === "claude-code" ? claudeKind(asked) : undefined;
  let token: string | undefined;
  if (chosen?.kind === "http") {
    token = newHookToken();
    context.http = { port: Number(new URL(brokerTarget(options).baseUrl).port), token };
  }
  const result = runFileChange(() => installHooks(agent, scope, context));
  // Stored only once the settings hold it: a refused edit leaves the previous token working.
  if (token !== undefined) storeHookToken(context.dataDir, token);
  const { warning } = stableCommand();
  if (warning !== undefined && chosen?.kind !== "http") process.stderr.write(`notify: ${warning}\n`);
  if (chosen !== undefined && !options.json) {
    process.stderr.write(
      chosen.kind === "http"
        ? `notify: http hooks (${chosen.why}); a new hook token is in ${result.tokenFile ?? result.target.file}: restart running Claude Code sessions\n`
        : `notify: command hooks (${chosen.why})\n`,
    );
  }
  const note =
    agent === "codex" && result.changed
      ? "Codex runs a new or changed hook only after you trust it: start codex and review it with /hooks"
      : undefined;
  if (options.json) {
    printJson(resultJson(result));
    return;
  }
  report(result, false, note);
}

/**
 * `notify hooks uninstall [agent] [--scope user|project]`. Without an agent: every agent and scope where Notify's
 * hooks are found (this project's and the user's), one line each, or a line saying there was nothing to do.
 */
export async function hooksUninstall(options: HooksOptions): Promise<void> {
  if (options.agent !== undefined && options.agent !== "") {
    const { agent, scope } = agentAndScope(options);
    report(
      runFileChange(() => uninstallHooks(agent, scope, installContext(options))),
      options.json,
    );
    return;
  }
  if (options.scope !== undefined && !SCOPES.includes(options.scope as Scope)) {
    throw new ExitError(1, `unknown --scope ${options.scope}: expected user or project`);
  }
  const found = installStatus({}).filter(
    (row) =>
      (row.events === null || row.events.length > 0) && (options.scope === undefined || row.scope === options.scope),
  );
  const results = found.map((row) =>
    runFileChange(() => uninstallHooks(row.agent, row.scope, installContext(options))),
  );
  if (options.json) {
    printJson(results.map(resultJson));
    return;
  }
  if (results.length === 0) {
    process.stdout.write(
      `nothing to uninstall: Notify's hooks are in no agent's ${options.scope ?? "user or project"} settings\n`,
    );
    return;
  }
  for (const result of results) report(result, false);
}

/**
 * `notify hooks status`: what is installed where (the hooks, then Notify's MCP server entries from `notify mcp
 * install`), and whether the broker answers. Exit 0 either way.
 */
export async function hooksStatus(options: HooksOptions): Promise<void> {
  const rows = installStatus({});
  const mcp = mcpStatus();
  let broker: { url: string; reachable: boolean; error?: string };
  try {
    const client = createClient(options);
    try {
      await client.request("GET", "/v1/health", { timeoutMs: 3_000 });
      broker = { url: client.baseUrl, reachable: true };
    } catch (error) {
      broker = { url: client.baseUrl, reachable: false, error: (error as Error).message };
    }
  } catch (error) {
    broker = { url: "", reachable: false, error: (error as Error).message };
  }
  if (options.json) {
    printJson({ installs: rows, mcp, broker });
    return;
  }
  const states = rows.map((row) =>
    row.events === null
      ? "file cannot be parsed"
      : row.events.length > 0
        ? `installed (${row.events.map((event) => (row.kinds?.[event] === "http" ? `${event} http` : event)).join(", ")})`
        : row.agentInstalled
          ? "not installed"
          : "agent not found",
  );
  // The state column is as wide as its longest entry plus two spaces: the path never touches the state.
  const width = Math.max(...states.map((state) => state.length)) + 2;
  const lines = rows.map(
    (row, index) =>
      `${`${row.agent} ${row.scope}`.padEnd(20)}${states[index]?.padEnd(width)}${terminalText(row.file)}\n`,
  );
  const mcpStates = mcp.map((row) =>
    row.installed === null
      ? "file cannot be parsed"
      : row.installed
        ? "installed"
        : row.agentInstalled
          ? "not installed"
          : "agent not found",
  );
  const mcpWidth = Math.max(...mcpStates.map((state) => state.length)) + 2;
  const mcpLines = mcp.map(
    (row, index) =>
      `${`mcp ${row.agent} ${row.scope}`.padEnd(24)}${mcpStates[index]?.padEnd(mcpWidth)}${terminalText(row.file)}\n`,
  );
  // The error can carry what answered on the port: escaped like any text from the network (docs/cli.md).
  const brokerLine = broker.reachable
    ? `broker              answers at ${broker.url}\n`
    : `broker              does not answer${broker.url ? ` at ${broker.url}` : ""}: ${terminalText(broker.error ?? "")}\n`;
  process.stdout.write(lines.join("") + mcpLines.join("") + brokerLine);
}
