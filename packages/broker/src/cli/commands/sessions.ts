import { type SessionDto, sessionsSummary } from "@notify/contracts/sessions";
import { terminalText } from "@notify/contracts/text";
import { type ClientOptions, createClient, printJson } from "../../client/client.js";

export interface SessionsOptions extends ClientOptions {
  json?: boolean | undefined;
}

/** How long ago, in the largest whole unit: `42s`, `5m`, `3h`, `2d`. */
function ago(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/**
 * `notify sessions`: the agent sessions the broker has heard of, the most recently active first (GET /v1/sessions;
 * docs/cli.md). One line each: state, agent, project, open questions, last activity, the last message's first line.
 * A summary line ("2 agents wait on you, 3 working") goes to stderr; `--json` prints `{sessions: [...]}`.
 */
export async function sessions(options: SessionsOptions): Promise<void> {
  const client = createClient(options);
  const { sessions: list } = await client.request<{ sessions: SessionDto[] }>("GET", "/v1/sessions");
  if (options.json) {
    printJson({ sessions: list });
    return;
  }
  const summary = sessionsSummary(list) ?? (list.length === 0 ? "no agent sessions" : `${list.length} ended`);
  process.stderr.write(`notify: ${summary}\n`);
  const now = Date.now();
  for (const session of list) {
    const open = session.open_questions > 0 ? `${session.open_questions} open` : "";
    const message = terminalText((session.last_message ?? "").split("\n")[0] ?? "");
    process.stdout.write(
      `${session.state.padEnd(8)} ${terminalText(session.agent).padEnd(12)} ${terminalText(session.project ?? "-").padEnd(20)} ${open.padEnd(7)} ${ago(session.last_active_at, now).padStart(4)}  ${message}\n`,
    );
  }
}
