import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, closedPort, runCli, startCliBroker } from "../../cli/cli-harness.js";
import { FINAL_TEXT, startToolModelMock, type ToolModelMock } from "./tool-model-mock.js";

/**
 * Issue 26, "Must show": the real agents from npm (Claude Code 2.1.330, Codex CLI 0.169.0, pinned devDependencies
 * of @notify/broker) in a temporary HOME, with the MCP configuration `notify mcp install` wrote, against a loopback
 * model that calls ask_person. The question appears in Notify with the agent's name and project; the answer given
 * on /v1 reaches the model's next request as the tool result. As in test/hooks/e2e, nothing may reach a vendor:
 * base URLs point at the mock and every proxy variable names a dead loopback port.
 */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const CLAUDE = join(ROOT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const CODEX = join(ROOT, "node_modules/@openai/codex/bin/codex.js");

const missing = [
  existsSync(CLAUDE) ? undefined : "@anthropic-ai/claude-code (linux-x64 binary)",
  existsSync(CODEX) ? undefined : "@openai/codex",
].filter((name) => name !== undefined);
if (missing.length > 0) {
  if (process.env.CI === "true") throw new Error(`MCP agent e2e: missing ${missing.join(", ")}`);
  console.warn(`\n*** SKIPPING the real-agent MCP e2e: missing ${missing.join(", ")} ***\n`);
}

const CLAUDE_TEST_KEY = "sk-ant-test-not-a-real-key-0123456789";
const QUESTION = {
  prompt: "Postgres or SQLite for the new service?",
  kind: "single_choice",
  choices: [
    { id: "pg", label: "Postgres" },
    { id: "sqlite", label: "SQLite" },
  ],
};

let cli: CliBroker;
let root: string;
let home: string;
let work: string;
let deadProxy: string;

beforeAll(async () => {
  if (missing.length > 0) return;
  cli = await startCliBroker();
  root = mkdtempSync(join(tmpdir(), "notify-mcp-e2e-"));
  home = join(root, "home");
  work = join(root, "service");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(home, ".codex"), { recursive: true });
  mkdirSync(join(work, ".git"), { recursive: true });
  deadProxy = `http://127.0.0.1:${await closedPort()}`;
});

afterAll(async () => {
  if (missing.length > 0) return;
  await cli?.close();
  rmSync(root, { recursive: true, force: true });
});

function agentEnv(mockUrl: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "LANG", "TERM", "USER", "SHELL"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    ANTHROPIC_BASE_URL: mockUrl,
    ANTHROPIC_API_KEY: CLAUDE_TEST_KEY,
    MOCK_API_KEY: "not-a-real-key",
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
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function exited(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

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

/** The tool result the agent sent back to the model, as text. */
function toolResultText(mock: ToolModelMock): string | undefined {
  for (const body of mock.bodies) {
    for (const message of body.messages ?? []) {
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block.type !== "tool_result") continue;
        const content = block.content;
        return typeof content === "string" ? content : (content ?? []).map((part: Json) => part.text ?? "").join("");
      }
    }
    for (const item of body.input ?? []) {
      if (item.type !== "function_call_output") continue;
      const output = item.output;
      return typeof output === "string" ? output : JSON.stringify(output);
    }
  }
  return undefined;
}

const run = missing.length > 0 ? it.skip : it;

describe("real agents calling ask_person through `notify mcp install`", () => {
  run(
    "Claude Code 2.1.330 (-p): the question is listed as claude-code in the project; the answer is the tool result",
    async () => {
      const installed = await runCli(["mcp", "install", "claude-code", ...cli.target], cliEnv({ HOME: home }));
      expect(installed.code, installed.stderr).toBe(0);
      const config = JSON.parse(readFileSync(join(home, ".claude.json"), "utf8"));
      expect(config.mcpServers.notify).toMatchObject({ type: "stdio", timeout: 3_660_000 });

      const mock = await startToolModelMock("mcp__notify__ask_person", QUESTION);
      try {
        const claude = spawn(CLAUDE, ["-p", "pick a database", "--allowedTools", "mcp__notify__ask_person"], {
          cwd: work,
          env: agentEnv(mock.url),
          stdio: ["ignore", "pipe", "pipe"],
        });
        const done = exited(claude);
        const question = await until("the question in Notify", async () => {
          const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=claude-code");
          if (body[0] === undefined && toolResultText(mock) !== undefined)
            throw new Error("no question, but a tool result");
          return body[0];
        }).catch(async (error) => {
          claude.kill();
          const result = await done;
          throw new Error(
            `${(error as Error).message}\noffered: ${JSON.stringify(mock.offered)}\ntool result: ${toolResultText(mock)}\n${result.output}`,
          );
        });
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
      const mock = await startToolModelMock("mcp__notify__ask_person", QUESTION);
      try {
        writeFileSync(
          join(home, ".codex", "config.toml"),
          [
            'model = "mock-model"',
            'model_provider = "mock"',
            'approval_policy = "never"',
            'sandbox_mode = "read-only"',
            "check_for_update_on_startup = false",
            "",
            "[model_providers.mock]",
            'name = "Mock"',
            `base_url = "${mock.url}/v1"`,
            'wire_api = "responses"',
            'env_key = "MOCK_API_KEY"',
            "",
            "[analytics]",
            "enabled = false",
            "",
            `[projects."${work}"]`,
            'trust_level = "trusted"',
            "",
          ].join("\n"),
        );
        const installed = await runCli(["mcp", "install", "codex", ...cli.target], cliEnv({ HOME: home }));
        expect(installed.code, installed.stderr).toBe(0);
        const toml = readFileSync(join(home, ".codex", "config.toml"), "utf8");
        expect(toml).toContain("[mcp_servers.notify]");
        expect(toml).toContain("tool_timeout_sec = 3660");

        const codex = spawn(process.execPath, [CODEX, "exec", "--skip-git-repo-check", "pick a database"], {
          cwd: work,
          env: agentEnv(mock.url),
          stdio: ["ignore", "pipe", "pipe"],
        });
        const done = exited(codex);
        const question = await until("the question in Notify", async () => {
          const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=codex");
          if (body[0] === undefined && toolResultText(mock) !== undefined)
            throw new Error("no question, but a tool result");
          return body[0];
        }).catch(async (error) => {
          codex.kill();
          const result = await done;
          throw new Error(
            `${(error as Error).message}\noffered: ${JSON.stringify(mock.offered)}\ntool result: ${toolResultText(mock)}\n${result.output}`,
          );
        });
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
