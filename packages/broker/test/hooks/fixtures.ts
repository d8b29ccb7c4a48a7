/**
 * The agents' hook inputs as their documentation shows them. Each fixture names the page (and section) it comes
 * from; values are the documented example values or placeholders of the documented type.
 */
export interface HookFixture {
  source: string;
  input: Record<string, unknown>;
}

const CLAUDE_HOOKS = "https://code.claude.com/docs/en/hooks";
const CODEX_HOOKS = "https://developers.openai.com/codex/hooks";
const CODEX_SCHEMA =
  "https://github.com/openai/codex/blob/main/codex-rs/hooks/schema/generated/permission-request.command.input.schema.json";

const claudeCommon = {
  session_id: "abc123",
  transcript_path: "/Users/dev/.claude/projects/my-project/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
  cwd: "/Users/dev/my-project",
  permission_mode: "default",
};

export const claude = {
  permissionRequestBash: {
    source: `${CLAUDE_HOOKS} (Hook input: PermissionRequest input; "runs when the user is shown a permission dialog")`,
    input: {
      ...claudeCommon,
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "rm -rf node_modules", description: "Remove node_modules directory" },
      permission_suggestions: [{ type: "toolAlwaysAllow", tool: "Bash" }],
    },
  },
  preToolUseWrite: {
    source: `${CLAUDE_HOOKS} (Hook input: PreToolUse input, the Write example)`,
    input: {
      ...claudeCommon,
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: "/path/to/file.txt", content: "file content" },
      tool_use_id: "toolu_01ABC123...",
    },
  },
  preToolUseWebFetch: {
    source: `${CLAUDE_HOOKS} (PreToolUse: WebFetch tool_input {url, prompt})`,
    input: {
      ...claudeCommon,
      hook_event_name: "PreToolUse",
      tool_name: "WebFetch",
      tool_input: { url: "https://example.com/api", prompt: "Extract the API endpoints" },
      tool_use_id: "toolu_01DEF456",
    },
  },
  postToolUseBash: {
    source: `${CLAUDE_HOOKS} (Hook input: PostToolUse input; tool_response added)`,
    input: {
      ...claudeCommon,
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf node_modules", description: "Remove node_modules directory" },
      tool_response: { stdout: "", stderr: "", interrupted: false },
      tool_use_id: "toolu_01ABC123...",
    },
  },
  notificationIdle: {
    source: `${CLAUDE_HOOKS} (Hook input: Notification input; matcher idle_prompt)`,
    input: {
      ...claudeCommon,
      hook_event_name: "Notification",
      message: "Claude is waiting for your input",
      notification_type: "idle_prompt",
    },
  },
  notificationPermission: {
    source: `${CLAUDE_HOOKS} (Notification input; matcher permission_prompt)`,
    input: {
      ...claudeCommon,
      hook_event_name: "Notification",
      message: "Claude needs your permission to use Bash",
      notification_type: "permission_prompt",
    },
  },
  stop: {
    source: `${CLAUDE_HOOKS} (Hook input: Stop input; stop_hook_active, last_assistant_message)`,
    input: {
      ...claudeCommon,
      hook_event_name: "Stop",
      stop_hook_active: false,
      last_assistant_message: "I've completed the refactoring. Here's a summary...",
    },
  },
} satisfies Record<string, HookFixture>;

const codexCommon = {
  session_id: "019a7d6c-0b3a-7f10-9a52-4c1e2f7d9b01",
  turn_id: "019a7d6c-2e44-7c21-8f3b-71a0d5e6c902",
  transcript_path: "/home/dev/.codex/sessions/2026/11/23/rollout.jsonl",
  cwd: "/home/dev/notify",
  model: "gpt-5",
  permission_mode: "default",
};

export const codex = {
  permissionRequestBash: {
    source: `${CODEX_HOOKS} (PermissionRequest) and ${CODEX_SCHEMA}`,
    input: {
      ...codexCommon,
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "rm -f /tmp/example.txt", description: "Remove the scratch file" },
    },
  },
  permissionRequestNetwork: {
    source: `${CODEX_HOOKS} (PermissionRequest: network approvals use tool_name NetworkAccess with the command)`,
    input: {
      ...codexCommon,
      hook_event_name: "PermissionRequest",
      tool_name: "NetworkAccess",
      tool_input: { command: "curl https://registry.npmjs.org/", description: "network-access registry.npmjs.org" },
    },
  },
  postToolUseBash: {
    source: `${CODEX_HOOKS} (PostToolUse: tool_name, tool_input, tool_response, tool_use_id)`,
    input: {
      ...codexCommon,
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -f /tmp/example.txt" },
      tool_response: "",
      tool_use_id: "call_Yx2",
    },
  },
  stop: {
    source: `${CODEX_HOOKS} (Stop: stop_hook_active, last_assistant_message)`,
    input: {
      ...codexCommon,
      hook_event_name: "Stop",
      stop_hook_active: false,
      last_assistant_message: "Removed the scratch file.",
    },
  },
  agentTurnComplete: {
    source:
      "https://developers.openai.com/codex/config-advanced (Notifications: `notify` receives one JSON argument, type agent-turn-complete)",
    input: {
      type: "agent-turn-complete",
      "thread-id": "b5f6c1c2-1111-2222-3333-444455556666",
      "turn-id": "12345",
      cwd: "/Users/alice/projects/example",
      "input-messages": ["Rename `foo` to `bar` and update the callsites."],
      "last-assistant-message": "Rename complete and verified `cargo build` succeeds.",
    },
  },
} satisfies Record<string, HookFixture>;
