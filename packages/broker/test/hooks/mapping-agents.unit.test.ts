import { describe, expect, it } from "vitest";
import { continueOutput, decisionOutput } from "../../src/hooks/decision-output.js";
import { parseHookInput } from "../../src/hooks/hook-input.js";
import { planHook, sessionKey, toolCallKey } from "../../src/hooks/mapping.js";
import { agentOf } from "../../src/mcp/server.js";

/**
 * Issue 38, item 1: the new agents' events mapped. Copilot CLI's payloads were recorded from the binary (1.0.102,
 * headless against the mock model; docs/hooks.md "GitHub Copilot CLI"); Gemini CLI's follow its hooks reference
 * (0.61.0, bundle/docs/hooks/reference.md); OpenCode's are what Notify's own plugin sends.
 */
const noGit = (): boolean => false;
const plan = (agent: "gemini" | "copilot" | "opencode", event: string, payload: unknown) => {
  const input = parseHookInput(JSON.stringify(payload));
  if (input === undefined) throw new Error("payload did not parse");
  return planHook(agent, event, input, { exists: noGit });
};

const COPILOT_SESSION = "7d5f03c4-91f0-44e3-97b9-5ea8b789300e";
const copilot = {
  permissionRequest: {
    hookName: "permissionRequest",
    sessionId: COPILOT_SESSION,
    timestamp: 1795849887203,
    cwd: "/work/project",
    toolName: "bash",
    toolInput: { command: "echo probe > made.txt" },
    permissionSuggestions: [],
  },
  postToolUse: {
    sessionId: COPILOT_SESSION,
    timestamp: 1795849887648,
    cwd: "/work/project",
    toolName: "bash",
    toolArgs: { command: "echo probe > made.txt", description: "make a file" },
    toolResult: { resultType: "success", textResultForLlm: "\n<shellId: 0 completed with exit code 0>" },
  },
  agentStop: {
    sessionId: COPILOT_SESSION,
    timestamp: 1795849888931,
    cwd: "/work/project",
    transcriptPath: `/home/u/.copilot/session-state/${COPILOT_SESSION}/events.jsonl`,
    stopReason: "end_turn",
    stop_hook_active: false,
  },
  userPromptSubmitted: { sessionId: COPILOT_SESSION, timestamp: 1, cwd: "/work/project", prompt: "make the file" },
  sessionEnd: { sessionId: COPILOT_SESSION, timestamp: 2, cwd: "/work/project", reason: "complete" },
};

const gemini = {
  beforeTool: {
    session_id: "g-1",
    transcript_path: "/home/u/.gemini/tmp/x/chats/session.json",
    cwd: "/work/project",
    hook_event_name: "BeforeTool",
    timestamp: "2026-11-28T07:00:00.000Z",
    tool_name: "run_shell_command",
    tool_input: { command: "rm -rf build", description: "Clean the build" },
  },
  afterAgent: {
    session_id: "g-1",
    cwd: "/work/project",
    hook_event_name: "AfterAgent",
    prompt: "clean up",
    prompt_response: "Cleaned the build folder.",
    stop_hook_active: false,
  },
  notification: {
    session_id: "g-1",
    cwd: "/work/project",
    hook_event_name: "Notification",
    notification_type: "ToolPermission",
    message: "Gemini CLI wants to run rm -rf build",
    details: { tool: "run_shell_command" },
  },
};

describe("GitHub Copilot CLI events", () => {
  it("permissionRequest asks, printed in Copilot's own `behavior` format, keyed like its postToolUse", () => {
    const asked = plan("copilot", "permissionRequest", copilot.permissionRequest);
    expect(asked.sender).toEqual({ id: "copilot", name: "GitHub Copilot CLI" });
    expect(asked.context).toMatchObject({ session_id: COPILOT_SESSION, cwd: "/work/project", project: "project" });
    const key = toolCallKey("copilot", COPILOT_SESSION, "bash", { command: "echo probe > made.txt" });
    expect(asked.ask).toMatchObject({ key, format: "copilot-permission" });
    expect(asked.ask?.message).toMatch(/^GitHub Copilot CLI wants to run/);
    expect(asked.ask?.gate).toBeUndefined();
    expect(asked.session).toEqual({ signal: "asking" });
    // postToolUse names the same call by its command (its toolArgs add a description): it withdraws that question.
    const ran = plan("copilot", "postToolUse", copilot.postToolUse);
    expect(ran.settle).toEqual({ keys: [key] });
    expect(ran.session).toEqual({ signal: "working" });
  });

  it("Notify's own MCP tools ask nothing (asking whether to ask the person is no question)", () => {
    const own = plan("copilot", "permissionRequest", { ...copilot.permissionRequest, toolName: "notify/ask_person" });
    expect(own.ask).toBeUndefined();
  });

  it("agentStop is a completed notification with a follow-up; the prompt and the end withdraw; the sessions list follows", () => {
    const stop = plan("copilot", "agentStop", copilot.agentStop);
    expect(stop.notify).toEqual({
      key: sessionKey("copilot", COPILOT_SESSION),
      kind: "completion",
      title: "GitHub Copilot CLI finished in project",
      message: "GitHub Copilot CLI finished its turn",
    });
    expect(stop.followUp).toMatchObject({ session: COPILOT_SESSION, continued: false });
    expect(stop.followUp?.transcriptPath).toBe(copilot.agentStop.transcriptPath);
    expect(stop.session).toEqual({ signal: "finished" });
    expect(plan("copilot", "userPromptSubmitted", copilot.userPromptSubmitted)).toMatchObject({
      settle: { session: COPILOT_SESSION },
      session: { signal: "working" },
    });
    expect(plan("copilot", "sessionEnd", copilot.sessionEnd)).toMatchObject({
      settle: { session: COPILOT_SESSION },
      session: { signal: "ended" },
    });
  });

  it("a notification about a permission asks nothing more; another one is an attention notification", () => {
    const base = { sessionId: COPILOT_SESSION, cwd: "/work/project", message: "Copilot is idle" };
    expect(plan("copilot", "notification", { ...base, notification_type: "permission_prompt" }).notify).toBeUndefined();
    expect(plan("copilot", "notification", { ...base, notification_type: "idle" }).notify).toMatchObject({
      kind: "question",
      title: "GitHub Copilot CLI needs your attention in project",
      message: "Copilot is idle",
    });
  });

  it("decisions: allow is `behavior: allow`; deny carries Notify's words and the person's reason", () => {
    expect(JSON.parse(decisionOutput("copilot-permission", "allow", "phone"))).toEqual({ behavior: "allow" });
    expect(JSON.parse(decisionOutput("copilot-permission", "deny", "cli", { message: "not now" }))).toEqual({
      behavior: "deny",
      message: "not now\n(Denied in Notify (answered from cli))",
    });
    expect(JSON.parse(continueOutput("run the tests", "copilot"))).toEqual({
      decision: "block",
      reason: "run the tests",
    });
  });
});

describe("Gemini CLI events", () => {
  it("BeforeTool is a gate: asked only while the person is away, printed as a decision with the reason", () => {
    const gated = plan("gemini", "BeforeTool", gemini.beforeTool);
    expect(gated.sender).toEqual({ id: "gemini", name: "Gemini CLI" });
    expect(gated.ask).toMatchObject({
      key: toolCallKey("gemini", "g-1", "run_shell_command", gemini.beforeTool.tool_input),
      format: "gate",
      gate: true,
      tool: { name: "run_shell_command", input: gemini.beforeTool.tool_input },
    });
    expect(gated.ask?.message).toBe(
      "Gemini CLI wants to run a shell command (Clean the build) in project:\n\nrm -rf build",
    );
    expect(JSON.parse(decisionOutput("gate", "allow", "phone"))).toEqual({ decision: "allow" });
    expect(JSON.parse(decisionOutput("gate", "deny", "phone"))).toEqual({
      decision: "deny",
      reason: "Denied in Notify (answered from phone)",
    });
  });

  it("AfterAgent is the finished turn, with its response as the message; a follow-up continues through a deny", () => {
    const stop = plan("gemini", "AfterAgent", gemini.afterAgent);
    expect(stop.notify).toMatchObject({
      kind: "completion",
      title: "Gemini CLI finished in project",
      message: "Cleaned the build folder.",
    });
    expect(stop.followUp).toMatchObject({ session: "g-1", lastMessage: "Cleaned the build folder." });
    expect(stop.session).toEqual({ signal: "finished", lastMessage: "Cleaned the build folder." });
    expect(JSON.parse(continueOutput("now the docs", "gemini"))).toEqual({ decision: "deny", reason: "now the docs" });
  });

  it("its ToolPermission notification is an attention notification: no hook can answer Gemini's own prompt", () => {
    expect(plan("gemini", "Notification", gemini.notification).notify).toMatchObject({
      kind: "question",
      title: "Gemini CLI needs your attention in project",
      message: "Gemini CLI wants to run rm -rf build",
    });
    expect(plan("gemini", "BeforeAgent", { session_id: "g-1", hook_event_name: "BeforeAgent" }).settle).toEqual({
      session: "g-1",
    });
  });
});

describe("OpenCode, through Notify's plugin", () => {
  it("tool.execute.before is a gate keyed by OpenCode's call id; session.idle is completed, with no follow-up", () => {
    const gated = plan("opencode", "tool.execute.before", {
      hook_event_name: "tool.execute.before",
      session_id: "ses_1",
      tool_use_id: "call_1",
      cwd: "/work/project",
      tool_name: "bash",
      tool_input: { command: "npm publish", description: "Publish" },
    });
    expect(gated.ask).toMatchObject({ format: "gate", gate: true, tool: { name: "bash" } });
    expect(gated.ask?.message).toContain("npm publish");
    expect(gated.context.native_request_id).toBe("call_1");
    const idle = plan("opencode", "session.idle", {
      hook_event_name: "session.idle",
      session_id: "ses_1",
      cwd: "/w/p",
    });
    expect(idle.notify).toMatchObject({ kind: "completion", title: "OpenCode finished in p" });
    expect(idle.followUp).toBeUndefined();
    expect(
      plan("opencode", "session.deleted", { hook_event_name: "session.deleted", session_id: "ses_1" }),
    ).toMatchObject({ settle: { session: "ses_1" }, session: { signal: "ended" } });
  });

  it("session.idle of a session that lives on may take a follow-up; chat.message withdraws the session's", () => {
    const idle = plan("opencode", "session.idle", {
      hook_event_name: "session.idle",
      session_id: "ses_1",
      cwd: "/w/p",
      last_assistant_message: "Built it.",
      stop_hook_active: true,
      can_continue: true,
    });
    expect(idle.notify).toMatchObject({ kind: "completion", message: "Built it." });
    expect(idle.followUp).toMatchObject({ session: "ses_1", lastMessage: "Built it.", continued: true });
    // A one-shot `opencode run` exits at idle: the plugin says so, and nothing waits for a reply.
    const oneShot = plan("opencode", "session.idle", { session_id: "ses_1", can_continue: false });
    expect(oneShot.followUp).toBeUndefined();
    expect(plan("opencode", "chat.message", { hook_event_name: "chat.message", session_id: "ses_1" })).toMatchObject({
      settle: { session: "ses_1" },
      session: { signal: "working" },
    });
  });
});

describe("the MCP client names of the new agents", () => {
  it("are the hooks' agent ids", () => {
    expect(agentOf("copilot-cli")).toBe("copilot");
    expect(agentOf("gemini-cli-mcp-client")).toBe("gemini");
    expect(agentOf("opencode")).toBe("opencode");
  });
});
