import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Reply, type Turn, tempDir, untilValue } from "@notify/test-kit";
import { expect, it } from "vitest";
import { closedPort } from "./cli/cli-harness.js";

/**
 * What the e2e suites that run the real agents from npm share (test/hooks/e2e, test/mcp/e2e, test/connectors): the
 * pinned CLIs (devDependencies of @notify/broker: Claude Code 2.1.330, Codex CLI 0.169.0), an environment in which
 * only loopback is reachable, a child's exit with its output, a tmux session for an interactive UI, and the
 * first-run files a person who used the agents before would have.
 */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const CLAUDE = join(ROOT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
export const CODEX = join(ROOT, "node_modules/@openai/codex/bin/codex.js");
export const TMUX = ["/usr/bin/tmux", "/usr/local/bin/tmux"].find((path) => existsSync(path));

/** Claude Code's own credential in these tests (never a real key). */
export const CLAUDE_TEST_KEY = "sk-ant-test-not-a-real-key-0123456789";

/**
 * The `it` of a suite that needs the named tools: `it.skip` (with a loud warning) when one is missing, an error in
 * CI, where a missing agent must not pass as a skip.
 */
export function agentTest(
  suite: string,
  needs: { claude?: boolean; codex?: boolean; tmux?: boolean },
): typeof it | typeof it.skip {
  const missing = [
    needs.claude && !existsSync(CLAUDE) ? "@anthropic-ai/claude-code (linux-x64 binary)" : undefined,
    needs.codex && !existsSync(CODEX) ? "@openai/codex" : undefined,
    needs.tmux && TMUX === undefined ? "tmux (Debian package tmux)" : undefined,
  ].filter((name) => name !== undefined);
  if (missing.length === 0) return it;
  if (process.env.CI === "true") throw new Error(`${suite}: missing ${missing.join(", ")}`);
  console.warn(`\n*** SKIPPING the ${suite}: missing ${missing.join(", ")} ***\n`);
  return it.skip;
}

export interface AgentSandbox {
  /** The temporary HOME, with ~/.claude and ~/.codex. */
  home: string;
  /** The project the agents run in (`project` under the temp dir; a git repository's root with `git`). */
  work: string;
  /** A loopback URL nothing listens on, for the proxy variables. */
  deadProxy: string;
  /** The temp dir holding both (removed when the test file ends). */
  root: string;
}

/** A temporary HOME and project for the agents, and a dead proxy: nothing outside loopback is reachable. */
export async function agentSandbox(prefix: string, project: string, options: { git?: boolean } = {}) {
  const root = tempDir(prefix);
  const home = join(root, "home");
  const work = join(root, project);
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(home, ".codex"), { recursive: true });
  mkdirSync(options.git ? join(work, ".git") : work, { recursive: true });
  const sandbox: AgentSandbox = { home, work, root, deadProxy: `http://127.0.0.1:${await closedPort()}` };
  return sandbox;
}

/**
 * The agents' environment: HOME, the few variables a shell needs, telemetry and update checks off, and every proxy
 * variable naming a dead loopback port, so any connection that is not to loopback fails at once.
 */
export function agentEnv(home: string, deadProxy: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "LANG", "USER", "SHELL"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    TERM: "dumb",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    HTTPS_PROXY: deadProxy,
    HTTP_PROXY: deadProxy,
    ALL_PROXY: deadProxy,
    https_proxy: deadProxy,
    http_proxy: deadProxy,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    // Copilot CLI unpacks its 1.0.102 package on a fresh HOME's first run (6.6 s here against 0.6 s once unpacked,
    // 12.7 s in a loaded CI run that then missed its deadline): every sandbox shares one unpacked copy.
    COPILOT_PKG_CACHE_HOME: join(tmpdir(), `notify-test-copilot-pkg-${process.getuid?.() ?? "user"}`),
    // Copilot CLI's own switch for a machine without GitHub (no sign-in, telemetry, GitHub MCP or update checks).
    // Without it each run spends its first 20 to 30 s of CPU on GitHub calls that fail here (copilot-e2e: 47 s
    // against 9 s with it, measured side by side), and nothing it proves needs GitHub.
    COPILOT_OFFLINE: "true",
    // Gemini CLI starts a second Node with a larger heap and runs in that one unless told not to: one Node start
    // instead of two per run (about 3 s each on a loaded 2-core machine). The hooks run the same either way.
    GEMINI_CLI_NO_RELAUNCH: "true",
    ...extra,
  };
}

/** The variables that point both agents at a loopback model mock (its base URL with and without /v1). */
export function mockModelEnv(mock: { origin: string }): Record<string, string> {
  return { ANTHROPIC_BASE_URL: mock.origin, ANTHROPIC_API_KEY: CLAUDE_TEST_KEY, MOCK_API_KEY: "not-a-real-key" };
}

/** A child's exit code and everything it printed (stdout and stderr interleaved). */
export function exited(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

/** Starts an agent headless in `cwd`; `exited` resolves when it ends (killed after `timeoutMs`). */
export function startAgent(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 150_000,
): { child: ChildProcess; done: Promise<{ code: number | null; output: string }> } {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const done = exited(child).finally(() => clearTimeout(timer));
  return { child, done };
}

/** Waits for `probe` to return a value, checking every 100 ms; a deadline a loaded machine meets across processes. */
export const eventually = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> =>
  untilValue(what, probe, { timeoutMs, everyMs: 100 });

const sockets = new Set<string>();

/** Kills every tmux server startInTmux started (a suite's afterAll, for a test that failed before its own kill). */
export function killTmuxServers(): void {
  for (const socket of sockets) spawnSync(TMUX ?? "tmux", ["-L", socket, "kill-server"]);
  sockets.clear();
}

export interface TmuxAgent {
  screen: () => string;
  keys: (...keys: string[]) => void;
  kill: () => void;
}

/**
 * An agent's interactive UI in a detached tmux session (200x50) on a server of its own: a server whose last session
 * was just killed is still exiting, and a new session on its socket then fails with "server exited unexpectedly".
 * The agent gets `env` only (`env -i`), with TERM=xterm-256color.
 */
export function startInTmux(session: string, cwd: string, env: Record<string, string>, command: string[]): TmuxAgent {
  const socket = `notify-e2e-${process.pid}-${session}`;
  sockets.add(socket);
  const tmux = (...args: string[]) => spawnSync(TMUX ?? "tmux", ["-L", socket, ...args], { encoding: "utf8" });
  const assignments = Object.entries({ ...env, TERM: "xterm-256color" }).map(([name, value]) => `${name}=${value}`);
  const size = ["-x", "200", "-y", "50"];
  const started = tmux("new-session", "-d", "-s", session, ...size, "-c", cwd, "env", "-i", ...assignments, ...command);
  expect(started.status, started.stderr).toBe(0);
  return {
    screen: () => tmux("capture-pane", "-p", "-t", session).stdout ?? "",
    keys: (...keys) => void tmux("send-keys", "-t", session, ...keys),
    kill: () => void tmux("kill-server"),
  };
}

/** Codex's config.toml: the loopback provider (Responses wire), this project trusted, no update check or analytics. */
export function writeCodexConfig(
  home: string,
  work: string,
  mockUrl: string,
  approvalPolicy: "never" | "on-request",
): void {
  const lines = [
    'model = "mock-model"',
    'model_provider = "mock"',
    `approval_policy = "${approvalPolicy}"`,
    'sandbox_mode = "read-only"',
    "check_for_update_on_startup = false",
    "",
    "[model_providers.mock]",
    'name = "Mock"',
    `base_url = "${mockUrl}"`,
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[feedback]",
    "enabled = false",
    "",
    `[projects."${work}"]`,
    'trust_level = "trusted"',
  ];
  writeFileSync(join(home, ".codex", "config.toml"), `${lines.join("\n")}\n`);
}

/**
 * Claude Code's ~/.claude.json as a person who used it before has it: onboarding done, the test key approved
 * (Claude Code keeps its last 20 characters), the project trusted. No first-run dialog stands in the way.
 */
export function writeClaudeState(home: string, work: string): void {
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      customApiKeyResponses: { approved: [CLAUDE_TEST_KEY.slice(-20)], rejected: [] },
      projects: { [work]: { hasTrustDialogAccepted: true, allowedTools: [] } },
    }),
  );
}

/** The text the model mocks of these suites end a turn with, once the conversation holds the tool's result. */
export const FINAL_TEXT = "Thanks, noted.";

/**
 * A model whose first turn calls `tool` with `input`; once the conversation holds a tool result it ends the turn
 * with FINAL_TEXT. Claude Code: the tool it offers under that name (`mcp__notify__ask_person`), else the name
 * itself (a tool it defers or keeps out of the list, AskUserQuestion in `-p`, is called by name all the same).
 * Codex: the tool of that name, or of its last `__` part (an MCP tool, flat or inside a namespace entry).
 */
export const callsTool =
  (tool: string, input: unknown) =>
  (turn: Turn): Reply => {
    if (turn.toolResults.length > 0) return { text: FINAL_TEXT };
    const short = tool.split("__").pop() ?? tool;
    if (turn.wire === "messages") {
      const names = turn.tools.map((entry) => entry.name);
      const name = names.find((entry) => entry === tool) ?? names.find((entry) => entry.endsWith(short)) ?? tool;
      return turn.stream ? { tool: name, input } : { text: "OK" };
    }
    const found =
      turn.tools.find((entry) => entry.name === tool) ??
      turn.tools.find((entry) => entry.name.endsWith(short) && entry.name !== short) ??
      turn.tools.find((entry) => entry.name === short);
    if (found === undefined) return { text: "OK" };
    return { tool: found.name, ...(found.namespace === undefined ? {} : { namespace: found.namespace }), input };
  };

/** The tool names each model turn offered (`namespace/name` for a namespaced one), for a failure message. */
export const offeredTools = (turns: Turn[]): string[][] =>
  turns.map((turn) => turn.tools.map((tool) => (tool.namespace ? `${tool.namespace}/${tool.name}` : tool.name)));
