import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Json, type ModelMock, type Reply, startModelMock, type Turn } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, NO_FOLLOW_UPS, runCli, startCliBroker } from "../../cli/cli-harness.js";
import {
  agentEnv,
  agentSandbox,
  agentTest,
  CLAUDE,
  CODEX,
  eventually,
  exited,
  killTmuxServers,
  mockModelEnv,
  startInTmux,
  type TmuxAgent,
  writeClaudeState,
  writeCodexConfig,
} from "../../real-agents.js";

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
const run = agentTest("real-agent e2e", { claude: true, codex: true, tmux: true });
const skipped = run !== it;

const FINAL_TEXT = "Done: the command ran or was refused.";

/**
 * The model: its first turn asks for `command` through the agent's shell tool; once the conversation holds the
 * tool's result (run or refused) it answers with text and ends the turn.
 */
const asksFor =
  (command: string) =>
  (turn: Turn): Reply => {
    if (turn.toolResults.length > 0) return { text: FINAL_TEXT };
    const names = turn.tools.map((tool) => tool.name);
    if (turn.wire === "messages") {
      return names.includes("Bash") && turn.stream
        ? { tool: "Bash", input: { command, description: "Create the marker file" } }
        : { text: "OK" };
    }
    // Codex 0.169 offers `exec_command` (unified exec); an older tool set has `shell`. Asking to leave the sandbox
    // is what makes Codex ask for approval (approval_policy on-request).
    const justification = "Create the marker file";
    return names.includes("exec_command")
      ? { tool: "exec_command", input: { cmd: command, sandbox_permissions: "require_escalated", justification } }
      : {
          tool: "shell",
          input: { command: ["bash", "-lc", command], with_escalated_permissions: true, justification },
        };
  };

const startMock = (command: string) => startModelMock({ reply: asksFor(command), models: [] });

let cli: CliBroker;
let mock: ModelMock;
let home: string;
let work: string;
let deadProxy: string;

beforeAll(async () => {
  if (skipped) return;
  cli = await startCliBroker(NO_FOLLOW_UPS);
  ({ home, work, deadProxy } = await agentSandbox("notify-agents-e2e-", "project"));
  mock = await startMock("true");
  for (const agent of ["claude-code", "codex"]) {
    const installed = await runCli(["hooks", "install", agent, ...cli.target], cliEnv({ HOME: home }));
    expect(installed.code).toBe(0);
  }
  // Claude Code 2.1.330 gets "type": "http" hooks (issue 33, item 1): every Claude Code test below runs through them,
  // the hook token filled in from the user settings' env; Codex keeps the notify hook command.
  const settings = JSON.parse(readFileSync(join(home, ".claude", "settings.json"), "utf8"));
  expect(settings.hooks.PermissionRequest[0].hooks[0].type).toBe("http");
  expect(settings.env.NOTIFY_HOOK_TOKEN).toMatch(/^nh_/);
});

afterAll(async () => {
  if (skipped) return;
  killTmuxServers();
  await mock?.close();
  await cli?.close();
});

const env = () => agentEnv(home, deadProxy, mockModelEnv(mock));

const pendingQuestion = (agent: string) =>
  eventually(
    `a pending ${agent} question`,
    async () => {
      const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${agent}`);
      return body[0];
    },
    60_000,
  );

const until = <T>(what: string, probe: () => Promise<T | undefined>) => eventually(what, probe, 60_000);

async function answer(id: string, choice: string): Promise<void> {
  const result = await runCli(["answer", id, "--choice", choice, ...cli.target]);
  expect(result.code).toBe(0);
}

/** Codex's interactive UI asked to create the marker file, against the current mock (approvals on request). */
function startCodex(session: string): TmuxAgent {
  writeCodexConfig(home, work, mock.url, "on-request");
  // --dangerously-bypass-hook-trust: Codex runs a new hook only after a person reviews it in /hooks.
  return startInTmux(session, work, env(), [
    process.execPath,
    CODEX,
    "--dangerously-bypass-hook-trust",
    "create the marker file",
  ]);
}

describe("real agents from npm with Notify's hooks installed", () => {
  run(
    "Claude Code 2.1.330 (-p): the question is listed; allow runs the command, deny does not; completed appears",
    async () => {
      for (const choice of ["allow", "deny"] as const) {
        const marker = join(work, `claude-${choice}.marker`);
        await mock.close();
        mock = await startMock(`touch ${marker}`);
        const claude = spawn(CLAUDE, ["-p", "create the marker file"], {
          cwd: work,
          env: env(),
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
      expect(mock.hits.some((hit) => hit.method === "POST" && hit.url.startsWith("/v1/messages"))).toBe(true);
    },
    180_000,
  );

  run(
    "Codex CLI 0.169.0 (interactive, in tmux): allow runs the command, deny does not; completed appears",
    async () => {
      for (const choice of ["allow", "deny"] as const) {
        const marker = join(work, `codex-${choice}.marker`);
        await mock.close();
        mock = await startMock(`touch ${marker}`);
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
      expect(mock.hits.some((hit) => hit.method === "POST" && hit.url.startsWith("/v1/responses"))).toBe(true);
    },
    180_000,
  );

  run(
    "Codex: a cancelled question brings back Codex's own prompt; a hook killed on Esc is withdrawn at the next prompt",
    async () => {
      const marker = join(work, "codex-fallback.marker");
      await mock.close();
      mock = await startMock(`touch ${marker}`);
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
      mock = await startMock(`touch ${marker}`);
      // First-run screens answered as a person who used Claude Code before would have them, and the classic
      // permission mode (the default "auto" mode checks actions on Anthropic's servers, which are not reachable).
      writeClaudeState(home, work);
      const settingsFile = join(home, ".claude", "settings.json");
      const settings: Json = JSON.parse(readFileSync(settingsFile, "utf8"));
      writeFileSync(settingsFile, JSON.stringify({ ...settings, permissions: { defaultMode: "default" } }, null, 2));
      const claude = startInTmux("claude-terminal", work, env(), [CLAUDE, "create the marker file"]);
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
