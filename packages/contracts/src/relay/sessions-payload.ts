import { SESSION_STATES, type SessionDto } from "../sessions.js";
import { RELAY_CONTRACT_VERSION } from "./version.js";

/**
 * The sealed sessions summary a broker sends its phones (issue 37, item 1: "a Sessions view ... on the phone"). The
 * phone sees only sealed envelopes, so the broker sends what `GET /ui/api/sessions` lists, cut down, whenever it
 * changes (debounced); the phone keeps the latest one per installation (machine). The relay only stores the envelope.
 */
export interface SessionsPayload {
  payload_kind: "sessions";
  contract_version: typeof RELAY_CONTRACT_VERSION;
  /** The machine whose sessions these are (its host name, at most 100 characters). */
  machine: string;
  /** When the broker made this summary: the phone keeps the newest per installation. */
  sent_at: string;
  sessions: RelaySession[];
}

/** One session as the phone shows it: no working directory, the last message cut short. */
export type RelaySession = Pick<
  SessionDto,
  "id" | "agent" | "project" | "state" | "last_active_at" | "open_questions"
> & {
  last_message?: string;
};

/** At most this many sessions travel, the most recently active first. */
export const RELAY_SESSIONS_MAX = 50;
/** A last message travels cut to this many characters. */
export const RELAY_SESSION_MESSAGE_MAX = 200;
/** Ended sessions travel for this long after they ended (the phone's list says what just ended, not a week). */
export const RELAY_SESSIONS_ENDED_FOR_MS = 24 * 3600 * 1000;

/** The payload for `sessions` (newest first, as listed), as of `nowMs`. */
export function sessionsPayload(sessions: readonly SessionDto[], machine: string, nowMs: number): SessionsPayload {
  const kept = sessions
    .filter(
      (session) =>
        session.state !== "ended" || Date.parse(session.last_active_at) >= nowMs - RELAY_SESSIONS_ENDED_FOR_MS,
    )
    .slice(0, RELAY_SESSIONS_MAX)
    .map((session): RelaySession => {
      const row: RelaySession = {
        id: session.id,
        agent: session.agent,
        state: session.state,
        last_active_at: session.last_active_at,
        open_questions: session.open_questions,
      };
      if (session.project !== undefined) row.project = session.project;
      const said = session.last_message?.trim().split("\n")[0]?.trim();
      if (said) row.last_message = Array.from(said).slice(0, RELAY_SESSION_MESSAGE_MAX).join("");
      return row;
    });
  return {
    payload_kind: "sessions",
    contract_version: RELAY_CONTRACT_VERSION,
    machine: Array.from(machine).slice(0, 100).join(""),
    sent_at: new Date(nowMs).toISOString(),
    sessions: kept,
  };
}

/** A decrypted payload that is a sessions summary this contract version can show; undefined otherwise. */
export function asSessionsPayload(value: unknown): SessionsPayload | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const payload = value as Partial<SessionsPayload>;
  if (payload.payload_kind !== "sessions" || payload.contract_version !== RELAY_CONTRACT_VERSION) return undefined;
  if (typeof payload.machine !== "string" || typeof payload.sent_at !== "string") return undefined;
  if (!Array.isArray(payload.sessions)) return undefined;
  const sessions = payload.sessions.filter(
    (session): session is RelaySession =>
      session !== null &&
      typeof session === "object" &&
      typeof session.id === "string" &&
      typeof session.agent === "string" &&
      (SESSION_STATES as readonly unknown[]).includes(session.state) &&
      typeof session.last_active_at === "string" &&
      typeof session.open_questions === "number",
  );
  return { ...payload, sessions } as SessionsPayload;
}
