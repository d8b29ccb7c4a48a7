import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, NO_FOLLOW_UPS, runCli, startCliBroker } from "../../cli/cli-harness.js";
import { agentEnv, agentSandbox, eventually, startAgent } from "../../real-agents.js";
import { startGeminiModel } from "./gemini-model.js";

/**
 * Issue 38, "Must show", Gemini CLI: the real CLI from npm (@google/gemini-cli 0.61.0, a root devDependency) in a
 * temporary HOME, headless (`-p`, `--approval-mode yolo`: Notify is the one gate, docs/hooks.md "Gemini CLI")
 * against a loopback model speaking the Gemini API's own wire (`GOOGLE_GEMINI_BASE_URL`, a dummy
 * `GEMINI_API_KEY`; the suites' ModelMock speaks OpenAI's and Anthropic's wires, so this file answers
 * `streamGenerateContent` itself). After `notify hooks install gemini` and `notify mcp install gemini`, with the
 * person's presence unknown (no page), one run asks for two shell commands and then calls ask_person: the gate's
 * question answered allow runs the first, deny stops the second (the model reads Notify's reason), ask_person is
 * answered on /v1, and the finished turn (AfterAgent) becomes a `completed` notification.
 */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const GEMINI = join(ROOT, "node_modules/@google/gemini-cli/bundle/gemini.js");
const run = existsSync(GEMINI) || process.env.CI === "true" ? it : it.skip;
if (run === it.skip) console.warn("\n*** SKIPPING the Gemini CLI e2e: missing @google/gemini-cli ***\n");

const FINAL = "Both commands handled and the person answered.";
const QUESTION = {
  prompt: "Ship it today?",
  kind: "single_choice",
  choices: [
    { id: "yes", label: "Yes" },
    { id: "no", label: "No" },
  ],
};

let cli: CliBroker;
let home: string;
let work: string;
let deadProxy: string;
let model: Awaited<ReturnType<typeof startGeminiModel>> | undefined;

beforeAll(async () => {
  if (run !== it) return;
  cli = await startCliBroker(NO_FOLLOW_UPS);
  ({ home, work, deadProxy } = await agentSandbox("notify-gemini-e2e-", "project", { git: true }));
  mkdirSync(join(home, ".gemini"));
  // As a person who used Gemini CLI with an API key before has it: the auth method chosen.
  writeFileSync(join(home, ".gemini", "settings.json"), '{"security": {"auth": {"selectedType": "gemini-api-key"}}}\n');
  for (const what of ["hooks", "mcp"]) {
    const installed = await runCli([what, "install", "gemini", ...cli.target], cliEnv({ HOME: home }));
    expect(installed.code, installed.stderr).toBe(0);
  }
});

afterAll(async () => {
  if (run !== it) return;
  await model?.close();
  await cli?.close();
});

async function answer(id: string, choice: string): Promise<void> {
  const result = await runCli(["answer", id, "--choice", choice, ...cli.target]);
  expect(result.code, result.stderr).toBe(0);
}

describe("Gemini CLI 0.61.0 with Notify's hooks and MCP server", () => {
  run(
    "away: the gate asks; allow runs the command, deny stops it with Notify's reason; ask_person; completed",
    async () => {
      const allowed = join(work, "allowed.marker");
      const denied = join(work, "denied.marker");
      model = await startGeminiModel((turn) => {
        const done = turn.responses.length;
        const shell = (command: string) => ({ functionCall: { name: "run_shell_command", args: { command } } });
        if (done === 0) return shell(`touch ${allowed}`);
        if (done === 1) return shell(`touch ${denied}`);
        const ask = turn.tools.find((name) => name.endsWith("ask_person"));
        if (done === 2 && ask !== undefined) return { functionCall: { name: ask, args: QUESTION } };
        return { text: FINAL };
      });
      const env = agentEnv(home, deadProxy, {
        GEMINI_API_KEY: "not-a-real-key",
        GOOGLE_GEMINI_BASE_URL: model.url,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        GEMINI_TELEMETRY_ENABLED: "false",
      });
      const args = [GEMINI, "-p", "create the markers", "--approval-mode", "yolo", "-m", "gemini-2.5-pro"];
      const { child, done } = startAgent(process.execPath, args, work, env, 90_000);
      // Whatever fails below shows what the agent printed and what the model was sent.
      const shown = async (error: unknown): Promise<never> => {
        child.kill("SIGKILL");
        const { output } = await done;
        throw new Error(`${(error as Error).message}\nturns: ${JSON.stringify(model?.turns)}\n${output}`);
      };
      const pendingOther = (seen: string[]) =>
        eventually(
          "the gate's question",
          async () => {
            const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=gemini");
            return body.find((question) => !seen.includes(question.id));
          },
          60_000,
        ).catch(shown);

      const first = await pendingOther([]);
      expect(first).toMatchObject({ kind: "permission", project: "project" });
      expect(first.prompt).toBe(`Gemini CLI wants to run a shell command in project:\n\ntouch ${allowed}`);
      await answer(first.id, "allow");
      const second = await pendingOther([first.id]);
      expect(second.prompt).toContain(`touch ${denied}`);
      await answer(second.id, "deny");

      const asked = await eventually(
        "ask_person's question",
        async () => {
          const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true");
          return body.find((question) => question.prompt === QUESTION.prompt);
        },
        60_000,
      ).catch(shown);
      expect(asked).toMatchObject({ agent: "gemini", project: "project", kind: "single_choice" });
      const current = (await cli.api<Json>("GET", `/v1/interactions/${asked.id}`)).body;
      const answered = await cli.api("POST", `/v1/interactions/${asked.id}/respond`, {
        response_id: randomUUID(),
        request_digest: current.request_digest,
        nonce: current.nonce,
        choice_id: "yes",
        source: "phone",
      });
      expect(answered.status).toBe(200);

      const result = await done;
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain(FINAL);
      expect(existsSync(allowed)).toBe(true);
      expect(existsSync(denied)).toBe(false);
      const responses = JSON.stringify(model.turns.at(-1)?.responses ?? []);
      expect(responses).toContain("Denied in Notify (answered from cli)");
      expect(responses).toContain("yes");

      const completed = await eventually("Gemini's completion notification", async () => {
        const { body } = await cli.api<Json[]>("GET", "/v1/notifications?agent=gemini&type=completed");
        return body[0];
      });
      expect(completed).toMatchObject({ title: "Gemini CLI finished in project", message: FINAL, status: "active" });
    },
    120_000,
  );
});
