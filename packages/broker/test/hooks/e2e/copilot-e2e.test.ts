import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Json, type ModelMock, type Reply, startModelMock, type Turn } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, NO_FOLLOW_UPS, runCli, startCliBroker } from "../../cli/cli-harness.js";
import { agentEnv, agentSandbox, eventually, startAgent } from "../../real-agents.js";

/**
 * Issue 38, "Must show", GitHub Copilot CLI: the real CLI from npm (@github/copilot 1.0.102, a root devDependency)
 * in a temporary HOME, headless (`-p`) against the loopback mock model through its own custom-provider variables
 * (`COPILOT_PROVIDER_BASE_URL`, a dummy key: no GitHub sign-in). After `notify hooks install copilot` and `notify mcp
 * install copilot`, one run asks for two shell commands and then calls ask_person: the first permission answered
 * allow runs its command, the second answered deny does not (the model reads Notify's words), ask_person is
 * answered on /v1, and the finished turn becomes a `completed` notification. Nothing reaches a vendor: every proxy
 * variable names a dead loopback port.
 */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const COPILOT = join(ROOT, "node_modules/@github/copilot-linux-x64/copilot");
const run = existsSync(COPILOT) || process.env.CI === "true" ? it : it.skip;
if (run === it.skip) console.warn("\n*** SKIPPING the Copilot CLI e2e: missing @github/copilot (linux-x64) ***\n");

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
let mock: ModelMock;

/** Turn by turn: the allowed command, the denied command, ask_person, then the final text. */
const script =
  (allowed: string, denied: string) =>
  (turn: Turn): Reply => {
    const done = turn.toolResults.length;
    if (done === 0) return { tool: "bash", input: { command: allowed, description: "Create the first marker" } };
    if (done === 1) return { tool: "bash", input: { command: denied, description: "Create the second marker" } };
    const ask = turn.tools.find((tool) => tool.name.endsWith("ask_person"));
    if (done === 2 && ask !== undefined) return { tool: ask.name, input: QUESTION };
    return { text: FINAL };
  };

beforeAll(async () => {
  if (run !== it) return;
  cli = await startCliBroker(NO_FOLLOW_UPS);
  ({ home, work, deadProxy } = await agentSandbox("notify-copilot-e2e-", "project", { git: true }));
  mkdirSync(join(home, ".copilot"));
  for (const what of ["hooks", "mcp"]) {
    const installed = await runCli([what, "install", "copilot", ...cli.target], cliEnv({ HOME: home }));
    expect(installed.code, installed.stderr).toBe(0);
  }
});

afterAll(async () => {
  if (run !== it) return;
  await mock?.close();
  await cli?.close();
});

const pending = (agent: string) =>
  eventually(
    `a pending ${agent} question`,
    async () => {
      const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${agent}`);
      return body[0];
    },
    90_000,
  );

async function answer(id: string, choice: string): Promise<void> {
  const result = await runCli(["answer", id, "--choice", choice, ...cli.target]);
  expect(result.code, result.stderr).toBe(0);
}

describe("GitHub Copilot CLI 1.0.102 with Notify's hooks and MCP server", () => {
  run(
    "allow runs the command, deny stops it with Notify's words, ask_person is answered, the stop is completed",
    async () => {
      const allowed = join(work, "allowed.marker");
      const denied = join(work, "denied.marker");
      mock = await startModelMock({ reply: script(`touch ${allowed}`, `touch ${denied}`), models: [] });
      const env = agentEnv(home, deadProxy, {
        COPILOT_PROVIDER_BASE_URL: mock.url,
        COPILOT_PROVIDER_API_KEY: "not-a-real-key",
        COPILOT_MODEL: "gpt-4.1",
        COPILOT_AUTO_UPDATE: "false",
      });
      // Notify's own MCP tools need no permission; the shell asks through the permissionRequest hook.
      const args = [
        "-p",
        "create the markers",
        "-s",
        "--no-auto-update",
        "--disable-builtin-mcps",
        "--allow-tool=notify",
      ];
      const { child, done } = startAgent(COPILOT, args, work, env, 150_000);
      // Whatever fails below shows what the agent printed and what the model was asked.
      const shown = async (error: unknown): Promise<never> => {
        child.kill("SIGKILL");
        const { output } = await done;
        const turns = mock.turns().map((turn) => ({
          tools: turn.tools.map((tool) => tool.name).filter((name) => !/^[a-z_]+$/.test(name) || name.includes("ask")),
          results: turn.toolResults.map((toolResult) => toolResult.text),
        }));
        const open = (await cli.api<Json[]>("GET", "/v1/interactions?pending=true")).body;
        const asked = open.map(({ agent, kind, prompt }) => ({ agent, kind, prompt }));
        throw new Error(
          `${(error as Error).message}\nturns: ${JSON.stringify(turns)}\nopen: ${JSON.stringify(asked)}\n${output}`,
        );
      };

      const first = await pending("copilot").catch(shown);
      expect(first).toMatchObject({
        kind: "permission",
        project: "project",
        prompt: expect.stringContaining(`touch ${allowed}`),
      });
      expect(first.prompt).toMatch(/^GitHub Copilot CLI wants to run/);
      await answer(first.id, "allow");

      const second = await eventually("the second permission question", async () => {
        const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=copilot");
        return body.find((question) => question.id !== first.id);
      }).catch(shown);
      expect(second.prompt).toContain(`touch ${denied}`);
      await answer(second.id, "deny");

      const asked = await eventually(
        "ask_person's question",
        async () => {
          const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true");
          return body.find((question) => question.prompt === QUESTION.prompt);
        },
        30_000,
      ).catch(shown);
      expect(asked).toMatchObject({ agent: "copilot", project: "project", kind: "single_choice" });
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
      const results =
        mock
          .turns()
          .at(-1)
          ?.toolResults.map((toolResult) => toolResult.text) ?? [];
      expect(results[1]).toContain("Denied in Notify (answered from cli)");
      // Copilot hands the model the tool's text content, not its structured result.
      expect(results[2]).toContain("The person chose");
      expect(results[2]).toContain("(choice_id: yes)");

      const completed = await eventually("Copilot's completion notification", async () => {
        const { body } = await cli.api<Json[]>("GET", "/v1/notifications?agent=copilot&type=completed");
        return body[0];
      });
      expect(completed).toMatchObject({ title: "GitHub Copilot CLI finished in project", status: "active" });
      // The hooks file Notify wrote is the one Copilot ran.
      const hooks = JSON.parse(readFileSync(join(home, ".copilot", "hooks", "notify.json"), "utf8"));
      expect(hooks.version).toBe(1);
      expect(mock.hits.every((hit) => hit.path.startsWith("/chat/completions"))).toBe(true);
    },
    180_000,
  );
});
