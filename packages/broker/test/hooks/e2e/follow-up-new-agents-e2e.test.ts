import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Json, type ModelMock, startModelMock, type Turn } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../../cli/cli-harness.js";
import { agentEnv, agentSandbox, eventually, startAgent } from "../../real-agents.js";
import { startGeminiModel } from "./gemini-model.js";

/**
 * Issue 38, item 3 with the steering issue's follow-ups: the real Gemini CLI 0.61.0 (`-p`) and GitHub Copilot CLI
 * 1.0.102 (`-p`), each in a temporary HOME against a loopback model that only writes text, after `notify hooks install`,
 * with the person's presence unknown. The turn ends, so the agent's stop hook (Gemini's AfterAgent, Copilot's
 * agentStop) opens a follow-up; `notify answer --text` replies; the agent's next model request carries the reply as
 * the user's words (Gemini: AfterAgent's `{"decision": "deny", "reason"}`; Copilot: agentStop's `{"decision":
 * "block", "reason"}`); the continued turn's stop, at `followUp.maxInARow` 1, asks nothing and the agent exits 0.
 * OpenCode's follow-up is in opencode-e2e.test.ts.
 */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const GEMINI = join(ROOT, "node_modules/@google/gemini-cli/bundle/gemini.js");
const COPILOT = join(ROOT, "node_modules/@github/copilot-linux-x64/copilot");
const runIf = (path: string, name: string) => {
  if (existsSync(path) || process.env.CI === "true") return it;
  console.warn(`\n*** SKIPPING the ${name} follow-up e2e: missing ${path} ***\n`);
  return it.skip;
};

const FIRST = "Turn one done.";
const SECOND = "Turn two done.";

let cli: CliBroker;
let home: string;
let work: string;
let deadProxy: string;

beforeAll(async () => {
  cli = await startCliBroker({ followUp: { waitSeconds: 300, maxInARow: 1 } });
  ({ home, work, deadProxy } = await agentSandbox("notify-follow-up-agents-", "project", { git: true }));
  mkdirSync(join(home, ".gemini"));
  mkdirSync(join(home, ".copilot"));
  writeFileSync(join(home, ".gemini", "settings.json"), '{"security": {"auth": {"selectedType": "gemini-api-key"}}}\n');
  for (const agent of ["gemini", "copilot"]) {
    const installed = await runCli(["hooks", "install", agent, ...cli.target], cliEnv({ HOME: home }));
    expect(installed.code, installed.stderr).toBe(0);
  }
});

afterAll(async () => {
  await cli?.close();
});

/** The agent's follow-up (a text question), then `notify answer --text`; the rest is the agent's. */
async function replyToFollowUp(agent: string, reply: string, shown: (error: unknown) => Promise<never>) {
  const followUp = await eventually(
    `${agent}'s follow-up`,
    async () => {
      const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${agent}`);
      return body.find((question) => question.kind === "text");
    },
    120_000,
  ).catch(shown);
  expect(followUp).toMatchObject({ project: "project" });
  const answered = await runCli(["answer", followUp.id, "--text", reply, ...cli.target]);
  expect(answered.code, answered.stderr).toBe(0);
  return followUp;
}

/** After the continued turn: nothing open, and the completion carries the second turn where the agent says it. */
async function endsPlainly(agent: string): Promise<Json[]> {
  const open = (await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${agent}`)).body;
  expect(open).toEqual([]);
  return (await cli.api<Json[]>("GET", `/v1/notifications?agent=${agent}&type=completed`)).body;
}

describe("a reply to a finished turn goes on in the new agents (issue 38)", () => {
  runIf(GEMINI, "Gemini CLI")(
    "Gemini CLI: AfterAgent's deny with the reply is the next prompt",
    async () => {
      const reply = "Now list the files (gemini).";
      const model = await startGeminiModel((turn) => ({
        text: turn.userTexts.some((text) => text.includes(reply)) ? SECOND : FIRST,
      }));
      try {
        const env = agentEnv(home, deadProxy, {
          GEMINI_API_KEY: "not-a-real-key",
          GOOGLE_GEMINI_BASE_URL: model.url,
          GEMINI_CLI_TRUST_WORKSPACE: "true",
          GEMINI_TELEMETRY_ENABLED: "false",
        });
        const args = [GEMINI, "-p", "say hello", "-m", "gemini-2.5-pro"];
        const { child, done } = startAgent(process.execPath, args, work, env, 150_000);
        const shown = async (error: unknown): Promise<never> => {
          child.kill("SIGKILL");
          const { output } = await done;
          throw new Error(`${(error as Error).message}\nturns: ${JSON.stringify(model.turns)}\n${output}`);
        };
        const followUp = await replyToFollowUp("gemini", reply, shown);
        expect(followUp.prompt).toBe(FIRST);
        const result = await done;
        expect(result.code, result.output).toBe(0);
        expect(result.output).toContain(SECOND);
        expect(model.turns.some((turn) => turn.userTexts.some((text) => text.includes(reply)))).toBe(true);
        const completed = await endsPlainly("gemini");
        // Gemini's prompt_response spans the prompt, the continued turn included.
        expect(completed[0]).toMatchObject({ title: "Gemini CLI finished in project" });
        expect(completed[0].message).toBe(`${FIRST}\n${SECOND}`);
      } finally {
        await model.close();
      }
    },
    180_000,
  );

  runIf(COPILOT, "Copilot CLI")(
    "Copilot CLI: agentStop's block with the reply is the next prompt",
    async () => {
      const reply = "Now list the files (copilot).";
      const userTexts = (turn: Turn): string[] =>
        ((turn.body as Json).messages ?? [])
          .filter((message: Json) => message.role === "user")
          .map((message: Json) =>
            typeof message.content === "string"
              ? message.content
              : (message.content ?? []).map((part: Json) => part.text ?? "").join(""),
          );
      const mock: ModelMock = await startModelMock({
        reply: (turn) => ({ text: userTexts(turn).some((text) => text.includes(reply)) ? SECOND : FIRST }),
        models: [],
      });
      try {
        const env = agentEnv(home, deadProxy, {
          COPILOT_PROVIDER_BASE_URL: mock.url,
          COPILOT_PROVIDER_API_KEY: "not-a-real-key",
          COPILOT_MODEL: "gpt-4.1",
          COPILOT_AUTO_UPDATE: "false",
        });
        const args = ["-p", "say hello", "-s", "--no-auto-update", "--disable-builtin-mcps"];
        const { child, done } = startAgent(COPILOT, args, work, env, 150_000);
        const shown = async (error: unknown): Promise<never> => {
          child.kill("SIGKILL");
          const { output } = await done;
          throw new Error(
            `${(error as Error).message}\nusers: ${JSON.stringify(mock.turns().map(userTexts))}\n${output}`,
          );
        };
        await replyToFollowUp("copilot", reply, shown);
        const result = await done;
        expect(result.code, result.output).toBe(0);
        expect(result.output).toContain(SECOND);
        expect(mock.turns().some((turn) => userTexts(turn).some((text) => text.includes(reply)))).toBe(true);
        const completed = await endsPlainly("copilot");
        expect(completed[0]).toMatchObject({ title: "GitHub Copilot CLI finished in project" });
      } finally {
        await mock.close();
      }
    },
    180_000,
  );
});
