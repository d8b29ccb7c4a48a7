import { HOOK_TIMEOUT_SECONDS } from "../agents.js";

/**
 * OpenCode has no command hooks; its plugins (JavaScript files in `~/.config/opencode/plugin/`, or a project's
 * `.opencode/plugin/`) get its events. Notify writes one plugin file of its own that runs `notify hook opencode
 * <event>` with a JSON payload on stdin, as the other agents run their hook commands, and removes it at uninstall
 * like a hook entry (installer.ts). What it hooks (docs/hooks.md, "OpenCode"):
 * - `tool.execute.before` for the tools that change something: the hook's `{"decision": "deny", "reason"}` throws,
 *   which blocks the call with the reason (OpenCode's plugin API); `allow` or no output lets it run.
 * - the `session.idle` event: the turn finished (a `completed` notification); `session.deleted`: the session ended.
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
const EVENTS = {
  "session.idle": ${words("session.idle")},
  "session.deleted": ${words("session.deleted")},
};

/** Runs Notify's hook with the payload on stdin; its stdout, or "" when it failed or took too long. */
function hook(argv, payload) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      return resolve("");
    }
    const timer = setTimeout(() => child.kill("SIGTERM"), TIMEOUT_MS);
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

export const NotifyPlugin = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (!GATED.has(input.tool)) return;
    const said = await hook(${words("tool.execute.before")}, {
      hook_event_name: "tool.execute.before",
      session_id: input.sessionID,
      tool_use_id: input.callID,
      cwd: directory,
      tool_name: input.tool,
      tool_input: output.args,
    });
    let decision;
    try {
      decision = JSON.parse(said);
    } catch {
      return;
    }
    if (decision?.decision === "deny") throw new Error(decision.reason ?? "Denied in Notify");
  },
  event: async ({ event }) => {
    const name = event?.type;
    if (!Object.hasOwn(EVENTS, name)) return;
    const session = event.properties?.sessionID ?? event.properties?.info?.id;
    await hook(EVENTS[name], {
      hook_event_name: name,
      session_id: session,
      cwd: directory,
    });
  },
});
`;
}
