import { isFollowUp } from "@notify/contracts/enums";
import { describe, expect, it } from "vitest";
import { decisionOutput } from "../../src/hooks/decision-output.js";
import { parseHookInput } from "../../src/hooks/hook-input.js";
import { planHook, projectOf, sessionKey, toolCallKey } from "../../src/hooks/mapping.js";
import { cut, PROMPT_LIMIT, permissionPrompt } from "../../src/hooks/prompt.js";
import { claude, codex, type HookFixture } from "./fixtures.js";

const noGit = (): boolean => false;
const plan = (agent: "claude-code" | "codex", event: string, fixture: HookFixture) => {
  const input = parseHookInput(JSON.stringify(fixture.input));
  if (input === undefined) throw new Error("fixture did not parse");
  return planHook(agent, event, input, { pid: 4242, exists: noGit });
};

describe("Claude Code events (issue 12: every mapping, documented stdin shapes)", () => {
  it("PermissionRequest for Bash asks allow/deny with the command, keyed per session and tool call", () => {
    const result = plan("claude-code", "PermissionRequest", claude.permissionRequestBash);
    expect(result.sender).toEqual({ id: "claude-code", name: "Claude Code" });
    expect(result.context).toEqual({
      session_id: "abc123",
      cwd: "/Users/dev/my-project",
      project: "my-project",
      pid: 4242,
    });
    expect(result.ask).toEqual({
      key: toolCallKey("claude-code", "abc123", "Bash", claude.permissionRequestBash.input.tool_input),
      message:
        "Claude Code wants to run a shell command (Remove node_modules directory) in my-project:\n\nrm -rf node_modules",
      format: "permission-request",
      tool: {
        name: "Bash",
        input: claude.permissionRequestBash.input.tool_input,
        suggestions: claude.permissionRequestBash.input.permission_suggestions,
      },
    });
    expect(result.notify).toBeUndefined();
    expect(result.settle).toBeUndefined();
  });

  it("PreToolUse (headless: no dialog) asks too, printed as a PreToolUse decision; file and URL named", () => {
    const write = plan("claude-code", "PreToolUse", claude.preToolUseWrite);
    expect(write.ask?.format).toBe("pre-tool-use");
    expect(write.ask?.message).toBe(
      "Claude Code wants to change a file with Write in my-project:\n\n/path/to/file.txt",
    );
    expect(write.context.native_request_id).toBe("toolu_01ABC123...");
    const fetch = plan("claude-code", "PreToolUse", claude.preToolUseWebFetch);
    expect(fetch.ask?.message).toBe(
      "Claude Code wants to fetch a URL with WebFetch in my-project:\n\nhttps://example.com/api",
    );
  });

  it("PostToolUse withdraws the question of the same tool call (same key as its PermissionRequest)", () => {
    const asked = plan("claude-code", "PermissionRequest", claude.permissionRequestBash);
    const ran = plan("claude-code", "PostToolUse", claude.postToolUseBash);
    expect(ran.settle).toEqual({ keys: [expect.any(String), asked.ask?.key] });
    expect(ran.ask).toBeUndefined();
    expect(ran.notify).toBeUndefined();
  });

  it("Notification (idle) becomes input_required keyed per session; the permission_prompt one is left out", () => {
    const idle = plan("claude-code", "Notification", claude.notificationIdle);
    expect(idle.notify).toEqual({
      key: sessionKey("claude-code", "abc123"),
      kind: "question",
      title: "Claude Code needs your attention in my-project",
      message: "Claude is waiting for your input",
    });
    const permission = plan("claude-code", "Notification", claude.notificationPermission);
    expect(permission.notify).toBeUndefined();
    expect(permission.ask).toBeUndefined();
  });

  it("Stop becomes completed under the same session key, and withdraws the session's open questions", () => {
    const stop = plan("claude-code", "Stop", claude.stop);
    expect(stop.settle).toEqual({ session: "abc123" });
    expect(stop.notify).toEqual({
      key: sessionKey("claude-code", "abc123"),
      kind: "completion",
      title: "Claude Code finished in my-project",
      message: "I've completed the refactoring. Here's a summary...",
    });
  });
});

describe("one question per tool call the agent names (issue 21, item 11)", () => {
  /** A documented payload with some fields changed; `source` still cites where its shape comes from. */
  const variant = (fixture: HookFixture, fields: Record<string, unknown>): HookFixture => ({
    source: fixture.source,
    input: { ...fixture.input, ...fields },
  });
  const pre = (id: string) => variant(claude.preToolUseWrite, { tool_use_id: id });
  it("two identical PreToolUse calls with their own tool_use_id ask two questions; each PostToolUse finds its own", () => {
    const first = plan("claude-code", "PreToolUse", pre("toolu_A"));
    const second = plan("claude-code", "PreToolUse", pre("toolu_B"));
    expect(first.ask?.key).toMatch(/^claude-code:tool:[0-9a-f]{32}$/);
    expect(second.ask?.key).not.toBe(first.ask?.key);
    const ran = plan(
      "claude-code",
      "PostToolUse",
      variant(claude.postToolUseBash, {
        tool_name: "Write",
        tool_input: claude.preToolUseWrite.input.tool_input,
        tool_use_id: "toolu_A",
      }),
    );
    expect(ran.settle).toMatchObject({ keys: expect.arrayContaining([first.ask?.key]) });
    expect(ran.settle).not.toMatchObject({ keys: expect.arrayContaining([second.ask?.key]) });
  });

  it("two subagents asking for the same command ask two questions (agent_id); their PostToolUse find them", () => {
    const asks = ["agent-1", "agent-2"].map((agentId) =>
      plan("codex", "PermissionRequest", variant(codex.permissionRequestBash, { agent_id: agentId })),
    );
    expect(asks[0]?.ask?.key).not.toBe(asks[1]?.ask?.key);
    const ran = plan("codex", "PostToolUse", variant(codex.postToolUseBash, { agent_id: "agent-2" }));
    expect(ran.settle).toMatchObject({ keys: expect.arrayContaining([asks[1]?.ask?.key]) });
    expect(ran.settle).not.toMatchObject({ keys: expect.arrayContaining([asks[0]?.ask?.key]) });
  });

  it("without a call id or a subagent, identical calls keep one key (the documented dedupe; keys unchanged)", () => {
    const first = plan("claude-code", "PermissionRequest", claude.permissionRequestBash);
    const second = plan("claude-code", "PermissionRequest", claude.permissionRequestBash);
    expect(second.ask?.key).toBe(first.ask?.key);
    expect(first.ask?.key).toBe(
      toolCallKey("claude-code", "abc123", "Bash", claude.permissionRequestBash.input.tool_input),
    );
  });
});

describe("Codex CLI events", () => {
  it("PermissionRequest (Bash) asks with the command and its justification, with the turn id", () => {
    const result = plan("codex", "PermissionRequest", codex.permissionRequestBash);
    expect(result.sender).toEqual({ id: "codex", name: "Codex CLI" });
    expect(result.context).toMatchObject({
      session_id: "019a7d6c-0b3a-7f10-9a52-4c1e2f7d9b01",
      turn_id: "019a7d6c-2e44-7c21-8f3b-71a0d5e6c902",
      project: "notify",
    });
    expect(result.ask?.message).toBe(
      "Codex CLI wants to run a shell command (Remove the scratch file) in notify:\n\nrm -f /tmp/example.txt",
    );
    expect(result.ask?.format).toBe("permission-request");
  });

  it("PermissionRequest (NetworkAccess) says it wants the network", () => {
    const result = plan("codex", "PermissionRequest", codex.permissionRequestNetwork);
    expect(result.ask?.message).toMatch(/^Codex CLI wants network access for a shell command/);
  });

  it("PostToolUse finds the PermissionRequest's key although Codex's inputs differ (no description)", () => {
    const asked = plan("codex", "PermissionRequest", codex.permissionRequestBash);
    const ran = plan("codex", "PostToolUse", codex.postToolUseBash);
    expect(ran.settle).toEqual({ keys: [expect.any(String), asked.ask?.key] });
  });

  it("Stop and the legacy agent-turn-complete become completed, keyed per session (thread)", () => {
    const stop = plan("codex", "Stop", codex.stop);
    expect(stop.notify).toMatchObject({ kind: "completion", message: "Removed the scratch file." });
    expect(stop.notify?.key).toBe(sessionKey("codex", codex.stop.input.session_id));
    const legacy = plan("codex", "agent-turn-complete", codex.agentTurnComplete);
    expect(legacy.notify).toEqual({
      key: sessionKey("codex", "b5f6c1c2-1111-2222-3333-444455556666"),
      kind: "completion",
      title: "Codex CLI finished in example",
      message: "Rename complete and verified `cargo build` succeeds.",
    });
    expect(legacy.context).toMatchObject({ turn_id: "12345", cwd: "/Users/alice/projects/example" });
  });

  it("Codex PreToolUse asks nothing (Codex lets that hook deny, never allow)", () => {
    const result = plan("codex", "PreToolUse", {
      source: "",
      input: { ...codex.permissionRequestBash.input, hook_event_name: "PreToolUse" },
    });
    expect(result.ask).toBeUndefined();
  });
});

describe("inputs that are not what the docs show", () => {
  it("non-JSON and non-objects parse to nothing; unknown fields are ignored", () => {
    expect(parseHookInput("not json")).toBeUndefined();
    expect(parseHookInput("[1,2]")).toBeUndefined();
    expect(parseHookInput('{"hook_event_name":"Stop","future_field":{"x":1}}')).toEqual({ hookEventName: "Stop" });
  });

  it("context values over ARC's limits are left out instead of failing the event", () => {
    const long = "s".repeat(101);
    const input = parseHookInput(JSON.stringify({ ...claude.stop.input, session_id: long }));
    if (input === undefined) throw new Error("no input");
    expect(planHook("claude-code", "Stop", input, { exists: noGit }).context.session_id).toBeUndefined();
  });

  it("the project is the repository root's name above the cwd", () => {
    const exists = (path: string): boolean => path === "/home/dev/notify/.git";
    expect(projectOf("/home/dev/notify/packages/broker", exists)).toBe("notify");
    expect(projectOf("/tmp/scratch", exists)).toBe("scratch");
    expect(projectOf(undefined, exists)).toBeUndefined();
  });
});

describe("prompts: long inputs cut with a visible marker, within 2000 characters", () => {
  it("a 10,000 character command is cut and says how much is hidden", () => {
    const command = `echo ${"x".repeat(10_000)}`;
    const prompt = permissionPrompt("claude-code", "Bash", { command });
    expect(Array.from(prompt).length).toBeLessThanOrEqual(PROMPT_LIMIT);
    expect(prompt).toMatch(/… \[cut: \d+ more characters not shown\]$/);
    const hidden = Number(/cut: (\d+) more/.exec(prompt)?.[1]);
    const shown = prompt.split("\n\n")[1]?.split("\n…")[0] ?? "";
    expect(shown.length + hidden).toBe(command.length);
  });

  it("cut leaves short text alone and counts code points", () => {
    expect(cut("short", 10)).toBe("short");
    expect(Array.from(cut("😀".repeat(300), 100)).length).toBeLessThanOrEqual(100);
  });

  it("an unknown tool shows its input as JSON", () => {
    expect(permissionPrompt("claude-code", "mcp__db__query", { sql: "DROP TABLE users" })).toBe(
      'Claude Code wants to use the tool mcp__db__query:\n\n{\n  "sql": "DROP TABLE users"\n}',
    );
  });
});

describe("decisions in the agents' output formats", () => {
  it("PermissionRequest allow / deny (Claude Code and Codex read the same shape)", () => {
    expect(JSON.parse(decisionOutput("permission-request", "allow", "desktop"))).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
    expect(JSON.parse(decisionOutput("permission-request", "deny", "cli"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "Denied in Notify (answered from cli)" },
      },
    });
  });

  it("PreToolUse allow / deny", () => {
    expect(JSON.parse(decisionOutput("pre-tool-use", "allow", "relay"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: "Allowed in Notify (answered from relay)",
      },
    });
    expect(JSON.parse(decisionOutput("pre-tool-use", "deny", "cli")).hookSpecificOutput.permissionDecision).toBe(
      "deny",
    );
  });
});

describe("a session's key is what the pages and the timeline call a follow-up", () => {
  it("every agent's sessionKey, with a text question, is a follow-up; a tool key or a choice is not", () => {
    for (const agent of ["claude-code", "codex"] as const) {
      expect(isFollowUp({ kind: "text", key: sessionKey(agent, "s-1") })).toBe(true);
      expect(isFollowUp({ kind: "single_choice", key: sessionKey(agent, "s-1") })).toBe(false);
      expect(isFollowUp({ kind: "text", key: toolCallKey(agent, "s-1", "Bash", { command: "ls" }) })).toBe(false);
    }
  });
});
