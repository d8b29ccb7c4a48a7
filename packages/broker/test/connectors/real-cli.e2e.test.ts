import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brokerApi, type ModelMock, type Reply, startModelMock, type Turn } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { cliEnv, runCli } from "../cli/cli-harness.js";
import { agentEnv, agentSandbox, agentTest, CLAUDE, CODEX, startAgent } from "../real-agents.js";

/**
 * Issue 17, "Must show": in a temporary HOME, `notify router connect codex` and `notify router connect claude-code`
 * point the real agents from npm (pinned devDependencies: Codex CLI 0.169.0, Claude Code 2.1.330) at the router,
 * which sends their traffic to a loopback model. Each agent runs a two-turn tool round trip with no other
 * configuration: the model asks for a shell command, gets its output back, and answers with it. `notify router
 * disconnect` then leaves both files byte for byte as they were before connect.
 */
const test = agentTest("connector e2e", { claude: true, codex: true });
const skipped = test !== it;

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

let home: string;
let work: string;
let dataDir: string;
let broker: RunningBroker;
let mock: ModelMock;
let deadProxy: string;

const target = (): string[] => ["--port", String(broker.port), "--data-dir", dataDir];

const { ui } = brokerApi(
  () => broker.url,
  () => broker.settings.authToken,
);

const FINAL_PREFIX = "The command printed:";

/**
 * The model behind the router: it asks once for COMMAND through the agent's shell tool (Codex: the catalogue's
 * `shell_command` takes `{command}`, Codex 0.169.0's unified exec `exec_command` takes `{cmd}`; Claude Code: Bash),
 * then answers with what the command printed.
 */
function printsCommand(turn: Turn): Reply {
  const outputs = turn.toolResults.map((result) => result.text);
  const reply = { text: `${FINAL_PREFIX} ${outputs.join(" ").trim() || "nothing"}` };
  if (outputs.length > 0) return reply;
  const names = turn.tools.map((tool) => tool.name);
  if (turn.wire === "messages") {
    if (!names.includes("Bash")) return reply;
    return turn.stream
      ? { tool: "Bash", input: { command: COMMAND, description: "Print the marker" } }
      : { text: "OK" };
  }
  if (names.includes("shell_command")) return { tool: "shell_command", input: { command: COMMAND } };
  if (names.includes("exec_command")) return { tool: "exec_command", input: { cmd: COMMAND } };
  return reply;
}

/** The tool results and the offered tool names of the model turns from `from` on. */
const toolOutputs = (from = 0) =>
  mock
    .turns()
    .slice(from)
    .flatMap((turn) => turn.toolResults.map((result) => result.text));
const toolNames = () => mock.turns().map((turn) => turn.tools.map((tool) => tool.name));

beforeAll(async () => {
  if (skipped) return;
  const sandbox = await agentSandbox("notify-connect-e2e-", "project");
  ({ home, work, deadProxy } = sandbox);
  dataDir = join(sandbox.root, "data");
  mkdirSync(dataDir);
  writeFileSync(join(home, ".codex", "config.toml"), CODEX_BEFORE);
  writeFileSync(join(home, ".claude", "settings.json"), CLAUDE_BEFORE);
  mock = await startModelMock({ reply: printsCommand, models: [] });
  broker = await startBroker({ dataDir, port: 0, env: { HOME: home } });
  expect((await ui("PUT", "/router/settings", { enabled: true })).status).toBe(200);
  for (const [slug, wire, model] of [
    ["mock", "responses_wire", "mock-coder"],
    ["mockm", "messages_wire", "mock-claude"],
  ] as const) {
    const created = await ui("POST", "/router/upstreams", {
      slug,
      wire,
      base_url: mock.url,
      models: [model],
      enabled: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
});

afterAll(async () => {
  if (skipped) return;
  await broker?.close();
  await mock?.close();
});

const run = (command: string, args: string[], env: Record<string, string>) => startAgent(command, args, work, env).done;

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
      agentEnv(home, deadProxy),
    );
    expect(codex.code, codex.output).toBe(0);
    // The second turn's answer quotes the tool output the model got back.
    expect(codex.output, JSON.stringify(toolNames())).toMatch(new RegExp(`${FINAL_PREFIX}[^]*${PRINTED}`));
    const codexOutputs = toolOutputs();
    const codexTurns = mock.turns().length;
    expect(
      codexOutputs.some((output) => output.includes(PRINTED)),
      codex.output,
    ).toBe(true);
    // The shell reaches the model as ordinary function tools, never the built-in local_shell item type.
    expect(toolNames().some((names) => names.includes("shell_command") || names.includes("exec_command"))).toBe(true);
    expect(toolNames().every((names) => !names.includes("local_shell"))).toBe(true);

    // Claude Code: headless, Bash allowed; its own key stays its own, the router key rides in the custom header.
    const claude = await run(
      CLAUDE,
      ["-p", "run the command and tell me what it printed", "--allowedTools", "Bash"],
      agentEnv(home, deadProxy, { ANTHROPIC_API_KEY: CLAUDE_OWN_KEY }),
    );
    expect(claude.code, claude.output).toBe(0);
    expect(claude.output).toMatch(new RegExp(`${FINAL_PREFIX}[^]*${PRINTED}`));
    expect(
      toolOutputs(codexTurns).some((output) => output.includes(PRINTED)),
      claude.output,
    ).toBe(true);

    // Every model request reached the mock through the router (anything else met the dead proxy).
    expect(mock.hits.some((hit) => hit.method === "POST" && hit.url.startsWith("/v1/responses"))).toBe(true);
    expect(mock.hits.some((hit) => hit.method === "POST" && hit.url.startsWith("/v1/messages"))).toBe(true);

    for (const agent of ["codex", "claude-code"]) {
      const disconnected = await runCli(["router", "disconnect", agent, ...target()], cliEnv());
      expect(disconnected.code, disconnected.stderr).toBe(0);
    }
    expect(readFileSync(codexFile, "utf8")).toBe(CODEX_BEFORE);
    expect(readFileSync(claudeFile, "utf8")).toBe(CLAUDE_BEFORE);
  }, 300_000);
});
