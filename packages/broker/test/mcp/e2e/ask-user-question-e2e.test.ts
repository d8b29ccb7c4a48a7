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
  killTmuxServers,
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

/** One call with three questions (issue 36, item 4): a choice with descriptions, a multiSelect, one for own words. */
const QUEUE = {
  question: "Where should the job queue live?",
  header: "Queue",
  options: [
    { label: "Postgres", description: "a table in the service's database" },
    { label: "Redis", description: "a server of its own, in memory" },
  ],
  multiSelect: false,
};
const CHECKS = {
  question: "Which checks should run on every push?",
  header: "CI",
  options: [
    { label: "lint", description: "seconds" },
    { label: "unit tests", description: "a minute" },
    { label: "e2e", description: "ten minutes, in Chromium" },
  ],
  multiSelect: true,
};
const NAME = {
  question: "What should the queue's worker be called?",
  header: "Name",
  options: [
    { label: "worker", description: "what it is" },
    { label: "jobs", description: "what it runs" },
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
  killTmuxServers();
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
    "three questions in one call: a choice, two labels of a multiSelect, own words through Other…; all reach the model",
    async () => {
      const mock = await startModelMock({
        reply: callsTool("AskUserQuestion", { questions: [QUEUE, CHECKS, NAME] }),
        models: [],
      });
      const claude = startInTmux("claude-three", work, agentEnv(home, deadProxy, mockModelEnv(mock)), [
        CLAUDE,
        "set up the job queue",
      ]);
      const screen = claude.screen;
      const withScreen = (error: unknown): never => {
        throw new Error(`${(error as Error).message}\nscreen:\n${screen()}`);
      };
      const pending = async (): Promise<Json[]> =>
        (await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=claude-code")).body;
      const respond = async (interaction: Json, answer: { choice_id: string } | { text: string }): Promise<void> => {
        const answered = await cli.api("POST", `/v1/interactions/${interaction.id}/respond`, {
          response_id: randomUUID(),
          request_digest: interaction.request_digest,
          nonce: interaction.nonce,
          source: "phone",
          ...answer,
        });
        expect(answered.status).toBe(200);
      };
      try {
        // All three open at once, so a person answers them together.
        const [queue, checks, name] = await eventually("the three questions in Notify", async () => {
          const listed = await pending();
          const found = [QUEUE, CHECKS, NAME].map((asked) =>
            listed.find((interaction) => interaction.prompt.startsWith(asked.question)),
          );
          return found.every((interaction) => interaction !== undefined) ? (found as Json[]) : undefined;
        }).catch(withScreen);
        const other = { id: "other", label: "Other…", detail: "Type your own answer" };
        expect(queue).toMatchObject({
          kind: "single_choice",
          project: "service",
          prompt: QUEUE.question,
          choices: [
            { id: "option_1", label: "Postgres", detail: "a table in the service's database" },
            { id: "option_2", label: "Redis", detail: "a server of its own, in memory" },
            other,
          ],
        });
        // Notify has no multiple choice: the multiSelect is a text question listing the labels to type, each with
        // its description.
        expect(checks).toMatchObject({ kind: "text", project: "service", choices: [] });
        const listed = CHECKS.options.map((option) => `- ${option.label}: ${option.description}`).join("\n");
        expect(checks.prompt).toBe(
          `${CHECKS.question}\n\n${listed}\n\nChoose one or more; answer with their names separated by commas.`,
        );
        expect(name).toMatchObject({
          kind: "single_choice",
          project: "service",
          prompt: NAME.question,
          choices: [
            { id: "option_1", label: "worker", detail: "what it is" },
            { id: "option_2", label: "jobs", detail: "what it runs" },
            other,
          ],
        });
        // One call, one session: each says which of the three it is and under which header.
        expect(queue.session_id).toMatch(/^[0-9a-f-]{36}$/);
        expect([checks.session_id, name.session_id]).toEqual([queue.session_id, queue.session_id]);
        const notifications = (await cli.api<Json[]>("GET", "/v1/notifications?agent=claude-code")).body;
        const titleOf = (interaction: Json) => notifications.find((entry) => entry.key === interaction.key)?.title;
        expect([queue, checks, name].map(titleOf)).toEqual([
          "Claude Code asks in service: Queue (1 of 3)",
          "Claude Code asks in service: CI (2 of 3)",
          "Claude Code asks in service: Name (3 of 3)",
        ]);

        await respond(queue, { choice_id: "option_2" });
        await respond(checks, { text: "lint, unit tests" });
        await respond(name, { choice_id: "other" });
        // "Other…" asks for the person's own words in a text question of the same item.
        const words = await eventually("the question for own words", async () =>
          (await pending()).find((interaction) => interaction.key === `${name.key}:words`),
        ).catch(withScreen);
        expect(words).toMatchObject({ kind: "text", prompt: NAME.question, session_id: queue.session_id });
        await respond(words, { text: "conveyor" });

        const result = await eventually("the tool result at the model", async () => toolResult(mock)).catch(withScreen);
        expect(result.isError).not.toBe(true);
        // Claude Code 2.1.330's own wording, the answers in the call's order; with an answer that is no option's
        // label (the own words) it says "The user answered" rather than "Your questions have been answered".
        expect(result.text).toBe(
          `The user answered: "${QUEUE.question}"="Redis", "${CHECKS.question}"="lint, unit tests", ` +
            `"${NAME.question}"="conveyor". Read the answers carefully \u2014 they may request clarification, ` +
            "changes, or that you not proceed \u2014 and follow what they actually say.",
        );
        await eventually("the model's final text on screen", async () =>
          screen().includes(FINAL_TEXT) ? true : undefined,
        ).catch(withScreen);
        // Nothing of the call is left open.
        const left = (await pending()).filter((interaction) => interaction.session_id === queue.session_id);
        expect(left).toEqual([]);
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
