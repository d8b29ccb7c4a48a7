import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { type BrokerProcess, spawnBroker } from "@notify/test-kit/broker-process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closedPort, NO_FOLLOW_UPS, sharedCliBroker, startCliBroker } from "../cli/cli-harness.js";
import { claude, codex } from "./fixtures.js";
import { spawnHook, WAITING } from "./hook-harness.js";

const { cli } = sharedCliBroker(NO_FOLLOW_UPS);

async function respond(id: string, choice: string, source = "desktop"): Promise<number> {
  const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
  const answer = await cli.api("POST", `/v1/interactions/${id}/respond`, {
    response_id: `r-${id}-${choice}`,
    request_digest: body.request_digest,
    nonce: body.nonce,
    choice_id: choice,
    source,
  });
  return answer.status;
}

/** A payload of a fresh session, so the tests' keys and session settling never meet. */
function inSession<T extends { input: Record<string, unknown> }>(fixture: T, session: string): Record<string, unknown> {
  return { ...fixture.input, session_id: session };
}

describe("notify hook: a permission request waits for the first answer (issue 12, item 2)", () => {
  it("Claude Code PermissionRequest: the question is listed, allow prints the allow decision", async () => {
    const hook = spawnHook(
      ["claude-code", "PermissionRequest", ...cli.target],
      inSession(claude.permissionRequestBash, "s-allow"),
    );
    const id = (await hook.stderrMatching(WAITING))[1] ?? "";
    const { body: listed } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&agent=claude-code");
    const question = listed.find((interaction) => interaction.id === id);
    expect(question).toMatchObject({
      kind: "permission",
      // Every decision Claude Code's PermissionRequest takes (docs/hooks.md, "Decisions"); the fixture's suggestion
      // is not an addRules one, so "always" names the command's first word.
      choices: [
        { id: "allow", label: "Allow" },
        {
          id: "allow_always",
          label: "Always allow (this session)",
          detail: "Adds the rule Bash(rm:*) for this session",
        },
        {
          id: "allow_always_project",
          label: "Always allow (this project)",
          detail: "Adds the rule Bash(rm:*) to .claude/settings.local.json",
        },
        { id: "deny", label: "Deny" },
        { id: "deny_reason", label: "Deny with a reason…", detail: "The reason goes to Claude Code" },
        { id: "edit", label: "Edit the command…", detail: "The edited command runs instead" },
      ],
      session_id: "s-allow",
      prompt: expect.stringContaining("rm -rf node_modules"),
    });
    // The notification half: permission_required, active, under the same key.
    const { body: notifications } = await cli.api<Json[]>("GET", "/v1/notifications?agent=claude-code");
    expect(notifications.find((n) => n.key === question.key)).toMatchObject({
      type: "permission_required",
      status: "active",
    });

    expect(await respond(id, "allow")).toBe(200);
    const result = await hook.done;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
    expect(result.stdout + result.stderr).not.toContain(question.nonce);
    expect(result.stdout + result.stderr).not.toContain(cli.token);
  });

  it("Codex PermissionRequest: deny prints the deny decision with a message", async () => {
    const hook = spawnHook(
      ["codex", "PermissionRequest", ...cli.target],
      inSession(codex.permissionRequestBash, "s-deny"),
    );
    const id = (await hook.stderrMatching(WAITING))[1] ?? "";
    expect(await respond(id, "deny", "cli")).toBe(200);
    const result = await hook.done;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "Denied in Notify (answered from cli)" },
      },
    });
  });

  it("Claude Code PreToolUse (headless) prints a PreToolUse decision", async () => {
    const hook = spawnHook(["claude-code", "PreToolUse", ...cli.target], inSession(claude.preToolUseWrite, "s-pre"));
    const id = (await hook.stderrMatching(WAITING))[1] ?? "";
    expect(await respond(id, "allow")).toBe(200);
    const result = await hook.done;
    expect(JSON.parse(result.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
    });
  });
});

describe("fallbacks: nothing that decides is printed, exit 0, the agent's own prompt decides", () => {
  it("a cancelled question", async () => {
    const hook = spawnHook(
      ["claude-code", "PermissionRequest", ...cli.target],
      inSession(claude.permissionRequestBash, "s-cancel"),
    );
    const id = (await hook.stderrMatching(WAITING))[1] ?? "";
    expect((await cli.api("POST", `/v1/interactions/${id}/cancel`)).status).toBe(200);
    const result = await hook.done;
    expect(result).toMatchObject({ code: 0, stdout: "" });
    expect(result.stderr).toContain("ended cancelled; the agent decides");
  });

  it("an expired question (its notification resolved too)", async () => {
    const hook = spawnHook(
      ["claude-code", "PermissionRequest", "--ttl", "1", ...cli.target],
      inSession(claude.permissionRequestBash, "s-expire"),
    );
    const id = (await hook.stderrMatching(WAITING))[1] ?? "";
    const result = await hook.done;
    expect(result).toMatchObject({ code: 0, stdout: "" });
    expect(result.stderr).toContain(`interaction ${id} ended expired`);
    const { body: question } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect(question.status).toBe("expired");
    const { body: notifications } = await cli.api<Json[]>("GET", "/v1/notifications?agent=claude-code");
    expect(notifications.find((n) => n.key === question.key)?.status).toBe("resolved");
  });

  it("a broker that is down", async () => {
    const port = await closedPort();
    const started = Date.now();
    const result = await spawnHook(
      ["claude-code", "PermissionRequest", "--port", String(port), "--token", "t"],
      claude.permissionRequestBash.input,
    ).done;
    expect(result).toMatchObject({ code: 0, stdout: "" });
    expect(result.stderr).toContain("cannot reach the broker; the agent decides");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("an invalid token", async () => {
    const result = await spawnHook(
      ["codex", "PermissionRequest", "--port", String(cli.broker.port), "--token", "wrong-token"],
      codex.permissionRequestBash.input,
    ).done;
    expect(result).toMatchObject({ code: 0, stdout: "" });
    expect(result.stderr).toContain("the broker refused the token (401); the agent decides");
    expect(result.stderr).not.toContain("wrong-token");
  });

  it("input that is not JSON, and an unknown agent (exit 1: never 2, which Claude Code reads as a refusal)", async () => {
    const garbage = await spawnHook(["claude-code", "PermissionRequest", ...cli.target], "{oops").done;
    expect(garbage).toMatchObject({ code: 0, stdout: "" });
    const unknown = await spawnHook(["cursor", "PermissionRequest", ...cli.target], "{}").done;
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
  });
});

describe("the question disappears when the agent moves on without it", () => {
  it("PostToolUse of the same call withdraws it: the waiting hook prints nothing", async () => {
    const waiting = spawnHook(
      ["codex", "PermissionRequest", ...cli.target],
      inSession(codex.permissionRequestBash, "s-post"),
    );
    const id = (await waiting.stderrMatching(WAITING))[1] ?? "";
    const post = await spawnHook(["codex", "PostToolUse", ...cli.target], inSession(codex.postToolUseBash, "s-post"))
      .done;
    expect(post).toMatchObject({ code: 0, stdout: "" });
    const result = await waiting.done;
    expect(result).toMatchObject({ code: 0, stdout: "" });
    const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect(body.status).toBe("cancelled");
  });

  it("SIGTERM from the agent (answered in its own prompt) withdraws the question", async () => {
    const hook = spawnHook(
      ["claude-code", "PermissionRequest", ...cli.target],
      inSession(claude.permissionRequestBash, "s-term"),
    );
    const id = (await hook.stderrMatching(WAITING))[1] ?? "";
    hook.child.kill("SIGTERM");
    const result = await hook.done;
    expect(result).toMatchObject({ code: 0, stdout: "" });
    const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect(body.status).toBe("cancelled");
  });

  it("Stop withdraws the session's open questions and raises completed, updated in place per session", async () => {
    const waiting = spawnHook(
      ["claude-code", "PermissionRequest", ...cli.target],
      inSession(claude.permissionRequestBash, "s-stop"),
    );
    const id = (await waiting.stderrMatching(WAITING))[1] ?? "";
    const attention = await spawnHook(
      ["claude-code", "Notification", ...cli.target],
      inSession(claude.notificationIdle, "s-stop"),
    ).done;
    expect(attention.code).toBe(0);
    const stop = await spawnHook(["claude-code", "Stop", ...cli.target], inSession(claude.stop, "s-stop")).done;
    expect(stop).toMatchObject({ code: 0, stdout: "" });
    expect(await waiting.done).toMatchObject({ code: 0, stdout: "" });
    expect((await cli.api<Json>("GET", `/v1/interactions/${id}`)).body.status).toBe("cancelled");

    const { body: notifications } = await cli.api<Json[]>("GET", "/v1/notifications?agent=claude-code&unresolved=true");
    const session = notifications.filter((n) => n.metadata?.arc?.session_id === "s-stop");
    // One row for the session: the attention notification became the completion in place.
    expect(session).toHaveLength(1);
    expect(session[0]).toMatchObject({
      type: "completed",
      title: "Claude Code finished in my-project",
      message: "I've completed the refactoring. Here's a summary...",
      project: "my-project",
    });
  });

  it("Codex's legacy notify program: agent-turn-complete as the last argument", async () => {
    const payload = JSON.stringify({ ...codex.agentTurnComplete.input, "thread-id": "t-legacy" });
    const result = await spawnHook(["codex", "agent-turn-complete", payload, ...cli.target], "").done;
    expect(result).toMatchObject({ code: 0, stdout: "" });
    const { body } = await cli.api<Json[]>("GET", "/v1/notifications?agent=codex&type=completed");
    expect(body.find((n) => n.metadata?.arc?.session_id === "t-legacy")).toMatchObject({
      message: "Rename complete and verified `cargo build` succeeds.",
      project: "example",
    });
  });
});

describe("PostToolUse of a call that never asked costs a read, not an event", () => {
  it("three PostToolUse hooks against a broker allowing one POST per second: no 429, nothing written", async () => {
    const limited = await startCliBroker({ rateLimitPerSecond: 1 });
    try {
      const runs = await Promise.all(
        ["ls", "pwd", "date"].map(
          (command) =>
            spawnHook(["claude-code", "PostToolUse", ...limited.target], {
              ...claude.postToolUseBash.input,
              session_id: "s-quiet",
              tool_input: { command },
            }).done,
        ),
      );
      for (const result of runs) expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
      expect((await limited.api<Json[]>("GET", "/v1/notifications")).body).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});

// Issue 33, item 3: an event that only withdraws does nothing at all, without a request, in a session where no hook
// ever opened a question. Against a closed port, any request would say "cannot reach the broker".
describe("an event that only reports waits for nothing (issue 33, item 3)", () => {
  const down = async (): Promise<string[]> => {
    const dataDir = cli.target[cli.target.indexOf("--data-dir") + 1] ?? "";
    return ["--port", String(await closedPort()), "--data-dir", dataDir, "--token", "t"];
  };

  it("PostToolUse and UserPromptSubmit of a session that never asked make no request", async () => {
    const target = await down();
    const post = await spawnHook(["claude-code", "PostToolUse", ...target], inSession(claude.postToolUseBash, "s-none"))
      .done;
    expect(post).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    const prompt = await spawnHook(["claude-code", "UserPromptSubmit", ...target], {
      session_id: "s-none",
      hook_event_name: "UserPromptSubmit",
      cwd: "/tmp",
      prompt: "next",
    }).done;
    expect(prompt).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
  });

  it("a session whose hook asked still looks for its question, and Stop clears the mark once none is open", async () => {
    const waiting = spawnHook(
      ["claude-code", "PermissionRequest", ...cli.target],
      inSession(claude.permissionRequestBash, "s-marked"),
    );
    const id = (await waiting.stderrMatching(WAITING))[1] ?? "";
    // The broker is asked (here: it is down), so the open question is not missed.
    const lookedFor = await spawnHook(
      ["claude-code", "PostToolUse", ...(await down())],
      inSession(claude.postToolUseBash, "s-marked"),
    ).done;
    expect(lookedFor.stderr).toContain("cannot reach the broker");
    expect(await respond(id, "allow")).toBe(200);
    await waiting.done;
    // Stop looks (nothing open) but the mark is fresh: kept, so a question opened meanwhile is never missed.
    const stop = await spawnHook(["claude-code", "Stop", ...cli.target], inSession(claude.stop, "s-marked")).done;
    expect(stop).toMatchObject({ code: 0, stdout: "" });
    const again = await spawnHook(
      ["claude-code", "PostToolUse", ...(await down())],
      inSession(claude.postToolUseBash, "s-marked"),
    ).done;
    expect(again.stderr).toContain("cannot reach the broker");
  });
});

// Issue 21, item 10: with the broker stopped (SIGSTOP: it accepts connections and never answers), the hook was
// still blocked at 200 s, and the agent waits up to its 660 s hook timeout. Every request is bounded now: the hook
// ends by its question's expiry plus a few seconds, printing no decision. A real broker process, short ttl.
describe("the hook never outlives its question (issue 21, item 10)", () => {
  /** Expiry, the 5 s grace, and room for a loaded machine to start and stop processes. */
  const limitMs = (ttl: number): number => (ttl + 5 + 12) * 1000;
  // One broker process for both cases: each stops it (SIGSTOP) and lets it go on (SIGCONT) afterwards.
  let broker: BrokerProcess;
  let dataDir: string;
  beforeAll(async () => {
    // Not tempDir(): that one is removed after each test, and the broker outlives a test.
    dataDir = mkdtempSync(join(tmpdir(), "notify-hook-stopped-"));
    broker = await spawnBroker(dataDir);
  });
  afterEach(() => {
    broker.child.kill("SIGCONT");
  });
  afterAll(async () => {
    broker.child.kill("SIGCONT");
    broker.child.kill("SIGTERM");
    await broker.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const target = (process: BrokerProcess): string[] => ["--port", String(process.port), "--data-dir", dataDir];

  it("stopped before the question is created: the hook exits quietly by the expiry", async () => {
    // No question is ever created, so the ttl need leave no room to create one: a second.
    const ttl = 1;
    broker.child.kill("SIGSTOP");
    const started = Date.now();
    const hook = spawnHook(
      ["claude-code", "PermissionRequest", "--ttl", String(ttl), ...target(broker)],
      inSession(claude.permissionRequestBash, "s-stopped-early"),
    );
    const killer = setTimeout(() => hook.child.kill("SIGKILL"), 90_000);
    const result = await hook.done;
    clearTimeout(killer);
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({ code: 0, signal: null, stdout: "" });
    expect(result.stderr).toContain("the agent decides");
    expect(elapsed).toBeLessThan(limitMs(ttl));
    // The context's post ends at the run's deadline (ttl + 5 s grace), not after its own 10 s: 6.6 s here, where it
    // was 10.5 s; the 10 s bound leaves the hook's start up to 4 s on a loaded machine.
    expect(elapsed).toBeLessThan(10_000);
  }, 120_000);

  it("stopped while the hook waits for the answer: the hook exits quietly by the expiry", async () => {
    // Four seconds: room for the hook to start and create its question before it expires.
    const ttl = 4;
    const hook = spawnHook(
      ["codex", "PermissionRequest", "--ttl", String(ttl), ...target(broker)],
      inSession(codex.permissionRequestBash, "s-stopped-late"),
    );
    await hook.stderrMatching(WAITING, 30_000);
    const started = Date.now();
    broker.child.kill("SIGSTOP");
    const killer = setTimeout(() => hook.child.kill("SIGKILL"), 90_000);
    const result = await hook.done;
    clearTimeout(killer);
    expect(result).toMatchObject({ code: 0, signal: null, stdout: "" });
    expect(result.stderr).toContain("the agent decides");
    expect(Date.now() - started).toBeLessThan(limitMs(ttl));
  }, 120_000);
});

// Issue 21, item 11: two simultaneous identical permission requests of one session shared one question, and one
// "allow" released both. A call the agent names (tool_use_id) or a subagent's call (agent_id) gets its own question.
describe("one approval releases one call (issue 21, item 11)", () => {
  it("two identical PreToolUse calls with their own tool_use_id: two questions; allowing one releases only it", async () => {
    const payload = (id: string) => ({ ...inSession(claude.preToolUseWrite, "s-two-calls"), tool_use_id: id });
    const first = spawnHook(["claude-code", "PreToolUse", ...cli.target], payload("toolu_first"));
    const second = spawnHook(["claude-code", "PreToolUse", ...cli.target], payload("toolu_second"));
    const firstId = (await first.stderrMatching(WAITING, 30_000))[1] ?? "";
    const secondId = (await second.stderrMatching(WAITING, 30_000))[1] ?? "";
    expect(secondId).not.toBe(firstId);
    expect(await respond(firstId, "allow")).toBe(200);
    const released = await first.done;
    expect(JSON.parse(released.stdout).hookSpecificOutput.permissionDecision).toBe("allow");
    // The other call is still asking.
    const { body: other } = await cli.api<Json>("GET", `/v1/interactions/${secondId}`);
    expect(other.status).toBe("pending");
    expect(second.child.exitCode).toBeNull();
    expect(await respond(secondId, "deny")).toBe(200);
    expect(JSON.parse((await second.done).stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it("two subagents asking for the same command at once: two questions", async () => {
    const payload = (agentId: string) => ({
      ...inSession(codex.permissionRequestBash, "s-subagents"),
      agent_id: agentId,
    });
    const first = spawnHook(["codex", "PermissionRequest", ...cli.target], payload("sub-1"));
    const second = spawnHook(["codex", "PermissionRequest", ...cli.target], payload("sub-2"));
    const firstId = (await first.stderrMatching(WAITING, 30_000))[1] ?? "";
    const secondId = (await second.stderrMatching(WAITING, 30_000))[1] ?? "";
    expect(secondId).not.toBe(firstId);
    expect(await respond(firstId, "allow")).toBe(200);
    expect(JSON.parse((await first.done).stdout).hookSpecificOutput.decision.behavior).toBe("allow");
    expect((await cli.api<Json>("GET", `/v1/interactions/${secondId}`)).body.status).toBe("pending");
    expect(await respond(secondId, "allow")).toBe(200);
    expect((await second.done).code).toBe(0);
  });
});
