import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Json, type ModelMock, startModelMock, type Turn } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  CODEX,
  eventually,
  killTmuxServers,
  mockModelEnv,
  startAgent,
  startInTmux,
  writeClaudeState,
  writeCodexConfig,
} from "../../real-agents.js";

/**
 * Issue 35, "Must show" (the CLI part): the real Claude Code 2.1.330 (`-p`, http hooks) and Codex 0.169.0 (`exec`,
 * command hooks) against a loopback model. The turn ends; nobody is known present, so the Stop hook opens a
 * follow-up; `notify answer --text` replies; the agent's next model request carries the reply as the user's
 * instruction. The second Stop (a continued turn) asks again and is cancelled, so the agent ends. A broker with a
 * one-second window: no reply, and the agent ends at the window.
 */
const run = agentTest("follow-up e2e", { claude: true, codex: true, tmux: true });
const skipped = run !== it;

let mock: ModelMock;
let home: string;
let work: string;
let deadProxy: string;
let turnCount = 0;

beforeAll(async () => {
  if (skipped) return;
  ({ home, work, deadProxy } = await agentSandbox("notify-follow-up-e2e-", "project"));
  // Every turn ends with text: the agent stops after each model answer, so each turn runs its Stop hook.
  mock = await startModelMock({ reply: () => ({ text: `Turn ${++turnCount} done.` }), models: [] });
  writeCodexConfig(home, work, mock.url, "never");
});

afterAll(async () => {
  if (skipped) return;
  killTmuxServers();
  await mock?.close();
});

const env = () => agentEnv(home, deadProxy, mockModelEnv(mock));

/** The text of every user message of a model request (Messages or Responses wire). */
function userTexts(turn: Turn): string[] {
  const body = turn.body as Json;
  const items: Json[] = turn.wire === "messages" ? (body.messages ?? []) : Array.isArray(body.input) ? body.input : [];
  return items
    .filter((item) => item.role === "user")
    .map((item) =>
      typeof item.content === "string"
        ? item.content
        : (item.content as Json[]).map((part) => (typeof part.text === "string" ? part.text : "")).join(""),
    );
}

async function withBroker(config: Json, body: (cli: CliBroker) => Promise<void>): Promise<void> {
  const cli = await startCliBroker(config);
  try {
    for (const agent of ["claude-code", "codex"]) {
      const installed = await runCli(["hooks", "install", agent, ...cli.target], cliEnv({ HOME: home }));
      expect(installed.code, installed.stderr).toBe(0);
    }
    await body(cli);
  } finally {
    await cli.close();
  }
}

const followUpOf = (cli: CliBroker, agent: string, except: string[] = []) =>
  eventually(
    `a follow-up of ${agent}`,
    async () => {
      const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${agent}`);
      return body.find((question) => question.kind === "text" && !except.includes(question.id));
    },
    90_000,
  );

const agents = [
  {
    agent: "claude-code",
    start: () => startAgent(CLAUDE, ["-p", "say hello"], work, env()),
    // Claude Code: a user message "Stop hook feedback:" and the reply.
    carries: (texts: string[], reply: string) => texts.some((text) => text === `Stop hook feedback:\n${reply}`),
  },
  {
    agent: "codex",
    start: () =>
      startAgent(
        process.execPath,
        [CODEX, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "say hello"],
        work,
        env(),
      ),
    // Codex: a user message wrapping the reply in <hook_prompt>.
    carries: (texts: string[], reply: string) =>
      texts.some((text) => text.includes("<hook_prompt") && text.includes(reply)),
  },
];

describe("a reply to a finished turn is the agent's next instruction (issue 35)", () => {
  for (const { agent, start, carries } of agents) {
    run(
      `${agent}: notify answer --text reaches the next model request; a cancel ends the turn`,
      async () => {
        await withBroker({ followUp: { waitSeconds: 300 } }, async (cli) => {
          const before = mock.turns().length;
          const started = start();
          const first = await followUpOf(cli, agent);
          expect(first.prompt).toMatch(/^Turn \d+ done\.$/);
          const reply = `Now list the files (${agent}).`;
          const answered = await runCli(["answer", first.id, "--text", reply, ...cli.target]);
          expect(answered.code, answered.stderr).toBe(0);
          // The agent went on: its next request carries the reply as the user's instruction.
          await eventually(
            "the model request carrying the reply",
            async () =>
              mock
                .turns()
                .slice(before)
                .find((turn) => carries(userTexts(turn), reply)),
            90_000,
          );
          // Its next turn ends too, continued by a Stop hook: asked again; a cancel lets the agent end.
          const second = await followUpOf(cli, agent, [first.id]);
          // Each follow-up carries its turn, read from the agent's own transcript (docs/hooks.md, "Reading the
          // turn"): the first has the prompt, the second also the reply that started it, as the person's words.
          const turnOf = async (id: string) => (await cli.api<Json>("GET", `/ui/api/items/${id}/context`)).body;
          const firstTurn = await turnOf(first.id);
          expect(firstTurn).toMatchObject({ kind: "turn", messages: [{ role: "user", text: "say hello" }] });
          expect(firstTurn.duration_ms).toBeGreaterThanOrEqual(0);
          const secondTurn = await turnOf(second.id);

          expect(secondTurn.messages.at(-1)).toMatchObject({ role: "user" });
          expect(secondTurn.messages.at(-1).text).toBe(reply);
          expect(secondTurn.messages.some((message: Json) => message.text === first.prompt)).toBe(true);
          const cancelled = await runCli(["cancel", second.id, ...cli.target]);
          expect(cancelled.code, cancelled.stderr).toBe(0);
          const result = await started.done;
          expect(result.code, result.output).toBe(0);
          const { body } = await cli.api<Json>("GET", `/v1/interactions/${first.id}`);
          expect(body.response).toMatchObject({ source: "cli", text: reply });
        });
      },
      240_000,
    );
  }

  run(
    "Claude Code in tmux: a prompt typed in the terminal withdraws the follow-up everywhere, and runs next",
    async () => {
      await withBroker({ followUp: { waitSeconds: 300 } }, async (cli) => {
        // First-run screens answered as a person who used Claude Code before would have them (agents-e2e does so).
        writeClaudeState(home, work);
        const settingsFile = join(home, ".claude", "settings.json");
        const settings: Json = JSON.parse(readFileSync(settingsFile, "utf8"));
        writeFileSync(settingsFile, JSON.stringify({ ...settings, permissions: { defaultMode: "default" } }, null, 2));
        const before = mock.turns().length;
        const claude = startInTmux("claude-follow-up", work, env(), [CLAUDE, "say hello"]);
        try {
          const question = await followUpOf(cli, "claude-code");
          // The terminal says what the wait is (Notify's statusMessage on the Stop entry).
          await eventually(`the status line; screen:\n${claude.screen()}`, async () =>
            claude.screen().includes("waiting for a follow-up") ? true : undefined,
          );
          claude.keys("-l", "typed at the desk");
          claude.keys("Enter");
          await eventually(`the follow-up withdrawn; screen:\n${claude.screen()}`, async () => {
            const { body } = await cli.api<Json>("GET", `/v1/interactions/${question.id}`);
            return body.status === "cancelled" ? body : undefined;
          });
          // The typed prompt runs next, as the user's own message.
          await eventually("the typed prompt at the model", async () =>
            mock
              .turns()
              .slice(before)
              .find((turn) => userTexts(turn).some((text) => text.includes("typed at the desk"))),
          );
        } finally {
          claude.kill();
        }
      });
    },
    180_000,
  );

  run(
    "no reply: Claude Code ends at the window",
    async () => {
      await withBroker({ followUp: { waitSeconds: 2 } }, async (cli) => {
        const started = startAgent(CLAUDE, ["-p", "say hello"], work, env());
        const question = await followUpOf(cli, "claude-code");
        const result = await started.done;
        expect(result.code, result.output).toBe(0);
        const { body } = await cli.api<Json>("GET", `/v1/interactions/${question.id}`);
        expect(body.status).toBe("expired");
      });
    },
    180_000,
  );
});
