import { type RelaySession, SESSION_STATES, type SessionsPayload, sessionsSummary } from "@notify/contracts/sessions";
import { useState } from "react";
import { AgentText } from "./agent-text.js";

/** Waiting sessions first (what the person came for), then by how alive they are; most recent first within. */
const STATE_ORDER: readonly RelaySession["state"][] = [
  "waiting",
  ...SESSION_STATES.filter((state) => state !== "waiting"),
];

const STATE_WORDS: Record<RelaySession["state"], string> = {
  waiting: "waits on you",
  working: "working",
  idle: "idle",
  finished: "finished",
  ended: "ended",
};

/** "just now", "4 min ago", "2 h ago", "3 d ago": how long ago a session was last heard of. */
function ago(iso: string, nowMs: number): string {
  const minutes = Math.floor((nowMs - Date.parse(iso)) / 60_000);
  if (!(minutes >= 1)) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 24 ? `${hours} h ago` : `${Math.floor(hours / 24)} d ago`;
}

/** The line for all machines: one summary, or each machine's own when there are several ("laptop: 1 agent waits"). */
export function sessionsLine(machines: readonly SessionsPayload[]): string | undefined {
  if (machines.length <= 1) return sessionsSummary(machines[0]?.sessions ?? []);
  const parts = machines
    .map((machine) => {
      const summary = sessionsSummary(machine.sessions);
      return summary === undefined ? undefined : `${machine.machine}: ${summary}`;
    })
    .filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/**
 * The phone's Sessions view (issue 37, item 1): a calm line at the top of the inbox ("2 agents wait on you, 3 working",
 * per machine when there are several) and, on tap, the list: agent, project, machine, state, open questions, last
 * active, last message. Fed by each machine's newest sealed `sessions` summary; nothing shows before one arrived or
 * while every session has ended.
 */
export function SessionsView({ machines, now }: { machines: readonly SessionsPayload[]; now: number }) {
  const [open, setOpen] = useState(false);
  const line = sessionsLine(machines);
  const rows = machines
    .flatMap((machine) => machine.sessions.map((session) => ({ machine: machine.machine, session })))
    .sort(
      (a, b) =>
        STATE_ORDER.indexOf(a.session.state) - STATE_ORDER.indexOf(b.session.state) ||
        Date.parse(b.session.last_active_at) - Date.parse(a.session.last_active_at),
    );
  if (line === undefined && rows.length === 0) return null;
  const waiting = rows.some((row) => row.session.state === "waiting");
  const several = machines.length > 1;
  return (
    <section className={`sessions${waiting ? " sessions-waiting" : ""}`} aria-label="Agent sessions">
      <button type="button" className="sessions-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="sessions-summary">{line ?? "No agent at work"}</span>
        <span className="sessions-more">{open ? "Hide" : "Sessions"}</span>
      </button>
      {open && (
        <ul className="sessions-list">
          {rows.map(({ machine, session }) => (
            <li key={`${machine}\n${session.id}`} className={`session session-${session.state}`}>
              <div className="session-head">
                <strong>
                  <AgentText text={session.agent} />
                </strong>
                <span className={`session-state state-${session.state}`}>{STATE_WORDS[session.state]}</span>
              </div>
              <p className="session-where">
                {session.project !== undefined && <AgentText text={session.project} />}
                {session.project !== undefined && several && " · "}
                {several && <AgentText text={machine} />}
                {(session.project !== undefined || several) && " · "}
                {ago(session.last_active_at, now)}
                {session.open_questions > 0 &&
                  ` · ${session.open_questions} open ${session.open_questions === 1 ? "question" : "questions"}`}
              </p>
              {session.last_message !== undefined && (
                <p className="session-message">
                  <AgentText text={session.last_message} />
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
