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
  FINAL_TEXT,
  killTmuxServers,
  mockModelEnv,
  startAgent,
  startInTmux,
  writeCodexConfig,
} from "../../real-agents.js";
import { startPatchModel } from "./patch-model.js";

/**
 * Issue 36, "Must show" (the agents' part): the real Claude Code 2.1.330 (`-p`, the "type": "http" hooks `notify
 * hooks install` writes) and Codex 0.169.0 (its interactive UI in tmux, approvals on request: `codex exec` runs with
 * approval "never" whatever config.toml says, so it never asks) against loopback models. Each question's context
 * (GET /ui/api/items/:id/context) is the diff of the change against the file on disk, and each decision does what it
 * says: "Always allow (this session)" lets the same command run again without a question, "Deny with a reason" puts
 * the reason in the agent's next model request, "Edit the command" runs the edited command instead.
 *
 * MultiEdit is left out: Claude Code 2.1.330 has no such tool (a call gets "No such tool available: MultiEdit" and
 * no hook runs), so there is nothing for it to ask.
 */
const run = agentTest("approvals e2e", { claude: true, codex: true, tmux: true });
const skipped = run !== it;

/** Every wait across processes: a loaded machine meets it. */
const WAIT_MS = 90_000;

let cli: CliBroker;
let mock: ModelMock;
let home: string;
let work: string;
let deadProxy: string;
/** What Claude's model asks for: turn k (k tool results so far) calls `script[k]`, then ends with FINAL_TEXT. */
let script: Reply[] = [];

const scripted = (turn: Turn): Reply => {
  if (turn.wire !== "messages" || !turn.stream) return { text: "OK" };
  return script[turn.toolResults.length] ?? { text: FINAL_TEXT };
};

beforeAll(async () => {
  if (skipped) return;
  cli = await startCliBroker(NO_FOLLOW_UPS);
  ({ home, work, deadProxy } = await agentSandbox("notify-approvals-e2e-", "project"));
  mock = await startModelMock({ reply: scripted, models: [] });
  for (const agent of ["claude-code", "codex"]) {
    const installed = await runCli(["hooks", "install", agent, ...cli.target], cliEnv({ HOME: home }));
    expect(installed.code, installed.stderr).toBe(0);
  }
});

afterAll(async () => {
  if (skipped) return;
  killTmuxServers();
  await mock?.close();
  await cli?.close();
});

const env = () => agentEnv(home, deadProxy, mockModelEnv(mock));

/** Claude Code in `-p`, its model calling `steps` one after another. */
function claude(steps: Reply[]) {
  script = steps;
  return startAgent(CLAUDE, ["-p", "do the thing"], work, env());
}

/** The next pending question of `agent` not in `seen` (which it joins). */
async function nextQuestion(agent: string, seen: Set<string>): Promise<Json> {
  const question = await eventually(
    `a new pending ${agent} question`,
    async () => {
      const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${agent}`);
      return body.find((candidate) => !seen.has(candidate.id));
    },
    WAIT_MS,
  );
  seen.add(question.id);
  return question;
}

/** The words question a decision opened: the pending text question under the first one's key plus `:words`. */
const wordsQuestion = (first: Json): Promise<Json> =>
  eventually(
    `the words question of ${first.id}`,
    async () => {
      const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&agent=${first.agent}`);
      return body.find((question) => question.key === `${first.key}:words`);
    },
    WAIT_MS,
  );

async function contextOf(id: string): Promise<Json> {
  const { status, body } = await cli.api<Json>("GET", `/ui/api/items/${id}/context`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

async function answer(id: string, ...how: ["--choice" | "--text", string]): Promise<void> {
  const result = await runCli(["answer", id, ...how, ...cli.target]);
  expect(result.code, result.stderr).toBe(0);
}

const choiceIds = (question: Json): string[] => (question.choices as Json[]).map((choice) => choice.id);

/** The Claude model's requests since `before` that carry at least `results` tool results. */
const turnsWith = (before: number, results: number) =>
  mock
    .turns()
    .slice(before)
    .filter((turn) => turn.wire === "messages" && turn.toolResults.length >= results);

describe("approvals with context, with the real agents (issue 36)", () => {
  run(
    "Claude Code: an Edit and a Write of a new file ask with their diffs; allow makes each change",
    async () => {
      const edited = join(work, "edit.txt");
      const created = join(work, "new.txt");
      const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
      writeFileSync(edited, `${lines.join("\n")}\n`);
      const started = claude([
        { tool: "Edit", input: { file_path: edited, old_string: "line 10", new_string: "line ten" } },
        { tool: "Write", input: { file_path: created, content: "brand new\nfile\n" } },
      ]);
      const seen = new Set<string>();
      const edit = await nextQuestion("claude-code", seen);
      expect(edit).toMatchObject({ kind: "permission" });
      expect(await contextOf(edit.id)).toMatchObject({
        kind: "diff",
        truncated: false,
        files: [
          {
            path: edited,
            status: "modified",
            added: 1,
            removed: 1,
            diff: "@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n line 12\n line 13",
          },
        ],
      });
      await answer(edit.id, "--choice", "allow");
      const write = await nextQuestion("claude-code", seen);
      expect(await contextOf(write.id)).toMatchObject({
        kind: "diff",
        truncated: false,
        files: [{ path: created, status: "added", added: 2, removed: 0, diff: "@@ -0,0 +1,2 @@\n+brand new\n+file" }],
      });
      await answer(write.id, "--choice", "allow");
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      expect(readFileSync(edited, "utf8")).toBe(`${lines.join("\n").replace("line 10", "line ten")}\n`);
      expect(readFileSync(created, "utf8")).toBe("brand new\nfile\n");
    },
    120_000,
  );

  run(
    "Claude Code: a file changed on disk after the agent read it is flagged; after its own edit it is not",
    async () => {
      const file = join(work, "changed.txt");
      writeFileSync(file, "line 1\nline 2\nline 3\nline 4\nline 5\n");
      const started = claude([
        { tool: "Read", input: { file_path: file } },
        { tool: "Bash", input: { command: "python3 -c 'print(1)'", description: "Check something" } },
        { tool: "Edit", input: { file_path: file, old_string: "line 2", new_string: "line two" } },
        { tool: "Edit", input: { file_path: file, old_string: "line 4", new_string: "line four" } },
      ]);
      const seen = new Set<string>();
      // While the agent waits on its command, the file changes under it (after the Read's result is written).
      const command = await nextQuestion("claude-code", seen);
      expect(await contextOf(command.id)).toMatchObject({ kind: "command", command: "python3 -c 'print(1)'" });
      writeFileSync(file, "line 1\nline 2\nline 3\nline 4\nline 5\nline 6, added elsewhere\n");
      await answer(command.id, "--choice", "allow");
      const stale = await nextQuestion("claude-code", seen);
      const [staleFile] = (await contextOf(stale.id)).files as Json[];
      expect(staleFile).toMatchObject({ path: file, status: "modified", added: 1, removed: 1, changed_on_disk: true });
      expect(staleFile?.diff).toContain("+line two");
      await answer(stale.id, "--choice", "allow");
      // The agent's own edit is its latest read of the file: the next edit is not flagged.
      const fresh = await nextQuestion("claude-code", seen);
      const [freshFile] = (await contextOf(fresh.id)).files as Json[];
      expect(freshFile).toMatchObject({ path: file, status: "modified", added: 1, removed: 1 });
      expect(freshFile?.changed_on_disk).toBeUndefined();
      await answer(fresh.id, "--choice", "allow");
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      expect(readFileSync(file, "utf8")).toBe("line 1\nline two\nline 3\nline four\nline 5\nline 6, added elsewhere\n");
    },
    120_000,
  );

  run(
    "Claude Code: a 2 MiB file's edit comes back cut, in time, and the inbox keeps answering",
    async () => {
      const big = join(work, "big.txt");
      const rows = 34_500;
      const old = "x".repeat(50);
      const next = "y".repeat(50);
      writeFileSync(
        big,
        Array.from({ length: rows }, (_, index) => `${String(index).padStart(9, "0")} ${old}\n`).join(""),
      );
      expect(readFileSync(big).length).toBeGreaterThanOrEqual(2 * 1024 * 1024);
      // The inbox, asked over and over from Claude's start to the answer: its slowest answer is the stall, if any.
      let slowestInboxMs = 0;
      let inboxCalls = 0;
      let polling = true;
      const poll = (async () => {
        while (polling) {
          const at = performance.now();
          const { status } = await cli.api("GET", "/ui/api/inbox");
          expect(status).toBe(200);
          slowestInboxMs = Math.max(slowestInboxMs, performance.now() - at);
          inboxCalls++;
        }
      })();
      const startedAt = performance.now();
      const started = claude([
        { tool: "Edit", input: { file_path: big, old_string: old, new_string: next, replace_all: true } },
      ]);
      try {
        const question = await nextQuestion("claude-code", new Set());
        const askedMs = performance.now() - startedAt;
        const at = performance.now();
        const context = await contextOf(question.id);
        const contextMs = performance.now() - at;
        expect(context).toMatchObject({ kind: "diff", truncated: true });
        const [file] = context.files as Json[];
        expect(file).toMatchObject({ path: big, status: "modified", added: rows, removed: rows });
        expect(file?.cut_lines).toBeGreaterThan(0);
        expect(context.bytes).toBeLessThanOrEqual(256 * 1024);
        expect(file?.diff.startsWith(`@@ -1,${rows} +1,${rows} @@\n-000000000 ${old}\n`)).toBe(true);
        console.info(
          `2 MiB edit: asked after ${Math.round(askedMs)} ms, context (${context.bytes} bytes, ${file?.cut_lines} lines cut) ` +
            `read in ${Math.round(contextMs)} ms; inbox: ${inboxCalls} calls, slowest ${Math.round(slowestInboxMs)} ms`,
        );
        expect(contextMs).toBeLessThan(5_000);
        await answer(question.id, "--choice", "allow");
        const result = await started.done;
        expect(result.code, result.output).toBe(0);
      } finally {
        polling = false;
        await poll;
      }
      expect(inboxCalls).toBeGreaterThan(0);
      // The broker computes the diff on its event loop (hooks/line-diff.ts, synchronous, bounded). Re-measured on a
      // shared 2-core machine: the slowest inbox call was 639, 532 and 510 ms with this case alone, 1,579 and
      // 1,055 ms while `npx vitest run packages/broker/test/hooks` ran beside it; the bound is about twice the worst.
      expect(slowestInboxMs).toBeLessThan(3_200);
      expect(readFileSync(big, "utf8").startsWith(`000000000 ${next}\n`)).toBe(true);
    },
    150_000,
  );

  run(
    "Claude Code: Always allow (this session) runs the same command again without a question",
    async () => {
      const command = "python3 -c 'print(6*7)'";
      const before = mock.turns().length;
      const started = claude([
        { tool: "Bash", input: { command, description: "Compute the answer" } },
        { tool: "Bash", input: { command, description: "Compute it again" } },
      ]);
      const question = await nextQuestion("claude-code", new Set());
      expect(choiceIds(question)).toContain("allow_always");
      expect(await contextOf(question.id)).toMatchObject({ kind: "command", command, reason: "Compute the answer" });
      await answer(question.id, "--choice", "allow_always");
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      // Both calls ran: the model's next request after the second carries both outputs...
      const [after] = turnsWith(before, 2);
      expect(after?.toolResults.map((tool) => [tool.text.trim(), tool.isError])).toEqual([
        ["42", false],
        ["42", false],
      ]);
      // ...and the session asked once.
      const { body } = await cli.api<Json[]>(
        "GET",
        `/v1/interactions?agent=claude-code&session=${encodeURIComponent(question.session_id)}`,
      );
      expect(body.map((interaction) => interaction.id)).toEqual([question.id]);
    },
    120_000,
  );

  run(
    "Claude Code: Deny with a reason puts the reason in the model's next request; the command does not run",
    async () => {
      const marker = join(work, "denied.marker");
      const reason = "Use the build dir instead, please.";
      const before = mock.turns().length;
      const started = claude([{ tool: "Bash", input: { command: `touch ${marker}`, description: "Create a marker" } }]);
      const question = await nextQuestion("claude-code", new Set());
      expect(choiceIds(question)).toContain("deny_reason");
      await answer(question.id, "--choice", "deny_reason");
      const words = await wordsQuestion(question);
      expect(words).toMatchObject({ kind: "text", session_id: question.session_id });
      await answer(words.id, "--text", reason);
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      const [after] = turnsWith(before, 1);
      // The reason first, then Notify's line saying who denied (docs/hooks.md, "Decisions").
      expect(after?.toolResults.map((tool) => [tool.text.split("\n")[0], tool.isError])).toEqual([[reason, true]]);
      expect(existsSync(marker)).toBe(false);
    },
    120_000,
  );

  run(
    "Claude Code: Edit the command runs the edited command instead of the agent's",
    async () => {
      const original = join(work, "original.marker");
      const edited = join(work, "edited.marker");
      const started = claude([
        { tool: "Bash", input: { command: `touch ${original}`, description: "Create a marker" } },
      ]);
      const question = await nextQuestion("claude-code", new Set());
      expect(choiceIds(question)).toContain("edit");
      await answer(question.id, "--choice", "edit");
      const words = await wordsQuestion(question);
      expect(words.prompt).toContain(`touch ${original}`);
      await answer(words.id, "--text", `touch ${edited}`);
      const result = await started.done;
      expect(result.code, result.output).toBe(0);
      expect(existsSync(edited)).toBe(true);
      expect(existsSync(original)).toBe(false);
    },
    120_000,
  );

  run(
    "Codex: apply_patch asks with the diff of each file; allow applies it; deny with a reason reaches the model",
    async () => {
      writeFileSync(join(work, "codex.txt"), "one\ntwo\nthree\n");
      const reason = "Do not add that file, please.";
      const model = await startPatchModel([
        {
          patch:
            "*** Begin Patch\n*** Update File: codex.txt\n@@\n one\n-two\n+2\n three\n" +
            "*** Add File: codex-new.txt\n+hi\n+there\n*** End Patch",
        },
        { patch: "*** Begin Patch\n*** Add File: codex-denied.txt\n+no\n*** End Patch" },
      ]);
      // A model of Codex's catalogue, so that Codex offers its freeform apply_patch (see patch-model.ts).
      writeCodexConfig(home, work, model.url, "on-request");
      const config = join(home, ".codex", "config.toml");
      writeFileSync(config, readFileSync(config, "utf8").replace('model = "mock-model"', 'model = "gpt-5.5"'));
      const codex = startInTmux("codex-patch", work, env(), [
        process.execPath,
        CODEX,
        "--dangerously-bypass-hook-trust",
        "change the files",
      ]);
      try {
        // A catalogue model first shows Codex's model announcement: keep the configured model.
        await eventually(`Codex past its model announcement; screen:\n${codex.screen()}`, async () => {
          const screen = codex.screen();
          if (screen.includes("Use existing model")) {
            codex.keys("2");
            codex.keys("Enter");
          }
          return model.requests.length > 0 ? true : undefined;
        });
        const seen = new Set<string>();
        const patch = await nextQuestion("codex", seen);
        expect(choiceIds(patch)).toEqual(["allow", "deny", "deny_reason"]);
        expect(await contextOf(patch.id)).toMatchObject({
          kind: "diff",
          truncated: false,
          files: [
            {
              path: "codex.txt",
              status: "modified",
              added: 1,
              removed: 1,
              diff: "@@ -1,3 +1,3 @@\n one\n-two\n+2\n three",
            },
            { path: "codex-new.txt", status: "added", added: 2, removed: 0, diff: "@@ -0,0 +1,2 @@\n+hi\n+there" },
          ],
        });
        await answer(patch.id, "--choice", "allow");
        const denied = await nextQuestion("codex", seen);
        expect(readFileSync(join(work, "codex.txt"), "utf8")).toBe("one\n2\nthree\n");
        expect(readFileSync(join(work, "codex-new.txt"), "utf8")).toBe("hi\nthere\n");
        expect(await contextOf(denied.id)).toMatchObject({
          files: [{ path: "codex-denied.txt", status: "added", diff: "@@ -0,0 +1,1 @@\n+no" }],
        });
        await answer(denied.id, "--choice", "deny_reason");
        const words = await wordsQuestion(denied);
        await answer(words.id, "--text", reason);
        const after = await eventually(
          "the model request after the denied patch",
          async () => model.requests.find((request) => model.outputs(request).length >= 2),
          WAIT_MS,
        );
        // Codex hands the model the hook's message as the patch's output: the reason first (docs/hooks.md).
        expect(model.outputs(after)[1]?.output.split("\n")[0]).toBe(reason);
        expect(existsSync(join(work, "codex-denied.txt"))).toBe(false);
      } finally {
        codex.kill();
        await model.close();
      }
    },
    150_000,
  );
});
