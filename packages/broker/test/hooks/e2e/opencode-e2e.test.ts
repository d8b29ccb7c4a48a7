import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Json, type ModelMock, type Reply, startModelMock, type Turn } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, closedPort, runCli, startCliBroker } from "../../cli/cli-harness.js";
import { agentEnv, agentSandbox, eventually, exited, startAgent } from "../../real-agents.js";

/**
 * Issue 38, "Must show", OpenCode: the real CLI from npm (opencode-ai 1.18.33, a root devDependency) in a temporary
 * HOME against the loopback mock model, through an OpenAI-compatible provider in its config (`npm:
 * "@ai-sdk/openai-compatible"`, which the binary bundles) with a dummy key. Offline it needs two things a person who
 * ran OpenCode online once already has (docs/hooks.md, "OpenCode"): with a plugin in ~/.config/opencode it first
 * installs `@opencode-ai/plugin` there with npm and waits for that before loading any plugin (offline: a minute and
 * more of retries), unless that folder's package.json, package-lock.json and node_modules already name it; and
 * `OPENCODE_DISABLE_MODELS_FETCH` keeps it from fetching models.dev (offline it fails fast, but pointlessly).
 *
 * One `opencode serve` (Notify's plugin runs in it) and one `opencode run --attach` against it: after `notify hooks
 * install opencode` and `notify mcp install opencode`, with the person's presence unknown (no page), the run asks for
 * two shell commands and calls ask_person: the gate's question answered allow runs the first, deny stops the second
 * (the model reads Notify's reason), `notify answer` answers ask_person, and session.idle becomes the `completed`
 * item. The served session lives on, so that item is a follow-up: `notify answer --text` is the session's next
 * prompt (the plugin's client), whose own idle, at `followUp.maxInARow` 1, is a plain `completed` notification.
 */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const OPENCODE = join(ROOT, "node_modules/opencode-linux-x64/bin/opencode");
const run = existsSync(OPENCODE) || process.env.CI === "true" ? it : it.skip;
if (run === it.skip) console.warn("\n*** SKIPPING the OpenCode e2e: missing opencode-ai (opencode-linux-x64) ***\n");

const FINAL = "Both commands handled and the person answered.";
const REPLY = "Now write the changelog.";
const FOLLOWED = "The changelog is written.";
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
let server: ChildProcess | undefined;

/** The text of every user message of a Chat Completions request. */
const userTexts = (turn: Turn): string[] =>
  ((turn.body as Json).messages ?? [])
    .filter((message: Json) => message.role === "user")
    .map((message: Json) =>
      typeof message.content === "string"
        ? message.content
        : (message.content ?? []).map((part: Json) => part.text ?? "").join(""),
    );

/** Turn by turn: the allowed command, the denied command, ask_person, the final text; then the follow-up's answer. */
const script =
  (allowed: string, denied: string) =>
  (turn: Turn): Reply => {
    // OpenCode's title request (its small model: no tools offered) gets a title.
    if (turn.tools.length === 0) return { text: "Markers" };
    if (userTexts(turn).some((text) => text.includes(REPLY))) return { text: FOLLOWED };
    const done = turn.toolResults.length;
    if (done === 0) return { tool: "bash", input: { command: allowed, description: "Create the first marker" } };
    if (done === 1) return { tool: "bash", input: { command: denied, description: "Create the second marker" } };
    const ask = turn.tools.find((tool) => tool.name.endsWith("ask_person"));
    if (done === 2 && ask !== undefined) return { tool: ask.name, input: QUESTION };
    return { text: FINAL };
  };

beforeAll(async () => {
  if (run !== it) return;
  cli = await startCliBroker({ followUp: { waitSeconds: 300, maxInARow: 1 } });
  ({ home, work, deadProxy } = await agentSandbox("notify-opencode-e2e-", "project", { git: true }));
  mock = await startModelMock({
    reply: script(`touch ${join(work, "allowed.marker")}`, `touch ${join(work, "denied.marker")}`),
    models: [],
  });
  const config = join(home, ".config", "opencode");
  mkdirSync(join(config, "node_modules"), { recursive: true });
  // What OpenCode left in its config folder when it last ran online: the plugin package it installs is named in
  // package.json and the lockfile, so it installs nothing (docs/hooks.md, "OpenCode").
  const plugin = { "@opencode-ai/plugin": "1.18.33" };
  writeFileSync(join(config, "package.json"), JSON.stringify({ dependencies: plugin }));
  writeFileSync(join(config, "package-lock.json"), JSON.stringify({ packages: { "": { dependencies: plugin } } }));
  writeFileSync(
    join(config, "opencode.json"),
    `${JSON.stringify(
      {
        $schema: "https://opencode.ai/config.json",
        provider: {
          mock: {
            npm: "@ai-sdk/openai-compatible",
            name: "Mock",
            options: { baseURL: mock.url, apiKey: "not-a-real-key" },
            models: { "mock-model": { name: "Mock model" } },
          },
        },
        model: "mock/mock-model",
        small_model: "mock/mock-model",
        autoupdate: false,
        share: "disabled",
      },
      null,
      2,
    )}\n`,
  );
  for (const what of ["hooks", "mcp"]) {
    const installed = await runCli([what, "install", "opencode", ...cli.target], cliEnv({ HOME: home }));
    expect(installed.code, installed.stderr).toBe(0);
  }
});

afterAll(async () => {
  if (run !== it) return;
  if (server !== undefined && server.exitCode === null) {
    const ended = exited(server);
    server.kill("SIGTERM");
    await ended;
  }
  await mock?.close();
  await cli?.close();
});

const opencodeEnv = () =>
  agentEnv(home, deadProxy, {
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  });

/** `opencode serve` on a free loopback port; resolves with its URL once it listens. */
async function serve(): Promise<string> {
  const port = await closedPort();
  const args = ["serve", "--hostname", "127.0.0.1", "--port", String(port), "--print-logs"];
  const child = spawn(OPENCODE, args, { cwd: work, env: opencodeEnv(), stdio: ["ignore", "pipe", "pipe"] });
  server = child;
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    "opencode serve listening",
    async () => {
      if (child.exitCode !== null) throw new Error(`opencode serve ended ${child.exitCode}:\n${output}`);
      return output.includes(url) ? true : undefined;
    },
    90_000,
  );
  return url;
}

async function answer(id: string, ...how: string[]): Promise<void> {
  const result = await runCli(["answer", id, ...how, ...cli.target]);
  expect(result.code, result.stderr).toBe(0);
}

describe("OpenCode 1.18.33 with Notify's plugin and MCP server", () => {
  run(
    "away: the gate asks; allow runs, deny stops with Notify's reason; ask_person; completed; a follow-up goes on",
    async () => {
      const allowed = join(work, "allowed.marker");
      const denied = join(work, "denied.marker");
      const url = await serve();
      const args = ["run", "--attach", url, "--dir", work, "create the markers"];
      const { child, done } = startAgent(OPENCODE, args, work, opencodeEnv(), 240_000);
      // Whatever fails below shows what the agent printed, what the model was sent and what is open.
      const shown = async (error: unknown): Promise<never> => {
        child.kill("SIGKILL");
        const { output } = await done;
        const turns = mock.turns().map((turn) => ({
          tools: turn.tools.map((tool) => tool.name).filter((name) => name.includes("ask") || name === "bash"),
          results: turn.toolResults.map((toolResult) => toolResult.text),
          users: userTexts(turn),
        }));
        const open = (await cli.api<Json[]>("GET", "/v1/interactions?pending=true")).body;
        const asked = open.map(({ agent, kind, prompt }) => ({ agent, kind, prompt }));
        throw new Error(
          `${(error as Error).message}\nturns: ${JSON.stringify(turns)}\nopen: ${JSON.stringify(asked)}\n${output}`,
        );
      };
      const pendingOther = (what: string, seen: string[]) =>
        eventually(
          what,
          async () => {
            const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=opencode");
            return body.find((question) => !seen.includes(question.id));
          },
          120_000,
        ).catch(shown);

      const first = await pendingOther("the gate's first question", []);
      expect(first).toMatchObject({ kind: "permission", project: "project" });
      expect(first.prompt).toMatch(/^OpenCode wants to run/);
      expect(first.prompt).toContain(`touch ${allowed}`);
      await answer(first.id, "--choice", "allow");
      const second = await pendingOther("the gate's second question", [first.id]);
      expect(second.prompt).toContain(`touch ${denied}`);
      await answer(second.id, "--choice", "deny");

      const asked = await pendingOther("ask_person's question", [first.id, second.id]);
      expect(asked).toMatchObject({ prompt: QUESTION.prompt, project: "project", kind: "single_choice" });
      await answer(asked.id, "--choice", "yes");

      // `run --attach` exits once the prompt returns, without waiting for the last events it prints: the final text
      // is checked below, as the follow-up's prompt.
      const result = await done;
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain("Denied in Notify (answered from cli)");
      expect(existsSync(allowed)).toBe(true);
      expect(existsSync(denied)).toBe(false);
      const results = mock
        .turns()
        .filter((turn) => turn.tools.length > 0)
        .at(-1)
        ?.toolResults.map((toolResult) => toolResult.text);
      expect(results?.[1]).toContain("Denied in Notify (answered from cli)");
      expect(results?.[2]).toContain("yes");

      // The served session lives on: its idle is a follow-up carrying the assistant's last text.
      const followUp = await pendingOther("the follow-up", [first.id, second.id, asked.id]);
      expect(followUp).toMatchObject({ kind: "text", prompt: FINAL, project: "project" });
      await answer(followUp.id, "--text", REPLY);
      await eventually("the model request carrying the reply", async () =>
        mock.turns().find((turn) => turn.tools.length > 0 && userTexts(turn).some((text) => text.includes(REPLY))),
      ).catch(shown);
      // The continued turn's idle is the chain's first reply at followUp.maxInARow 1: completed, nothing asked.
      const completed = await eventually("OpenCode's completion after the follow-up", async () => {
        const { body } = await cli.api<Json[]>("GET", "/v1/notifications?agent=opencode&type=completed");
        return body.find((notification) => notification.message === FOLLOWED);
      }).catch(shown);
      expect(completed).toMatchObject({ title: "OpenCode finished in project", status: "active" });
      const open = (await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=opencode")).body;
      expect(open).toEqual([]);
      expect(mock.hits.every((hit) => hit.path.startsWith("/chat/completions"))).toBe(true);
    },
    300_000,
  );
});
