import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, closedPort, runCli, startCliBroker } from "../../cli/cli-harness.js";
import { type ModelMock, startModelMock } from "./model-mock.js";

/**
 * Issue 12, "Must show": the real agents from npm (pinned devDependencies of @notify/broker: Claude Code 2.1.330,
 * Codex CLI 0.169.0) in a temporary HOME, pointed at a loopback model that asks for a shell command. After
 * `notify hooks install`, the permission question appears in GET /v1/interactions; allow runs the command, deny
 * does not; the completion notification appears. Claude Code raises its PermissionRequest hook in headless `-p`
 * mode; Codex's `exec` never asks (approval "never"), so its interactive UI runs in tmux.
 *
 * Nothing may reach a vendor: the base URLs point at the mock, telemetry and update checks are off, and every
 * proxy variable names a dead loopback port, so any other connection fails at once.
 */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const CLAUDE = join(ROOT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const CODEX = join(ROOT, "node_modules/@openai/codex/bin/codex.js");
const TMUX = spawnSync("tmux", ["-V"]).status === 0;

const missing = [
  existsSync(CLAUDE) ? undefined : "@anthropic-ai/claude-code (linux-x64 binary)",
  existsSync(CODEX) ? undefined : "@openai/codex",
  TMUX ? undefined : "tmux (apt-get install tmux)",
].filter((name) => name !== undefined);
if (missing.length > 0) {
  if (process.env.CI === "true") throw new Error(`agent e2e: missing ${missing.join(", ")}`);
  console.warn(`\n*** SKIPPING the real-agent e2e: missing ${missing.join(", ")} ***\n`);
}

const CLAUDE_TEST_KEY = "sk-ant-test-not-a-real-key-0123456789";

let cli: CliBroker;
let mock: ModelMock;
let root: string;
let home: string;
let work: string;
let deadProxy: string;

beforeAll(async () => {
  if (missing.length > 0) return;
  cli = await startCliBroker();
  root = mkdtempSync(join(tmpdir(), "notify-agents-e2e-"));
  home = join(root, "home");
  work = join(root, "project");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(home, ".codex"), { recursive: true });
  mkdirSync(work);
  mock = await startModelMock("true");
  deadProxy = `http://127.0.0.1:${await closedPort()}`;
  for (const agent of ["claude-code", "codex"]) {
    const installed = await runCli(["hooks", "install", agent, ...cli.target], cliEnv({ HOME: home }));
    expect(installed.code).toBe(0);
  }
});

afterAll(async () => {
  if (missing.length > 0) return;
  for (const name of sockets) spawnSync("tmux", ["-L", name, "kill-server"]);
  await mock?.close();
  await cli?.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * One tmux server per session: a server whose last session was just killed is still exiting, and a new session
 * on its socket then fails with "server exited unexpectedly".
 */
const socket = (session: string): string => `notify-e2e-${process.pid}-${session}`;
const sockets = new Set<string>();

/** The agents' environment: only loopback is reachable, nothing phones home. */
function agentEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "LANG", "TERM", "USER", "SHELL"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    ANTHROPIC_BASE_URL: mock.url,
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

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const pendingQuestion = (agent: string) =>
  until(`a pending ${agent} question`, async () => {
    const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${agent}`);
    return body[0];
  });

async function answer(id: string, choice: string): Promise<void> {
  const result = await runCli(["answer", id, "--choice", choice, ...cli.target]);
  expect(result.code).toBe(0);
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

/** Codex's config.toml: the loopback provider, approvals on request, this project trusted, no analytics. */
function writeCodexConfig(mockUrl: string): void {
  const lines = [
    'model = "mock-model"',
    'model_provider = "mock"',
    // Asks before a command leaves the sandbox: the model's escalation request raises PermissionRequest.
    'approval_policy = "on-request"',
    'sandbox_mode = "read-only"',
    "check_for_update_on_startup = false",
    "",
    "[model_providers.mock]",
    'name = "Mock"',
    `base_url = "${mockUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[feedback]",
    "enabled = false",
    "",
    `[projects."${work}"]`,
    'trust_level = "trusted"',
  ];
  writeFileSync(join(home, ".codex", "config.toml"), `${lines.join("\n")}\n`);
}

/** Codex's interactive UI in a tmux session of our own socket, asked to create the marker file. */
interface TmuxAgent {
  session: string;
  screen: () => string;
  keys: (...keys: string[]) => void;
  kill: () => void;
}

/** An agent's interactive UI in a tmux session of its own server, with the agents' environment only. */
function startInTmux(session: string, command: string[]): TmuxAgent {
  sockets.add(socket(session));
  const env = Object.entries(agentEnv()).map(([name, value]) => `${name}=${value}`);
  const started = spawnSync("tmux", [
    "-L",
    socket(session),
    "new-session",
    "-d",
    "-s",
    session,
    "-x",
    "200",
    "-y",
    "50",
    "-c",
    work,
    "env",
    "-i",
    ...env,
    "TERM=xterm-256color",
    ...command,
  ]);
  expect(started.status, started.stderr.toString()).toBe(0);
  return {
    session,
    screen: () => spawnSync("tmux", ["-L", socket(session), "capture-pane", "-p", "-t", session]).stdout.toString(),
    keys: (...keys) => {
      spawnSync("tmux", ["-L", socket(session), "send-keys", "-t", session, ...keys]);
    },
    kill: () => {
      spawnSync("tmux", ["-L", socket(session), "kill-server"]);
    },
  };
}

/** Codex's interactive UI asked to create the marker file. */
function startCodex(session: string): TmuxAgent {
  // --dangerously-bypass-hook-trust: Codex runs a new hook only after a person reviews it in /hooks.
  return startInTmux(session, [process.execPath, CODEX, "--dangerously-bypass-hook-trust", "create the marker file"]);
}

const run = missing.length > 0 ? it.skip : it;

describe("real agents from npm with Notify's hooks installed", () => {
  run(
    "Claude Code 2.1.330 (-p): the question is listed; allow runs the command, deny does not; completed appears",
    async () => {
      for (const choice of ["allow", "deny"] as const) {
        const marker = join(work, `claude-${choice}.marker`);
        await mock.close();
        mock = await startModelMock(`touch ${marker}`);
        const claude = spawn(CLAUDE, ["-p", "create the marker file"], {
          cwd: work,
          env: agentEnv(),
          stdio: ["ignore", "pipe", "pipe"],
        });
        const done = exited(claude);
        const question = await pendingQuestion("claude-code");
        expect(question).toMatchObject({
          kind: "permission",
          project: "project",
          prompt: `Claude Code wants to run a shell command (Create the marker file) in project:\n\ntouch ${marker}`,
        });
        await answer(question.id, choice);
        const result = await done;
        expect(result.code, result.output).toBe(0);
        expect(existsSync(marker)).toBe(choice === "allow");
        expect((await cli.api<Json>("GET", `/v1/interactions/${question.id}`)).body.response.choice_id).toBe(choice);
      }
      const { body } = await cli.api<Json[]>("GET", "/v1/notifications?agent=claude-code&type=completed");
      expect(body[0]).toMatchObject({
        title: "Claude Code finished in project",
        message: "Done: the command ran or was refused.",
        status: "active",
      });
      // Every request the agent made went to the mock (anything else met the dead proxy).
      expect(mock.requests.some((request) => request.startsWith("POST /v1/messages"))).toBe(true);
    },
    180_000,
  );

  run(
    "Codex CLI 0.169.0 (interactive, in tmux): allow runs the command, deny does not; completed appears",
    async () => {
      for (const choice of ["allow", "deny"] as const) {
        const marker = join(work, `codex-${choice}.marker`);
        await mock.close();
        mock = await startModelMock(`touch ${marker}`);
        writeCodexConfig(mock.url);
        const codex = startCodex(`codex-${choice}`);
        const screen = codex.screen;
        try {
          const question = await pendingQuestion("codex");
          expect(question).toMatchObject({
            kind: "permission",
            prompt: `Codex CLI wants to run a shell command (Create the marker file) in project:\n\ntouch ${marker}`,
          });
          await answer(question.id, choice);
          const completed = await until("Codex's completion notification", async () => {
            const { body } = await cli.api<Json[]>("GET", "/v1/notifications?agent=codex&type=completed");
            return body.find((n) => n.metadata?.arc?.session_id === question.session_id);
          });
          expect(completed).toMatchObject({ title: "Codex CLI finished in project", status: "active" });
          expect(existsSync(marker), screen()).toBe(choice === "allow");
          if (choice === "deny") expect(screen()).toContain("Denied in Notify (answered from cli)");
        } finally {
          codex.kill();
        }
      }
      expect(mock.requests.some((request) => request.startsWith("POST /v1/responses"))).toBe(true);
    },
    180_000,
  );

  run(
    "Codex: a cancelled question brings back Codex's own prompt; a hook killed on Esc is withdrawn at the next prompt",
    async () => {
      const marker = join(work, "codex-fallback.marker");
      await mock.close();
      mock = await startModelMock(`touch ${marker}`);
      writeCodexConfig(mock.url);
      const first = startCodex("codex-cancel");
      try {
        const question = await pendingQuestion("codex");
        expect((await runCli(["cancel", question.id, ...cli.target])).code).toBe(0);
        // Nothing decided: Codex shows its own approval prompt.
        await until("Codex's own approval prompt", async () =>
          first.screen().includes("Would you like to run the following command?") ? true : undefined,
        );
        expect(existsSync(marker)).toBe(false);
      } finally {
        first.kill();
      }

      const second = startCodex("codex-escape");
      try {
        const question = await pendingQuestion("codex");
        // Esc interrupts the turn and Codex kills the hook without a signal it can catch: the question stays open...
        second.keys("Escape");
        await until("the interrupted turn", async () =>
          second.screen().includes("Conversation interrupted") ? true : undefined,
        );
        expect((await cli.api<Json>("GET", `/v1/interactions/${question.id}`)).body.status).toBe("pending");
        // ...until the next prompt of the session (UserPromptSubmit) withdraws it.
        second.keys("-l", "say hello");
        // Enter only once the text is on screen: sent with it, Codex takes it as part of a paste.
        await until("the typed prompt", async () => (second.screen().includes("› say hello") ? true : undefined));
        second.keys("C-m");
        await until(`the question withdrawn; screen:\n${second.screen()}`, async () => {
          const { body } = await cli.api<Json>("GET", `/v1/interactions/${question.id}`);
          return body.status === "cancelled" ? body : undefined;
        });
      } finally {
        second.kill();
      }
    },
    180_000,
  );

  run(
    "Claude Code interactive (tmux): the person answers in Claude's own dialog and the question disappears",
    async () => {
      const marker = join(work, "claude-terminal.marker");
      await mock.close();
      mock = await startModelMock(`touch ${marker}`);
      // First-run screens answered as a person who used Claude Code before would have them: onboarding done, this
      // API key approved (Claude Code keeps its last 20 characters), the project trusted, and the classic
      // permission mode (the default "auto" mode checks actions on Anthropic's servers, which are not reachable).
      writeFileSync(
        join(home, ".claude.json"),
        JSON.stringify({
          hasCompletedOnboarding: true,
          theme: "dark",
          customApiKeyResponses: { approved: [CLAUDE_TEST_KEY.slice(-20)], rejected: [] },
          projects: { [work]: { hasTrustDialogAccepted: true, allowedTools: [] } },
        }),
      );
      const settingsFile = join(home, ".claude", "settings.json");
      const settings: Json = JSON.parse(readFileSync(settingsFile, "utf8"));
      writeFileSync(settingsFile, JSON.stringify({ ...settings, permissions: { defaultMode: "default" } }, null, 2));
      const claude = startInTmux("claude-terminal", [CLAUDE, "create the marker file"]);
      try {
        const question = await pendingQuestion("claude-code");
        // Claude Code shows its own dialog while the hook waits: the person answers there.
        await until("Claude Code's own dialog", async () =>
          claude.screen().includes("Do you want to proceed?") ? true : undefined,
        );
        claude.keys("1");
        await until(`the question withdrawn; screen:\n${claude.screen()}`, async () => {
          const { body } = await cli.api<Json>("GET", `/v1/interactions/${question.id}`);
          return body.status === "cancelled" ? body : undefined;
        });
        await until("the command run", async () => (existsSync(marker) ? true : undefined));
      } finally {
        claude.kill();
      }
    },
    180_000,
  );
});
