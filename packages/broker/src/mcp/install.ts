import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describeLines, parseToml, TomlSyntaxError, tomlProblem } from "../connectors/toml-regions.js";
import { inStyle, type TextStyle, textStyle, withoutBom } from "../fs/text-style.js";
import { AGENTS, type AgentId } from "../hooks/agents.js";
import {
  type ChangeResult,
  HookInstallError,
  type InstallContext,
  installInto,
  uninstallFrom,
} from "../hooks/install/installer.js";
import {
  copilotHome,
  geminiHome,
  opencodeHome,
  SCOPES,
  type Scope,
  type Target,
  type TargetEnv,
} from "../hooks/install/targets.js";

/**
 * `notify mcp install|uninstall <agent>`: registers `notify mcp` in the agent's own MCP configuration,
 * with the backup and byte-for-byte restore rules of the hooks (the same records and backups under
 * `<dataDir>/hooks/`, through the hooks installer's helpers).
 */

/** The server's name in the agent's configuration: its tools appear as `mcp__notify__ask_person`. */
export const SERVER_NAME = "notify";

/**
 * How long the host lets one tool call run. ask_person holds its call until the question settles, and a question
 * lives at most 3600 s (docs/api.md, "POST /v1/interactions/request"), so the call gets that plus a minute: the
 * question expires first and the model reads `expired`, instead of the host killing the call.
 */
export const TOOL_TIMEOUT_SECONDS = 3660;
/**
 * Codex waits 10 s for a server's initialize by default; a loaded machine starting Node needs more room. Codex 0.169
 * gives an optional server only about a second before a turn goes out without its tools (measured: a server that
 * answers after 3 s is missing from the first request), so Notify's entry is `required`: Codex waits for it up to
 * this timeout. `notify mcp` answers initialize without the broker, so the entry fails only when the command is gone.
 */
export const STARTUP_TIMEOUT_SECONDS = 30;

export interface McpTarget extends Target {
  format: "json" | "toml";
}

/**
 * Where each agent reads its MCP servers:
 * - Claude Code (https://code.claude.com/docs/en/mcp "MCP installation scopes"): user scope is `mcpServers` at the
 *   top of `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json` when that is set), project scope is `mcpServers` in
 *   `<project>/.mcp.json`. A stdio entry is `{type: "stdio", command, args, env?, timeout?}` (timeout in ms: the
 *   per-server tool-call limit of Claude Code 2.1).
 * - Codex CLI (https://developers.openai.com/codex/mcp): `[mcp_servers.<name>]` in `$CODEX_HOME/config.toml`
 *   (default `~/.codex/config.toml`), or `<project>/.codex/config.toml` for a trusted project, with `command`,
 *   `args`, `startup_timeout_sec` (default 10) and `tool_timeout_sec` (default 60).
 * - Gemini CLI (its MCP servers page, bundle/docs/tools/mcp-server.md): `mcpServers` in `~/.gemini/settings.json`
 *   (`$GEMINI_CLI_HOME/.gemini/`) or `<project>/.gemini/settings.json`, `{command, args, timeout (ms), trust}`.
 * - GitHub Copilot CLI (`copilot mcp --help`): `mcpServers` in `~/.copilot/mcp-config.json` (`$COPILOT_HOME`) for
 *   the user, `<project>/.github/mcp.json` for a project (Copilot also reads `.mcp.json`, Claude Code's project
 *   file: Notify keeps one entry per file), `{type: "local", command, args, tools, timeout (ms)}` as `copilot mcp
 *   add --timeout` writes it.
 * - OpenCode (its config schema, McpLocalConfig): `mcp` in `~/.config/opencode/opencode.json`
 *   (`$XDG_CONFIG_HOME/opencode/`) or `<project>/opencode.json`, `{type: "local", command: [program, ...args],
 *   enabled, timeout (ms)}`; the timeout bounds each tool call.
 */
export function mcpTargetFor(agent: AgentId, scope: Scope, where: TargetEnv = {}): McpTarget {
  const env = where.env ?? process.env;
  const home = where.home ?? homedir();
  const cwd = resolve(where.cwd ?? process.cwd());
  if (agent === "gemini") {
    const agentHome = geminiHome(env, home);
    const dir = scope === "user" ? agentHome : join(cwd, ".gemini");
    return { agent, scope, agentHome, dir, file: join(dir, "settings.json"), format: "json" };
  }
  if (agent === "copilot") {
    const agentHome = copilotHome(env, home);
    const dir = scope === "user" ? agentHome : join(cwd, ".github");
    return {
      agent,
      scope,
      agentHome,
      dir,
      file: join(dir, scope === "user" ? "mcp-config.json" : "mcp.json"),
      format: "json",
    };
  }
  if (agent === "opencode") {
    const agentHome = opencodeHome(env, home);
    const dir = scope === "user" ? agentHome : cwd;
    return { agent, scope, agentHome, dir, file: join(dir, "opencode.json"), format: "json" };
  }
  if (agent === "claude-code") {
    const configDir = env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR !== "" ? env.CLAUDE_CONFIG_DIR : undefined;
    const agentHome = configDir ?? join(home, ".claude");
    const dir = scope === "user" ? (configDir ?? home) : cwd;
    return {
      agent,
      scope,
      agentHome,
      dir,
      file: join(dir, scope === "user" ? ".claude.json" : ".mcp.json"),
      format: "json",
    };
  }
  const agentHome = env.CODEX_HOME && env.CODEX_HOME !== "" ? env.CODEX_HOME : join(home, ".codex");
  const dir = scope === "user" ? agentHome : join(cwd, ".codex");
  return { agent, scope, agentHome, dir, file: join(dir, "config.toml"), format: "toml" };
}

export type McpChangeResult = ChangeResult & { target: McpTarget };

type Json = Record<string, unknown>;

/** The command line the agent runs: the CLI's words, `mcp`, then the options that find the same broker. */
const serverArgs = (context: InstallContext): { command: string; args: string[] } => {
  const [command = "notify", ...rest] = context.program;
  return { command, args: [...rest, "mcp", ...(context.extra ?? [])] };
};

/** An entry Notify wrote: its arguments end in `mcp` (plus options) after a program named notify or main.js. */
export function isNotifyServer(command: unknown, args: unknown): boolean {
  const words = [command, ...(Array.isArray(args) ? args : [])].filter((word) => typeof word === "string");
  const mcp = words.indexOf("mcp");
  if (mcp < 1) return false;
  return words.slice(0, mcp).some((word) => /(?:^|[/\\])(?:notify(?:\.js)?|main\.js)$/.test(word as string));
}

// --- Claude Code: JSON ---------------------------------------------------------------------------------------

/** Where each JSON agent keeps its servers: OpenCode's `mcp`, the others' `mcpServers`. */
const serversKey = (agent: AgentId): string => (agent === "opencode" ? "mcp" : "mcpServers");

function parseJson(target: McpTarget, text: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new HookInstallError(
      `cannot parse ${target.file} (${(error as Error).message}); it was left as it was: fix it, then run this again`,
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new HookInstallError(`${target.file} does not hold a JSON object; it was left as it was`);
  }
  const key = serversKey(target.agent);
  const servers = (parsed as Json)[key];
  if (servers !== undefined && (servers === null || typeof servers !== "object" || Array.isArray(servers))) {
    throw new HookInstallError(`${target.file}: "${key}" is not an object; it was left as it was`);
  }
  return parsed as Json;
}

/** Notify's entry in the agent's own shape (mcpTargetFor says where each shape comes from). */
function jsonEntry(agent: AgentId, context: InstallContext): Json {
  const { command, args } = serverArgs(context);
  const timeout = TOOL_TIMEOUT_SECONDS * 1000;
  switch (agent) {
    case "gemini":
      // trust: Gemini asks no confirmation before Notify's own tools (ask_person only asks the person).
      return { command, args, timeout, trust: true };
    case "copilot":
      return { type: "local", command, args, tools: ["*"], timeout };
    case "opencode":
      return { type: "local", command: [command, ...args], enabled: true, timeout };
    default:
      // alwaysLoad: the tools are in the prompt from the first turn instead of deferred behind ToolSearch (server.ts).
      return { type: "stdio", command, args, timeout, alwaysLoad: true };
  }
}

/** An entry's program words: `command` and `args`, or OpenCode's one `command` array. */
function entryWords(entry: Json | undefined): { command: unknown; args: unknown } {
  if (Array.isArray(entry?.command)) return { command: entry.command[0], args: entry.command.slice(1) };
  return { command: entry?.command, args: entry?.args };
}

function ownJsonEntry(target: McpTarget, document: Json): Json | undefined {
  const entry = (document[serversKey(target.agent)] as Json | undefined)?.[SERVER_NAME] as Json | undefined;
  if (entry === undefined) return undefined;
  const { command, args } = entryWords(entry);
  if (!isNotifyServer(command, args)) {
    throw new HookInstallError(
      `${target.file} already has an MCP server named "${SERVER_NAME}" that is not Notify's; it was left as it was`,
    );
  }
  return entry;
}

function jsonInstalled(target: McpTarget, text: string | undefined, context: InstallContext): string | undefined {
  const document = text !== undefined ? parseJson(target, text) : {};
  ownJsonEntry(target, document);
  const updated = structuredClone(document);
  const key = serversKey(target.agent);
  updated[key] = { ...((updated[key] as Json | undefined) ?? {}), [SERVER_NAME]: jsonEntry(target.agent, context) };
  if (text !== undefined && isDeepStrictEqual(updated, document)) return undefined;
  return `${JSON.stringify(updated, null, 2)}\n`;
}

function jsonStripped(target: McpTarget, text: string): string | undefined {
  const document = parseJson(target, text);
  if (ownJsonEntry(target, document) === undefined) return undefined;
  const key = serversKey(target.agent);
  const servers = document[key] as Json;
  delete servers[SERVER_NAME];
  if (Object.keys(servers).length === 0) delete document[key];
  return `${JSON.stringify(document, null, 2)}\n`;
}

// --- Codex: TOML, through the one config.toml editor (connectors/toml-regions.ts) --------------------------------

const COMMENT = "# Notify's MCP server (notify mcp install codex); `notify mcp uninstall codex` removes it.";
/** Notify's table as describeLines names it, whatever quoting or spacing its header has. */
const OWN_TABLE = `mcp_servers.${SERVER_NAME}`;

const tomlString = (value: string): string => JSON.stringify(value);

function codexBlock(context: InstallContext): string {
  const { command, args } = serverArgs(context);
  return [
    COMMENT,
    `[${OWN_TABLE}]`,
    `command = ${tomlString(command)}`,
    `args = [${args.map(tomlString).join(", ")}]`,
    `startup_timeout_sec = ${STARTUP_TIMEOUT_SECONDS}`,
    `tool_timeout_sec = ${TOOL_TIMEOUT_SECONDS}`,
    "required = true",
    "",
  ].join("\n");
}

/** Refused as the JSON path refuses what JSON.parse cannot read: the file is left as it was, the line named. */
function parseCodexToml(target: McpTarget, text: string): Json {
  try {
    return parseToml(text);
  } catch (error) {
    if (!(error instanceof TomlSyntaxError)) throw error;
    throw new HookInstallError(
      `cannot parse ${target.file} (${error.message}); it was left as it was: fix it, then run this again`,
    );
  }
}

const opaque = (target: McpTarget): HookInstallError =>
  new HookInstallError(
    `${target.file} defines mcp_servers in a form Notify does not edit (an inline table or dotted keys); it was left as it was: add Notify by hand (docs/mcp.md)`,
  );

/** The edited text, which must parse too: a table Notify cannot add (mcp_servers as an inline table) is refused. */
function checkedToml(target: McpTarget, text: string): string {
  if (tomlProblem(text) !== undefined) throw opaque(target);
  return text;
}

/**
 * The file parsed, then cut into its lines outside Notify's table (and its sub-tables and comment line) and the
 * table's own lines, with Notify's entry as the parser read it. An entry defined without a `[mcp_servers.notify]`
 * header (an inline table, dotted keys) is refused, as is a server named notify that is not Notify's.
 */
function splitToml(target: McpTarget, text: string): { kept: string[]; own: string[]; entry: Json | undefined } {
  const document = parseCodexToml(target, text);
  const servers = document.mcp_servers;
  const found = servers !== null && typeof servers === "object" ? (servers as Json)[SERVER_NAME] : undefined;
  const lines = text.split("\n");
  const infos = describeLines(lines);
  const mine = (table: string): boolean => table === OWN_TABLE || table.startsWith(`${OWN_TABLE}.`);
  if (found !== undefined && !infos.some((info) => info.header && info.table === OWN_TABLE)) throw opaque(target);
  const entry = found as Json | undefined;
  if (entry !== undefined && !isNotifyServer(entry?.command, entry?.args)) {
    throw new HookInstallError(
      `${target.file} already has an MCP server named "${SERVER_NAME}" that is not Notify's; it was left as it was`,
    );
  }
  const kept: string[] = [];
  const own: string[] = [];
  lines.forEach((line, index) => {
    if (mine(infos[index]?.table ?? "")) {
      if (own.length === 0 && kept[kept.length - 1] === COMMENT) kept.pop();
      own.push(line);
    } else kept.push(line);
  });
  return { kept, own, entry };
}

/** The text without Notify's table; undefined when it has none. */
function tomlWithout(target: McpTarget, text: string): string | undefined {
  const { kept, own } = splitToml(target, text);
  if (own.length === 0) return undefined;
  // The blank line install put before the block goes with it.
  while (kept.length > 1 && kept[kept.length - 1] === "" && kept[kept.length - 2] === "") kept.pop();
  return checkedToml(target, kept.join("\n"));
}

function tomlInstalled(target: McpTarget, text: string, context: InstallContext): string {
  const base = tomlWithout(target, text) ?? text;
  const separator = base === "" ? "" : base.endsWith("\n\n") ? "" : base.endsWith("\n") ? "\n" : "\n\n";
  return checkedToml(target, `${base}${separator}${codexBlock(context)}`);
}

// --- Install and uninstall: the hooks' record, backup and restore rules ----------------------------------------

/** The file's text as the edits take it (no BOM, LF line ends), and the style to write it back in. */
function readText(bytes: Buffer | undefined): { text: string; style: TextStyle } {
  const raw = bytes?.toString("utf8") ?? "";
  return { text: withoutBom(raw).replaceAll("\r\n", "\n"), style: textStyle(raw) };
}

function installedText(target: McpTarget, bytes: Buffer | undefined, context: InstallContext): string | undefined {
  const { text, style } = readText(bytes);
  const updated =
    target.format === "json"
      ? jsonInstalled(target, bytes === undefined ? undefined : text, context)
      : tomlInstalled(target, text, context);
  return updated === undefined || (bytes !== undefined && updated === text) ? undefined : inStyle(updated, style);
}

function strippedText(target: McpTarget, bytes: Buffer): string | undefined {
  const { text, style } = readText(bytes);
  const updated = target.format === "json" ? jsonStripped(target, text) : tomlWithout(target, text);
  return updated === undefined ? undefined : inStyle(updated, style);
}

/**
 * Adds `notify mcp` to the agent's MCP configuration: idempotent, a backup before every change, refuses what it
 * cannot parse (left as it was). The edit goes through editFile, as the hooks' do: a symlink stays a link, the mode
 * stays, and a write the agent makes meanwhile (Claude Code rewrites ~/.claude.json as it runs) is not lost.
 */
export function installMcp(agent: AgentId, scope: Scope, context: InstallContext): McpChangeResult {
  const target = mcpTargetFor(agent, scope, context.where);
  return installInto(target, context, "mcp", (bytes) => installedText(target, bytes, context));
}

/**
 * Removes Notify's server. A file exactly as Notify left it gets the user's original back byte for byte (or goes,
 * when Notify created it); a file changed since (Claude Code rewrites ~/.claude.json as it runs) loses only Notify's
 * entry.
 */
export function uninstallMcp(agent: AgentId, scope: Scope, context: InstallContext): McpChangeResult {
  const target = mcpTargetFor(agent, scope, context.where);
  return uninstallFrom(target, context, "mcp", "Notify's MCP server", (bytes) => strippedText(target, bytes));
}

export interface McpStatus {
  agent: AgentId;
  scope: Scope;
  file: string;
  agentInstalled: boolean;
  /** Notify's entry is present; null when the file cannot be parsed. */
  installed: boolean | null;
  /** The command line written, for a check that it still resolves (`notify doctor`). */
  command?: string[];
}

/** Where Notify's MCP server is registered (both agents, both scopes, for the current project). */
export function mcpStatus(where: TargetEnv = {}): McpStatus[] {
  const rows: McpStatus[] = [];
  for (const agent of AGENTS) {
    for (const scope of SCOPES) {
      const target = mcpTargetFor(agent, scope, where);
      const row: McpStatus = {
        agent,
        scope,
        file: target.file,
        agentInstalled: existsSync(target.agentHome),
        installed: false,
      };
      if (existsSync(target.file)) {
        try {
          const command = installedCommand(target, readFileSync(target.file));
          row.installed = command !== undefined;
          if (command !== undefined) row.command = command;
        } catch {
          row.installed = null;
        }
      }
      rows.push(row);
    }
  }
  return rows;
}

function installedCommand(target: McpTarget, bytes: Buffer): string[] | undefined {
  const { text } = readText(bytes);
  if (target.format === "json") {
    const entry = ownJsonEntry(target, parseJson(target, text));
    if (entry === undefined) return undefined;
    const { command, args } = entryWords(entry);
    return [String(command), ...(Array.isArray(args) ? args : []).map(String)];
  }
  const { entry } = splitToml(target, text);
  if (entry === undefined) return undefined;
  return [
    typeof entry.command === "string" ? entry.command : "",
    ...(Array.isArray(entry.args) ? entry.args.map(String) : []),
  ];
}
