import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { type Json, type ModelMock, startModelMock, type ToolResult } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, NO_FOLLOW_UPS, runCli, startCliBroker } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  callsTool,
  eventually,
  exited,
  FINAL_TEXT,
  mockModelEnv,
  startInTmux,
  writeClaudeState,
} from "../../real-agents.js";

/**
 * Issue 26, "Must show": the real Claude Code (2.1.330, from npm) answering its own AskUserQuestion call from a
 * loopback model with the answer given on /v1, through the hooks `notify hooks install claude-code` wrote. Claude
 * Code offers AskUserQuestion only in its terminal UI (in `-p` the tool is disabled), so the CLI runs in a detached
 * tmux session, as a person runs it; and `-p` shows the hook staying out of the way. Nothing reaches a vendor: the
 * base URL is the mock and every proxy variable names a dead loopback port.
 */
const run = agentTest("AskUserQuestion e2e", { claude: true, tmux: true });
const skipped = run !== it;

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
let home: string;
let work: string;
let deadProxy: string;

beforeAll(async () => {
  if (skipped) return;
  // Its turns end with Stop hooks installed; a finished turn here is not about follow-ups (hooks/follow-up.test.ts).
  cli = await startCliBroker(NO_FOLLOW_UPS);
  ({ home, work, deadProxy } = await agentSandbox("notify-auq-e2e-", "service", { git: true }));
  // A set-up Claude Code: no first-run dialogs.
  writeClaudeState(home, work);
  const installed = await runCli(["hooks", "install", "claude-code", ...cli.target], cliEnv({ HOME: home }));
  expect(installed.code, installed.stderr).toBe(0);
});

afterAll(async () => {
  if (skipped) return;
  await cli?.close();
});

const startMock = () => startModelMock({ reply: callsTool("AskUserQuestion", { questions: [QUESTION] }), models: [] });

/** The tool result Claude Code sent back to the model. */
const toolResult = (mock: ModelMock): ToolResult | undefined => mock.turns().flatMap((turn) => turn.toolResults)[0];

describe("Claude Code's own AskUserQuestion answered through Notify", () => {
  run(
    "in the terminal UI: the question is listed in Notify, the answer on /v1 is the tool result the model reads",
    async () => {
      const mock = await startMock();
      const claude = startInTmux("claude", work, agentEnv(home, deadProxy, mockModelEnv(mock)), [
        CLAUDE,
        "pick a database",
      ]);
      const screen = claude.screen;
      try {
        const question = await eventually("the question in Notify", async () => {
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
            { id: "other", label: "Other…", detail: "Type your own answer" },
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
        const result = await eventually("the tool result at the model", async () => toolResult(mock)).catch((error) => {
          throw new Error(`${(error as Error).message}\nscreen:\n${screen()}`);
        });
        expect(result.isError).not.toBe(true);
        expect(result.text).toContain(`"${QUESTION.question}"="SQLite"`);
        await eventually("the model's final text on screen", async () =>
          screen().includes(FINAL_TEXT) ? true : undefined,
        ).catch((error) => {
          throw new Error(`${(error as Error).message}\nscreen:\n${screen()}`);
        });
      } finally {
        claude.kill();
        await mock.close();
      }
    },
    180_000,
  );

  run(
    "in -p, where Claude Code disables AskUserQuestion, the hook stays out of the way: no question, the CLI's own error",
    async () => {
      const mock = await startMock();
      try {
        const claude = spawn(CLAUDE, ["-p", "pick a database"], {
          cwd: work,
          env: agentEnv(home, deadProxy, mockModelEnv(mock)),
          stdio: ["ignore", "pipe", "pipe"],
        });
        const { code, output } = await exited(claude);
        expect(code, output).toBe(0);
        const result = toolResult(mock);
        expect(result?.isError).toBe(true);
        expect(result?.text).toMatch(/No such tool available: AskUserQuestion/);
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
