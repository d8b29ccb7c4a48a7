import { HOOK_TIMEOUT_SECONDS } from "../agents.js";
import { STOP_TIMEOUT_SECONDS } from "./entries.js";

/**
 * OpenCode has no command hooks; its plugins (JavaScript files in `~/.config/opencode/plugin/`, or a project's
 * `.opencode/plugin/`) get its events. Notify writes one plugin file of its own that runs `notify hook opencode
 * <event>` with a JSON payload on stdin, as the other agents run their hook commands, and removes it at uninstall
 * like a hook entry (installer.ts). What it hooks (docs/hooks.md, "OpenCode"):
 * - `tool.execute.before` for the tools that change something: the hook's `{"decision": "deny", "reason"}` throws,
 *   which blocks the call with the reason (OpenCode's plugin API); `allow` or no output lets it run.
 * - the `session.idle` event: the turn finished (a `completed` notification, with the last text the assistant
 *   wrote, collected from the `message.*` events). Where the session lives on after it (the TUI, `opencode serve`,
 *   not a one-shot `opencode run`, which exits at idle), the hook may wait for a follow-up: its `{"decision":
 *   "block", "reason"}` becomes the session's next prompt through the plugin's client (`session.promptAsync`).
 * - `chat.message` (a prompt sent into a session: the person's next prompt withdraws an open follow-up) and the
 *   `session.deleted` event (the session ended).
 * OpenCode calls a plugin's event handler without waiting for it, so a hook that waits holds nothing up.
 */
/** The first line of Notify's plugin file: what marks it as Notify's (never a file of the person's). */
export const OPENCODE_PLUGIN_MARK = "// Notify's OpenCode plugin (notify hooks install opencode)";

/** OpenCode's tools that change something: those Notify gates (its shell and file writers). */
export const OPENCODE_GATED_TOOLS = ["bash", "edit", "write", "patch", "multiedit"] as const;

/** True for a plugin file Notify wrote. */
export const isNotifyPlugin = (text: string): boolean => text.replace(/^\uFEFF/, "").startsWith(OPENCODE_PLUGIN_MARK);

/** The plugin's source: `program` and `extra` are the words that start `notify hook opencode <event>`. */
export function opencodePlugin(program: string[], extra: string[] = []): string {
  const words = (event: string): string => JSON.stringify([...program, "hook", "opencode", event, ...extra]);
  return `${OPENCODE_PLUGIN_MARK}; \`notify hooks uninstall opencode\` removes it.
import { spawn } from "node:child_process";

const GATED = new Set(${JSON.stringify(OPENCODE_GATED_TOOLS)});
const TIMEOUT_MS = ${HOOK_TIMEOUT_SECONDS * 1000};
const STOP_TIMEOUT_MS = ${STOP_TIMEOUT_SECONDS * 1000};
// A one-shot \`opencode run\` (not --attach) exits once its session is idle: nothing could take a follow-up there.
const ARGS = process.argv.slice(2);
const ONE_SHOT =
  ARGS.find((arg) => !arg.startsWith("-")) === "run" && !ARGS.some((arg) => arg === "--attach" || arg.startsWith("--attach="));

/** Runs Notify's hook with the payload on stdin; its stdout, or "" when it failed or took too long. */
function hook(argv, payload, timeoutMs = TIMEOUT_MS) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      return resolve("");
    }
    const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk));
    child.on("error", () => resolve(""));
    child.on("close", () => {
      clearTimeout(timer);
      resolve(out);
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(JSON.stringify(payload));
  });
}

const said = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export const NotifyPlugin = async ({ client, directory }) => {
  const roles = new Map(); // message id -> role
  const lastText = new Map(); // session id -> the assistant's last text
  const continued = new Set(); // sessions whose next idle ends a turn a follow-up started
  return {
    "tool.execute.before": async (input, output) => {
      if (!GATED.has(input.tool)) return;
      const decision = said(
        await hook(${words("tool.execute.before")}, {
          hook_event_name: "tool.execute.before",
          session_id: input.sessionID,
          tool_use_id: input.callID,
          cwd: directory,
          tool_name: input.tool,
          tool_input: output.args,
        }),
      );
      if (decision?.decision === "deny") throw new Error(decision.reason ?? "Denied in Notify");
    },
    "chat.message": async (input) => {
      await hook(${words("chat.message")}, { hook_event_name: "chat.message", session_id: input.sessionID, cwd: directory });
    },
    event: async ({ event }) => {
      const name = event?.type;
      const properties = event?.properties ?? {};
      if (name === "message.updated" && properties.info?.id) roles.set(properties.info.id, properties.info.role);
      if (name === "message.part.updated") {
        const part = properties.part;
        if (part?.type === "text" && !part.synthetic && roles.get(part.messageID) === "assistant" && part.text?.trim()) {
          lastText.set(part.sessionID, part.text);
        }
      }
      if (name === "session.deleted") {
        const session = properties.sessionID ?? properties.info?.id;
        await hook(${words("session.deleted")}, { hook_event_name: name, session_id: session, cwd: directory });
      }
      if (name !== "session.idle") return;
      const session = properties.sessionID;
      const wasContinued = continued.delete(session);
      const answer = said(
        await hook(
          ${words("session.idle")},
          {
            hook_event_name: name,
            session_id: session,
            cwd: directory,
            last_assistant_message: lastText.get(session),
            stop_hook_active: wasContinued,
            can_continue: !ONE_SHOT,
          },
          STOP_TIMEOUT_MS,
        ),
      );
      if (ONE_SHOT || answer?.decision !== "block" || typeof answer.reason !== "string") return;
      continued.add(session);
      try {
        await client.session.promptAsync({ path: { id: session }, body: { parts: [{ type: "text", text: answer.reason }] } });
      } catch {
        continued.delete(session);
      }
    },
  };
};
`;
}
