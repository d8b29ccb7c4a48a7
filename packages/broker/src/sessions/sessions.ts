import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  SESSION_IDLE_AFTER_MS,
  SESSION_KEEP_MS,
  type SessionDto,
  type SessionSignal,
  type SessionState,
} from "@notify/contracts/sessions";
import type { DomainBus } from "../domain/bus.js";
import { type Clock, isoTime } from "../domain/clock.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { InteractionDto } from "../interactions/types.js";
import type { NotificationDto } from "../notifications/types.js";
import { takeObservations, watchJournal } from "./journal.js";

/** What one event says about its session (hooks, ARC senders with a session id). */
export interface SessionObservation {
  agent: string;
  sessionId: string;
  signal: SessionSignal;
  project?: string;
  cwd?: string;
  lastMessage?: string;
}

/** At most this many sessions are listed, the most recently active first. */
const LIST_LIMIT = 500;
/** A stored last message is cut to this many characters (the list shows its first line). */
const MESSAGE_MAX = 500;

interface Row {
  id: string;
  agent: string;
  session_id: string;
  project: string | null;
  cwd: string | null;
  signal: SessionSignal;
  last_message: string | null;
  started_ms: number;
  last_active_ms: number;
}

/**
 * The agent sessions this broker has heard of (issue 37, item 1; docs/api.md, "Sessions"). Each event upserts its
 * session with what the event says (working, asking, finished, ended); the state shown is derived when read: a
 * session with an open question waits on the person whatever its last event, a working one quiet for 30 minutes is
 * idle. Sessions are forgotten 7 days after their last event.
 */
export class SessionRegistry {
  private readonly upsert: StatementSync;
  private readonly touchRow: StatementSync;
  private readonly changeListeners: (() => void)[] = [];
  private readonly prune: StatementSync;
  private readonly select: StatementSync;
  private readonly openCounts: StatementSync;
  private lastPruneMs = 0;

  constructor(
    db: DatabaseSync,
    private readonly clock: Clock,
    private readonly unit: UnitOfWork,
    /** Where command hooks leave their observations (journal.ts); absent: only the http hook and the API record. */
    private readonly dataDir?: string,
    private readonly machine: string = hostname(),
  ) {
    this.upsert = db.prepare(`
      INSERT INTO agent_sessions (id, agent, session_id, project, cwd, signal, last_message, started_ms, last_active_ms)
      VALUES (:id, :agent, :session_id, :project, :cwd, :signal, :last_message, :now, :now)
      ON CONFLICT (agent, session_id) DO UPDATE SET
        project = COALESCE(excluded.project, agent_sessions.project),
        cwd = COALESCE(excluded.cwd, agent_sessions.cwd),
        signal = CASE WHEN excluded.last_active_ms >= agent_sessions.last_active_ms
          THEN excluded.signal ELSE agent_sessions.signal END,
        last_message = COALESCE(excluded.last_message, agent_sessions.last_message),
        last_active_ms = MAX(excluded.last_active_ms, agent_sessions.last_active_ms)`);
    // What a question or a notice says: the session is alive (and its last words), not what it does now.
    this.touchRow = db.prepare(`
      INSERT INTO agent_sessions (id, agent, session_id, project, cwd, signal, last_message, started_ms, last_active_ms)
      VALUES (:id, :agent, :session_id, :project, :cwd, :signal, :last_message, :now, :now)
      ON CONFLICT (agent, session_id) DO UPDATE SET
        project = COALESCE(excluded.project, agent_sessions.project),
        cwd = COALESCE(excluded.cwd, agent_sessions.cwd),
        last_message = COALESCE(excluded.last_message, agent_sessions.last_message),
        last_active_ms = MAX(excluded.last_active_ms, agent_sessions.last_active_ms)`);
    this.prune = db.prepare("DELETE FROM agent_sessions WHERE last_active_ms < ?");
    this.select = db.prepare(
      `SELECT id, agent, session_id, project, cwd, signal, last_message, started_ms, last_active_ms
       FROM agent_sessions ORDER BY last_active_ms DESC LIMIT ${LIST_LIMIT}`,
    );
    this.openCounts = db.prepare(
      `SELECT agent, session_id, COUNT(*) AS open FROM interactions
       WHERE status = 'pending' AND session_id IS NOT NULL GROUP BY agent, session_id`,
    );
  }

  /** Records what an event says about its session (`atMs`: when it happened, now by default). */
  observe(observation: SessionObservation, atMs?: number): void {
    this.write(this.upsert, observation, atMs);
  }

  /**
   * Records that a session spoke without saying what it does now (a question it asks, a notice it sends): a session
   * heard of for the first time starts with `observation.signal`; a known one keeps its signal (a follow-up asked
   * after a finished turn leaves it finished once answered or expired; while it is open, the session waits).
   */
  touch(observation: SessionObservation, atMs?: number): void {
    this.write(this.touchRow, observation, atMs);
  }

  /** Runs `listener` after each commit that changed a session (the phone's summary: relay-publisher.ts). */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /**
   * Sessions from every producer, not only the hooks (issue 37, item 1): a question with a session id (an MCP
   * client's `ask_person`, an ARC sender's, a hook's follow-up) and an ARC event whose context names a session. A
   * completion says the turn finished; anything else only that the session lives. Runs inside the recording unit; a
   * failure here loses the observation, never the event.
   */
  subscribe(bus: DomainBus): void {
    bus.onRecorded("interaction.created", (interaction) => this.safely(() => this.heardQuestion(interaction)));
    bus.onRecorded("notification.created", (notification) => this.safely(() => this.heardNotice(notification)));
    bus.onRecorded("notification.changed", (notification, change) => {
      if (change.cause === "refresh") this.safely(() => this.heardNotice(notification));
    });
    // A question opened or settled changes a session's state (open questions) without a session event.
    bus.on("interaction.created", (interaction) => {
      if (interaction.session_id !== undefined) this.changed();
    });
    bus.on("interaction.changed", (interaction) => {
      if (interaction.session_id !== undefined) this.changed();
    });
  }

  private heardQuestion(interaction: InteractionDto): void {
    if (interaction.session_id === undefined) return;
    this.touch({
      agent: interaction.agent,
      sessionId: interaction.session_id,
      signal: "asking",
      ...(interaction.project !== undefined ? { project: interaction.project } : {}),
      lastMessage: interaction.prompt,
    });
  }

  private heardNotice(notification: NotificationDto): void {
    const arc = notification.metadata?.arc as { session_id?: unknown; kind?: unknown } | undefined;
    const sessionId = arc?.session_id;
    if (typeof sessionId !== "string" || sessionId === "" || Array.from(sessionId).length > 100) return;
    const observation: SessionObservation = {
      agent: notification.agent,
      sessionId,
      signal: "working",
      ...(notification.project !== undefined ? { project: notification.project } : {}),
      ...(notification.cwd !== undefined ? { cwd: notification.cwd } : {}),
    };
    if (arc?.kind === "completion")
      this.observe({ ...observation, signal: "finished", lastMessage: notification.message });
    else this.touch(observation);
  }

  private safely(work: () => void): void {
    try {
      work();
    } catch {
      // A session row is a status display: the question or notice goes on without it.
    }
  }

  private changed(): void {
    for (const listener of this.changeListeners) {
      try {
        listener();
      } catch {}
    }
  }

  private write(statement: StatementSync, observation: SessionObservation, atMs?: number): void {
    const now = Math.min(atMs ?? this.clock.now(), this.clock.now());
    if (now - this.lastPruneMs > 60_000) {
      this.unit.run(() => this.prune.run(now - SESSION_KEEP_MS));
      this.lastPruneMs = now;
    }
    const message = observation.lastMessage?.trim();
    this.unit.run(() => {
      statement.run({
        id: sessionPublicId(observation.agent, observation.sessionId),
        agent: observation.agent,
        session_id: observation.sessionId,
        project: observation.project ?? null,
        cwd: observation.cwd ?? null,
        signal: observation.signal,
        last_message: message ? Array.from(message).slice(0, MESSAGE_MAX).join("") : null,
        now,
      });
      if (this.changeListeners.length > 0) this.unit.afterCommit(() => this.changed());
    });
  }

  /** Takes in what command hooks left in the journal (journal.ts), in one unit of work. */
  ingest(): void {
    if (this.dataDir === undefined) return;
    const entries = takeObservations(this.dataDir);
    if (entries.length === 0) return;
    this.unit.run(() => {
      for (const entry of entries) this.observe(entry, entry.at);
    });
  }

  /**
   * Takes the journal in every `everyMs` too (not only when sessions are listed), so it never grows to its cap and
   * loses a session's last events while nobody looks. Returns the stop.
   */
  ingestEvery(everyMs: number): () => void {
    const take = () => {
      try {
        this.ingest();
      } catch {
        // The database closing under a late tick: the next start takes the journal in.
      }
    };
    const timer = setInterval(take, everyMs);
    timer.unref();
    // And soon after a command hook appends (inotify, no polling): the phone's summary follows the session at once.
    const watcher = this.dataDir === undefined ? undefined : watchJournal(this.dataDir, take);
    return () => {
      clearInterval(timer);
      watcher?.();
    };
  }

  /** Every session kept, the most recently active first, with its state as of now. */
  list(): SessionDto[] {
    this.ingest();
    const now = this.clock.now();
    const open = new Map<string, number>();
    for (const row of this.openCounts.all() as { agent: string; session_id: string; open: number }[]) {
      open.set(`${row.agent}\0${row.session_id}`, row.open);
    }
    return (this.select.all() as unknown as Row[])
      .filter((row) => row.last_active_ms >= now - SESSION_KEEP_MS)
      .map((row) => {
        const questions = open.get(`${row.agent}\0${row.session_id}`) ?? 0;
        const dto: SessionDto = {
          id: row.id,
          agent: row.agent,
          machine: this.machine,
          state: stateOf(row.signal, questions, now - row.last_active_ms),
          started_at: isoTime(row.started_ms),
          last_active_at: isoTime(row.last_active_ms),
          open_questions: questions,
        };
        if (row.project !== null) dto.project = row.project;
        if (row.cwd !== null) dto.cwd = row.cwd;
        if (row.last_message !== null) dto.last_message = row.last_message;
        return dto;
      });
  }
}

/** The state shown: an open question means waiting (unless the session ended); quiet work is idle. */
export function stateOf(signal: SessionSignal, openQuestions: number, quietMs: number): SessionState {
  if (signal === "ended") return "ended";
  if (openQuestions > 0) return "waiting";
  if (signal === "finished") return "finished";
  // Asked, and nothing open any more: answered (here or in the terminal), so the agent works on.
  return quietMs > SESSION_IDLE_AFTER_MS ? "idle" : "working";
}

/** A session's public id: stable per agent and session, and naming neither. */
export function sessionPublicId(agent: string, sessionId: string): string {
  return `ses_${createHash("sha256").update(`${agent}\0${sessionId}`).digest("hex").slice(0, 24)}`;
}
