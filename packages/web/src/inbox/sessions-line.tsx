import { SESSION_STATES, type SessionDto, sessionsSummary } from "@notify/contracts/sessions";
import { useEffect, useState } from "react";
import { AgentText } from "../agent-text.js";
import { api } from "../api/client.js";
import { shortTime } from "../format.js";

/** The sessions are read again this often (an agent working shows no inbox event), and on every inbox change. */
const REFRESH_MS = 15_000;

/** Waiting sessions first (what the person came for), then by how alive they are; most recent first within. */
const STATE_ORDER: readonly SessionDto["state"][] = [
  "waiting",
  ...SESSION_STATES.filter((state) => state !== "waiting"),
];

const STATE_WORDS: Record<SessionDto["state"], string> = {
  waiting: "waits on you",
  working: "working",
  idle: "idle",
  finished: "finished",
  ended: "ended",
};

/**
 * The line at the top of the inbox (issue 37, item 1; docs/api.md, "Sessions"): which agents wait on the person, which
 * work, which are done, and behind "Sessions" the list itself (agent, project, state, open questions, last activity,
 * last message). Read from GET /ui/api/sessions on load, on every inbox change and every 15 s.
 */
export function SessionsLine({ version }: { version: string }) {
  const [sessions, setSessions] = useState<SessionDto[]>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` changes when the inbox does: read again
  useEffect(() => {
    let live = true;
    const load = () =>
      api.sessions().then(
        (reply) => {
          if (live) setSessions(reply.sessions);
        },
        () => undefined,
      );
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [version]);
  const summary = sessions === undefined ? undefined : sessionsSummary(sessions);
  if (sessions === undefined || summary === undefined) return null;
  const waiting = sessions.some((session) => session.state === "waiting");
  return (
    <details className={`sessions-line${waiting ? " sessions-waiting" : ""}`}>
      <summary>
        <span className="sessions-summary">{summary}</span> <span className="muted">· Sessions</span>
      </summary>
      <ul className="sessions-list" aria-label="Agent sessions">
        {[...sessions]
          .sort((a, b) => STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state))
          .map((session) => (
            <li key={session.id} className={`session session-${session.state}`}>
              <span className={`session-state state-${session.state}`}>{STATE_WORDS[session.state]}</span>{" "}
              <strong>
                <AgentText text={session.agent} />
              </strong>
              {session.project !== undefined && (
                <>
                  {" "}
                  <span className="muted">in</span> <AgentText text={session.project} />
                </>
              )}
              {session.open_questions > 0 && (
                <span className="session-open">
                  {" "}
                  · {session.open_questions} open {session.open_questions === 1 ? "question" : "questions"}
                </span>
              )}{" "}
              <span className="muted">
                · last active <time dateTime={session.last_active_at}>{shortTime(session.last_active_at)}</time>
              </span>
              {session.last_message !== undefined && (
                <p className="session-message">
                  <AgentText text={session.last_message.split("\n")[0] ?? ""} />
                </p>
              )}
            </li>
          ))}
      </ul>
    </details>
  );
}
