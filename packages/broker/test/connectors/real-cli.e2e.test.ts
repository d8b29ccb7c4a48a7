import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brokerApi } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { cliEnv, closedPort, runCli } from "../cli/cli-harness.js";
import { FINAL_PREFIX, startToolModelMock, type ToolModelMock } from "./tool-model-mock.js";

/**
 * Issue 17, "Must show": in a temporary HOME, `notify router connect codex` and `notify router connect claude-code`
 * point the real agents from npm (pinned devDependencies: Codex CLI 0.169.0, Claude Code 2.1.330) at the router,
 * which sends their traffic to a loopback model. Each agent runs a two-turn tool round trip with no other
 * configuration: the model asks for a shell command, gets its output back, and answers with it. `notify router
 * disconnect` then leaves both files byte for byte as they were before connect.
 */
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const CLAUDE = join(ROOT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const CODEX = join(ROOT, "node_modules/@openai/codex/bin/codex.js");
const missing = [
  existsSync(CLAUDE) ? undefined : "@anthropic-ai/claude-code (linux-x64 binary)",
  existsSync(CODEX) ? undefined : "@openai/codex",
].filter((name) => name !== undefined);
if (missing.length > 0) {
  if (process.env.CI === "true") throw new Error(`connector e2e: missing ${missing.join(", ")}`);
  console.warn(`\n*** SKIPPING the connector e2e: missing ${missing.join(", ")} ***\n`);
}

const COMMAND = "echo notify-connector-$((6*7))";
const PRINTED = "notify-connector-42";
/** Claude Code's own credential as a signed-in person has one; the router key travels in its own header. */
const CLAUDE_OWN_KEY = "sk-ant-test-not-a-real-key-0123456789";

const CODEX_BEFORE = [
  "# my Codex settings",
  'model = "gpt-owner"',
  'approval_policy = "never"',
  "",
  "[tui]",
  "notifications = false",
  "",
].join("\n");
const CLAUDE_BEFORE = `${JSON.stringify({ theme: "dark", env: { ANTHROPIC_CUSTOM_HEADERS: "X-Team: blue" } }, null, 4)}\n`;

let root: string;
let home: string;
let work: string;
let dataDir: string;
let broker: RunningBroker;
let mock: ToolModelMock;
let deadProxy: string;

const target = (): string[] => ["--port", String(broker.port), "--data-dir", dataDir];

const { ui } = brokerApi(
  () => broker.url,
  () => broker.settings.authToken,
);

beforeAll(async () => {
  if (missing.length > 0) return;
  root = mkdtempSync(join(tmpdir(), "notify-connect-e2e-"));
  home = join(root, "home");
  work = join(root, "project");
  dataDir = join(root, "data");
  mkdirSync(join(home, ".codex"), { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(work);
  mkdirSync(dataDir);
  writeFileSync(join(home, ".codex", "config.toml"), CODEX_BEFORE);
  writeFileSync(join(home, ".claude", "settings.json"), CLAUDE_BEFORE);
  mock = await startToolModelMock(COMMAND);
  deadProxy = `http://127.0.0.1:${await closedPort()}`;
  broker = await startBroker({ dataDir, port: 0, env: { HOME: home } });
  expect((await ui("PUT", "/router/settings", { enabled: true })).status).toBe(200);
  for (const [slug, wire, model] of [
    ["mock", "responses_wire", "mock-coder"],
    ["mockm", "messages_wire", "mock-claude"],
  ] as const) {
    const created = await ui("POST", "/router/upstreams", {
      slug,
      wire,
      base_url: `${mock.url}/v1`,
      models: [model],
      enabled: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
});

afterAll(async () => {
  if (missing.length > 0) return;
  await broker?.close();
  await mock?.close();
  rmSync(root, { recursive: true, force: true });
});

/** The agents' environment: only loopback is reachable, nothing phones home. */
function agentEnv(extra: Record<string, string> = {}): Record<string, string> {
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
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    HTTPS_PROXY: deadProxy,
    HTTP_PROXY: deadProxy,
    ALL_PROXY: deadProxy,
    https_proxy: deadProxy,
    http_proxy: deadProxy,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    ...extra,
  };
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

const test = missing.length > 0 ? it.skip : it;

describe("agent connectors with the real CLIs", () => {
  test("connect codex and claude-code, a tool round trip through the router for each, disconnect restores both files", async () => {
    const codexFile = join(home, ".codex", "config.toml");
    const claudeFile = join(home, ".claude", "settings.json");
    for (const [agent, model] of [
      ["codex", "mock/mock-coder"],
      ["claude-code", "mockm/mock-claude"],
    ] as const) {
      const connected = await runCli(["router", "connect", agent, "--model", model, ...target()], cliEnv());
      expect(connected.code, connected.stderr).toBe(0);
      expect(connected.stderr).toContain(`${agent} connected to the router`);
    }
    const codexConfig = readFileSync(codexFile, "utf8");
    expect(codexConfig).toContain('#notify-router-owner# model = "gpt-owner"');
    expect(codexConfig).toContain(`base_url = "${broker.url}/router/v1"`);
    const claudeSettings = JSON.parse(readFileSync(claudeFile, "utf8"));
    expect(claudeSettings.env.ANTHROPIC_CUSTOM_HEADERS).toMatch(/^X-Team: blue\nx-notify-router-key: nrk_/);
    expect(claudeSettings.env).not.toHaveProperty("ANTHROPIC_AUTH_TOKEN");

    const listed = await runCli(["router", "agents", "--json", ...target()], cliEnv());
    expect(listed.code, listed.stderr).toBe(0);
    const accounts = JSON.parse(listed.stdout).accounts as { agent: string; connected: boolean }[];
    expect(
      accounts
        .filter((account) => account.connected)
        .map((account) => account.agent)
        .sort(),
    ).toEqual(["claude-code", "codex"]);

    // Codex: `exec` with the connected config and nothing else (its own sandbox runs the echo).
    const codex = await run(
      process.execPath,
      [CODEX, "exec", "--skip-git-repo-check", "run the command and tell me what it printed"],
      agentEnv(),
    );
    expect(codex.code, codex.output).toBe(0);
    // The second turn's answer quotes the tool output the model got back.
    expect(codex.output, JSON.stringify(mock.toolNames)).toMatch(new RegExp(`${FINAL_PREFIX}[^]*${PRINTED}`));
    const codexOutputs = mock.toolOutputs.splice(0);
    expect(
      codexOutputs.some((output) => output.includes(PRINTED)),
      codex.output,
    ).toBe(true);
    // The shell reaches the model as ordinary function tools, never the built-in local_shell item type.
    expect(mock.toolNames.some((names) => names.includes("shell_command") || names.includes("exec_command"))).toBe(
      true,
    );
    expect(mock.toolNames.every((names) => !names.includes("local_shell"))).toBe(true);

    // Claude Code: headless, Bash allowed; its own key stays its own, the router key rides in the custom header.
    const claude = await run(
      CLAUDE,
      ["-p", "run the command and tell me what it printed", "--allowedTools", "Bash"],
      agentEnv({ ANTHROPIC_API_KEY: CLAUDE_OWN_KEY }),
    );
    expect(claude.code, claude.output).toBe(0);
    expect(claude.output).toMatch(new RegExp(`${FINAL_PREFIX}[^]*${PRINTED}`));
    expect(
      mock.toolOutputs.some((output) => output.includes(PRINTED)),
      claude.output,
    ).toBe(true);

    // Every model request reached the mock through the router (anything else met the dead proxy).
    expect(mock.requests.some((request) => request.startsWith("POST /v1/responses"))).toBe(true);
    expect(mock.requests.some((request) => request.startsWith("POST /v1/messages"))).toBe(true);

    for (const agent of ["codex", "claude-code"]) {
      const disconnected = await runCli(["router", "disconnect", agent, ...target()], cliEnv());
      expect(disconnected.code, disconnected.stderr).toBe(0);
    }
    expect(readFileSync(codexFile, "utf8")).toBe(CODEX_BEFORE);
    expect(readFileSync(claudeFile, "utf8")).toBe(CLAUDE_BEFORE);
  }, 300_000);
});
