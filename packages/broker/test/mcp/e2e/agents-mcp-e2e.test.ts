import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Json, type ModelMock, startModelMock } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  CODEX,
  callsTool,
  eventually,
  exited,
  FINAL_TEXT,
  mockModelEnv,
  offeredTools,
  writeCodexConfig,
} from "../../real-agents.js";

/**
 * Issue 26, "Must show": the real agents from npm (Claude Code 2.1.330, Codex CLI 0.169.0, pinned devDependencies
 * of @notify/broker) in a temporary HOME, with the MCP configuration `notify mcp install` wrote, against a loopback
 * model that calls ask_person. The question appears in Notify with the agent's name and project; the answer given
 * on /v1 reaches the model's next request as the tool result. As in test/hooks/e2e, nothing may reach a vendor:
 * base URLs point at the mock and every proxy variable names a dead loopback port.
 */
const run = agentTest("real-agent MCP e2e", { claude: true, codex: true });
const skipped = run !== it;

const QUESTION = {
  prompt: "Postgres or SQLite for the new service?",
  kind: "single_choice",
  choices: [
    { id: "pg", label: "Postgres" },
    { id: "sqlite", label: "SQLite" },
  ],
};

let cli: CliBroker;
let home: string;
let work: string;
let deadProxy: string;

beforeAll(async () => {
  if (skipped) return;
  cli = await startCliBroker();
  ({ home, work, deadProxy } = await agentSandbox("notify-mcp-e2e-", "service", { git: true }));
});

afterAll(async () => {
  if (skipped) return;
  await cli?.close();
});

const startMock = () => startModelMock({ reply: callsTool("mcp__notify__ask_person", QUESTION), models: [] });

async function answer(id: string, choice: string): Promise<void> {
  const current = (await cli.api<Json>("GET", `/v1/interactions/${id}`)).body;
  const answered = await cli.api("POST", `/v1/interactions/${id}/respond`, {
    response_id: randomUUID(),
    request_digest: current.request_digest,
    nonce: current.nonce,
    choice_id: choice,
    source: "phone",
  });
  expect(answered.status).toBe(200);
}

/** The first tool result the agent sent back to the model, as text. */
const toolResultText = (mock: ModelMock): string | undefined =>
  mock.turns().flatMap((turn) => turn.toolResults)[0]?.text;

/** The agent's question in Notify; a tool result with no question, or the deadline, fails with what the model saw. */
async function questionOf(agent: string, mock: ModelMock, done: Promise<{ output: string }>, kill: () => void) {
  return eventually("the question in Notify", async () => {
    const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${agent}`);
    if (body[0] === undefined && toolResultText(mock) !== undefined) throw new Error("no question, but a tool result");
    return body[0];
  }).catch(async (error) => {
    kill();
    const result = await done;
    const offered = JSON.stringify(offeredTools(mock.turns()));
    throw new Error(
      `${(error as Error).message}\noffered: ${offered}\ntool result: ${toolResultText(mock)}\n${result.output}`,
    );
  });
}

describe("real agents calling ask_person through `notify mcp install`", () => {
  run(
    "Claude Code 2.1.330 (-p): the question is listed as claude-code in the project; the answer is the tool result",
    async () => {
      const installed = await runCli(["mcp", "install", "claude-code", ...cli.target], cliEnv({ HOME: home }));
      expect(installed.code, installed.stderr).toBe(0);
      const config = JSON.parse(readFileSync(join(home, ".claude.json"), "utf8"));
      expect(config.mcpServers.notify).toMatchObject({ type: "stdio", timeout: 3_660_000 });

      const mock = await startMock();
      try {
        const claude = spawn(CLAUDE, ["-p", "pick a database", "--allowedTools", "mcp__notify__ask_person"], {
          cwd: work,
          env: agentEnv(home, deadProxy, mockModelEnv(mock)),
          stdio: ["ignore", "pipe", "pipe"],
        });
        const done = exited(claude);
        const question = await questionOf("claude-code", mock, done, () => claude.kill());
        expect(question).toMatchObject({ agent: "claude-code", project: "service", ...QUESTION });
        await answer(question.id, "pg");
        const result = await done;
        expect(result.code, result.output).toBe(0);
        expect(result.output).toContain(FINAL_TEXT);
        // Claude Code hands the model the structured result (as JSON) when a tool returns one.
        expect(JSON.parse(toolResultText(mock) ?? "")).toEqual({
          status: "answered",
          choice_id: "pg",
          source: "phone",
        });
        // The session is Claude Code's own (a UUID), so the hooks' session rules apply to it as well.
        expect(question.session_id).toMatch(/^[0-9a-f-]{36}$/);
      } finally {
        await mock.close();
      }
    },
    180_000,
  );

  run(
    "Codex CLI 0.169.0 (exec): the question is listed as codex in the project; the answer is the tool result",
    async () => {
      const mock = await startMock();
      try {
        writeCodexConfig(home, work, mock.url, "never");
        const installed = await runCli(["mcp", "install", "codex", ...cli.target], cliEnv({ HOME: home }));
        expect(installed.code, installed.stderr).toBe(0);
        const toml = readFileSync(join(home, ".codex", "config.toml"), "utf8");
        expect(toml).toContain("[mcp_servers.notify]");
        expect(toml).toContain("tool_timeout_sec = 3660");
        // Waited for: an optional server slower than Codex's one-second grace is left out of the first turn.
        expect(toml).toContain("required = true");

        const codex = spawn(process.execPath, [CODEX, "exec", "--skip-git-repo-check", "pick a database"], {
          cwd: work,
          env: agentEnv(home, deadProxy, mockModelEnv(mock)),
          stdio: ["ignore", "pipe", "pipe"],
        });
        const done = exited(codex);
        const question = await questionOf("codex", mock, done, () => codex.kill());
        expect(question).toMatchObject({ agent: "codex", project: "service", ...QUESTION });
        await answer(question.id, "sqlite");
        const result = await done;
        expect(result.code, result.output).toBe(0);
        // Codex hands the model the structured result (as JSON) after its own timing line.
        expect(toolResultText(mock)).toContain('{"status":"answered","choice_id":"sqlite","source":"phone"}');
        expect(question.session_id).toMatch(/^[0-9a-f-]{36}$/);
      } finally {
        await mock.close();
      }
    },
    180_000,
  );
});
