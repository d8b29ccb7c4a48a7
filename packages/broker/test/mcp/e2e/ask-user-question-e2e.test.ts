import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, closedPort, runCli, startCliBroker } from "../../cli/cli-harness.js";
import { FINAL_TEXT, startToolModelMock, type ToolModelMock } from "./tool-model-mock.js";

/**
 * Issue 26, "Must show": the real Claude Code (2.1.330, from npm) answering its own AskUserQuestion call from a
 * loopback model with the answer given on /v1, through the hooks `notify hooks install claude-code` wrote. Claude
 * Code offers AskUserQuestion only in its terminal UI (in `-p` the tool is disabled), so the CLI runs in a detached
 * tmux session, as a person runs it; and `-p` shows the hook staying out of the way. Nothing reaches a vendor: the
 * base URL is the mock and every proxy variable names a dead loopback port.
 */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const CLAUDE = join(ROOT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const TMUX = ["/usr/bin/tmux", "/usr/local/bin/tmux"].find((path) => existsSync(path));

const missing = [
  existsSync(CLAUDE) ? undefined : "@anthropic-ai/claude-code (linux-x64 binary)",
  TMUX !== undefined ? undefined : "tmux (Debian package tmux)",
].filter((name) => name !== undefined);
if (missing.length > 0) {
  if (process.env.CI === "true") throw new Error(`AskUserQuestion e2e: missing ${missing.join(", ")}`);
  console.warn(`\n*** SKIPPING the AskUserQuestion e2e: missing ${missing.join(", ")} ***\n`);
}

const CLAUDE_TEST_KEY = "sk-ant-test-not-a-real-key-0123456789";
const QUESTION = {
  question: "Which database should the service use?",
  header: "Database",
  options: [
    { label: "Postgres", description: "a server" },
    { label: "SQLite", description: "one file" },
  ],
  multiSelect: false,
};

let cli: CliBroker;
let root: string;
let home: string;
let work: string;
let deadProxy: string;

beforeAll(async () => {
  if (missing.length > 0) return;
  cli = await startCliBroker();
  root = mkdtempSync(join(tmpdir(), "notify-auq-e2e-"));
  home = join(root, "home");
  work = join(root, "service");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(work, ".git"), { recursive: true });
  deadProxy = `http://127.0.0.1:${await closedPort()}`;
  // A set-up Claude Code: onboarding done, the test key approved, the project trusted (no first-run dialogs).
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      customApiKeyResponses: { approved: [CLAUDE_TEST_KEY.slice(-20)], rejected: [] },
      projects: { [work]: { hasTrustDialogAccepted: true, allowedTools: [] } },
    }),
  );
  const installed = await runCli(["hooks", "install", "claude-code", ...cli.target], cliEnv({ HOME: home }));
  expect(installed.code, installed.stderr).toBe(0);
});

afterAll(async () => {
  if (missing.length > 0) return;
  await cli?.close();
  rmSync(root, { recursive: true, force: true });
});

function agentEnv(mockUrl: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "LANG", "USER", "SHELL"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    TERM: "xterm-256color",
    ANTHROPIC_BASE_URL: mockUrl,
    ANTHROPIC_API_KEY: CLAUDE_TEST_KEY,
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

/** The tool result Claude Code sent back to the model. */
function toolResult(mock: ToolModelMock): Json | undefined {
  for (const body of mock.bodies) {
    for (const message of body.messages ?? []) {
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block.type === "tool_result") return block;
      }
    }
  }
  return undefined;
}

const resultText = (block: Json): string =>
  typeof block.content === "string"
    ? block.content
    : (block.content ?? []).map((part: Json) => part.text ?? "").join("");

const run = missing.length > 0 ? it.skip : it;

describe("Claude Code's own AskUserQuestion answered through Notify", () => {
  run(
    "in the terminal UI: the question is listed in Notify, the answer on /v1 is the tool result the model reads",
    async () => {
      const mock = await startToolModelMock("AskUserQuestion", { questions: [QUESTION] });
      const socket = `notify-auq-${process.pid}`;
      const tmux = (...args: string[]) => spawnSync(TMUX as string, ["-L", socket, ...args], { encoding: "utf8" });
      const env = Object.entries(agentEnv(mock.url)).map(([name, value]) => `${name}=${value}`);
      const started = tmux(
        "new-session",
        "-d",
        "-s",
        "claude",
        "-x",
        "200",
        "-y",
        "50",
        "-c",
        work,
        "env",
        "-i",
        ...env,
        CLAUDE,
        "pick a database",
      );
      expect(started.status, started.stderr).toBe(0);
      const screen = (): string => tmux("capture-pane", "-p", "-t", "claude").stdout ?? "";
      try {
        const question = await until("the question in Notify", async () => {
          const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=claude-code");
          return body.find((interaction) => interaction.prompt === QUESTION.question);
        }).catch((error) => {
          throw new Error(`${(error as Error).message}\nscreen:\n${screen()}`);
        });
        expect(question).toMatchObject({
          kind: "single_choice",
          project: "service",
          choices: [
            { id: "option_1", label: "Postgres", detail: "a server" },
            { id: "option_2", label: "SQLite", detail: "one file" },
          ],
        });
        expect(question.session_id).toMatch(/^[0-9a-f-]{36}$/);
        const answered = await cli.api("POST", `/v1/interactions/${question.id}/respond`, {
          response_id: randomUUID(),
          request_digest: question.request_digest,
          nonce: question.nonce,
          choice_id: "option_2",
          source: "phone",
        });
        expect(answered.status).toBe(200);
        const block = await until("the tool result at the model", async () => toolResult(mock)).catch((error) => {
          throw new Error(`${(error as Error).message}\nscreen:\n${screen()}`);
        });
        expect(block.is_error).not.toBe(true);
        expect(resultText(block)).toContain(`"${QUESTION.question}"="SQLite"`);
        await until("the model's final text on screen", async () =>
          screen().includes(FINAL_TEXT) ? true : undefined,
        ).catch((error) => {
          throw new Error(`${(error as Error).message}\nscreen:\n${screen()}`);
        });
      } finally {
        tmux("kill-server");
        await mock.close();
      }
    },
    180_000,
  );

  run(
    "in -p, where Claude Code disables AskUserQuestion, the hook stays out of the way: no question, the CLI's own error",
    async () => {
      const mock = await startToolModelMock("AskUserQuestion", { questions: [QUESTION] });
      try {
        const claude = spawn(CLAUDE, ["-p", "pick a database"], {
          cwd: work,
          env: agentEnv(mock.url),
          stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        claude.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk;
        });
        claude.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk;
        });
        const code = await new Promise<number | null>((resolve) => claude.once("close", resolve));
        expect(code, output).toBe(0);
        const block = toolResult(mock);
        expect(block?.is_error).toBe(true);
        expect(resultText(block)).toMatch(/No such tool available: AskUserQuestion/);
        const { body } = await cli.api<Json[]>("GET", "/v1/interactions?agent=claude-code");
        expect(
          body.filter((interaction) => interaction.prompt === QUESTION.question && interaction.status === "pending"),
        ).toEqual([]);
      } finally {
        await mock.close();
      }
    },
    180_000,
  );
});
