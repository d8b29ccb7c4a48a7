/**
 * The agent sessions the broker has heard of (issue 37, item 1; docs/api.md, "Sessions"): which agents work, which
 * wait on the person, which are done, on this machine. Zod-free, shared by the broker, the CLI, the web page and the
 * phone.
 */

/** A session's state as shown: `idle` is a `working` session with no event for SESSION_IDLE_AFTER_MS. */
export const SESSION_STATES = ["working", "waiting", "idle", "finished", "ended"] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** A working session with no event for this long shows as idle. */
export const SESSION_IDLE_AFTER_MS = 30 * 60 * 1000;
/** A session is forgotten this long after its last event (an ended one, and one that never said it ended). */
export const SESSION_KEEP_MS = 7 * 24 * 3600 * 1000;

/** One session, as GET /ui/api/sessions and `notify sessions --json` show it. */
export interface SessionDto {
  id: string;
  agent: string;
  project?: string;
  cwd?: string;
  /** The machine the broker runs on (its host name). */
  machine: string;
  state: SessionState;
  /** The agent's last message (a finished turn's), or what it last asked. */
  last_message?: string;
  started_at: string;
  last_active_at: string;
  /** Questions of this session still open. */
  open_questions: number;
}

/** What an event says about its session: the person was prompted or a tool ran, it asks, it stopped, it ended. */
export const SESSION_SIGNALS = ["working", "asking", "finished", "ended"] as const;
export type SessionSignal = (typeof SESSION_SIGNALS)[number];

/**
 * The sessions in one line, as the web page's inbox and `notify sessions` say it: "2 agents wait on you, 3 working,
 * 1 idle, 4 finished" (only the states there are; ended sessions not counted). Undefined when no session is live.
 */
export function sessionsSummary(sessions: readonly Pick<SessionDto, "state">[]): string | undefined {
  const count = (state: SessionState) => sessions.filter((session) => session.state === state).length;
  const waiting = count("waiting");
  const parts = [
    waiting > 0 ? `${waiting} ${waiting === 1 ? "agent waits" : "agents wait"} on you` : "",
    count("working") > 0 ? `${count("working")} working` : "",
    count("idle") > 0 ? `${count("idle")} idle` : "",
    count("finished") > 0 ? `${count("finished")} finished` : "",
  ].filter((part) => part !== "");
  return parts.length > 0 ? parts.join(", ") : undefined;
}

// The sealed summary a broker sends its phones (relay/sessions-payload.ts), under this module's name.
export * from "./relay/sessions-payload.js";
