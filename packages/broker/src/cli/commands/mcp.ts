import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { terminalText } from "@notify/contracts/text";
import { brokerTarget, type ClientOptions, createClient, printJson } from "../../client/client.js";
import { installMcp, type McpChangeResult, mcpStatus as readMcpStatus, uninstallMcp } from "../../mcp/install.js";
import { createNotifyMcp } from "../../mcp/server.js";
import { type AgentFileOptions, agentAndScope, installContext, runFileChange } from "../agent-files.js";
import { stableCommand } from "../stable-command.js";

/**
 * `notify mcp`: the stdio MCP server (docs/mcp.md). stdout belongs to the protocol; diagnostics go to stderr, which
 * the hosts keep in their MCP logs. It ends when the host closes stdin or sends SIGTERM/SIGINT, withdrawing every
 * question still waiting: nobody is left to read its answer.
 */
export async function mcp(options: ClientOptions): Promise<void> {
  const log = (line: string): void => {
    process.stderr.write(`notify mcp: ${line}\n`);
  };
  const notify = createNotifyMcp({
    broker: () => ({ client: createClient(options), token: brokerTarget(options).token }),
    cwd: process.cwd(),
    env: process.env,
    log,
  });
  const transport = new StdioServerTransport();
  await notify.server.connect(transport);
  await new Promise<void>((resolve) => {
    let ending = false;
    const end = (why: string) => (): void => {
      if (ending) return;
      ending = true;
      log(`${why}; stopping`);
      void notify
        .withdrawAll()
        .then(() => notify.server.close())
        .finally(resolve);
    };
    process.stdin.once("end", end("the host closed stdin"));
    process.stdin.once("close", end("the host closed stdin"));
    process.once("SIGTERM", end("SIGTERM"));
    process.once("SIGINT", end("SIGINT"));
  });
}

export type McpInstallOptions = AgentFileOptions;

function report(result: McpChangeResult, json: boolean | undefined, note?: string): void {
  if (json) {
    printJson({
      agent: result.target.agent,
      scope: result.target.scope,
      file: result.target.file,
      changed: result.changed,
      backup: result.backup ?? null,
    });
    return;
  }
  process.stdout.write(`${result.target.agent} (${result.target.scope}): ${result.summary}\n`);
  if (result.backup !== undefined) process.stdout.write(`backup: ${result.backup}\n`);
  if (note !== undefined) process.stderr.write(`notify: ${note}\n`);
}

/** `notify mcp install <agent> [--scope user|project]`. */
export async function mcpInstall(options: McpInstallOptions): Promise<void> {
  const { agent, scope } = agentAndScope(options);
  const context = installContext(options);
  const result = runFileChange(() => installMcp(agent, scope, context));
  const notes: string[] = [];
  const { warning } = stableCommand();
  if (warning !== undefined) notes.push(warning);
  if (result.changed && agent === "claude-code" && scope === "project") {
    notes.push("Claude Code asks once before it starts a server from .mcp.json: approve notify in /mcp");
  }
  report(result, options.json, notes.length > 0 ? notes.join("\nnotify: ") : undefined);
}

/** `notify mcp uninstall <agent> [--scope user|project]`. */
export async function mcpUninstall(options: McpInstallOptions): Promise<void> {
  const { agent, scope } = agentAndScope(options);
  report(
    runFileChange(() => uninstallMcp(agent, scope, installContext(options))),
    options.json,
  );
}

/** `notify mcp status`: where the server is registered. */
export async function mcpStatus(options: { json?: boolean | undefined }): Promise<void> {
  const rows = readMcpStatus();
  if (options.json) {
    printJson({ installs: rows });
    return;
  }
  const lines = rows.map((row) => {
    const state =
      row.installed === null
        ? "file cannot be parsed"
        : row.installed
          ? "installed"
          : row.agentInstalled
            ? "not installed"
            : "agent not found";
    return `${`${row.agent} ${row.scope}`.padEnd(20)}${state.padEnd(24)}${terminalText(row.file)}\n`;
  });
  process.stdout.write(lines.join(""));
}
