import { appendFileSync, type FSWatcher, readFileSync, renameSync, statSync, unlinkSync, watch } from "node:fs";
import { join } from "node:path";
import { SESSION_SIGNALS, type SessionSignal } from "@notify/contracts/sessions";
import { ensurePrivateDir } from "../fs/private-files.js";
import type { SessionObservation } from "./sessions.js";

/**
 * How a command hook tells the broker what its event says about the session without a request (issue 33, item 3: an
 * event that only reports makes no request): one JSON line appended to `hooks/sessions.jsonl` in the data dir (an
 * append of a few hundred bytes, well under a millisecond). The broker takes the lines in when it lists sessions: it
 * renames the file, reads it whole and deletes it, so a hook appending meanwhile starts a new file. A line that does
 * not parse, or names an unknown signal, is skipped.
 */
const journalOf = (dataDir: string): string => join(dataDir, "hooks", "sessions.jsonl");

/** A journal grown past this many bytes (a broker that has not listed for a long time) takes no more lines. */
const JOURNAL_MAX_BYTES = 4 * 1024 * 1024;

export interface JournalEntry extends SessionObservation {
  /** When the event happened (ms since the epoch). */
  at: number;
}

/** Appends one observation (the command hook). Never throws: the event goes on without it. */
export function appendObservation(dataDir: string, entry: JournalEntry): void {
  try {
    const path = journalOf(dataDir);
    try {
      if (statSync(path).size > JOURNAL_MAX_BYTES) return;
    } catch {}
    ensurePrivateDir(dataDir);
    ensurePrivateDir(join(dataDir, "hooks"));
    appendFileSync(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  } catch {}
}

const isText = (value: unknown, max: number): value is string =>
  typeof value === "string" && value !== "" && Array.from(value).length <= max;

function entryOf(line: string): JournalEntry | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== "object") return undefined;
  const record = raw as Record<string, unknown>;
  if (!isText(record.agent, 100) || !isText(record.sessionId, 100)) return undefined;
  if (!(SESSION_SIGNALS as readonly unknown[]).includes(record.signal)) return undefined;
  if (typeof record.at !== "number" || !Number.isFinite(record.at)) return undefined;
  const entry: JournalEntry = {
    agent: record.agent,
    sessionId: record.sessionId,
    signal: record.signal as SessionSignal,
    at: record.at,
  };
  if (isText(record.project, 200)) entry.project = record.project;
  if (isText(record.cwd, 1024)) entry.cwd = record.cwd;
  if (isText(record.lastMessage, 500)) entry.lastMessage = record.lastMessage;
  return entry;
}

/** Takes every line appended so far (the broker), oldest first, and empties the journal. */
export function takeObservations(dataDir: string): JournalEntry[] {
  const path = journalOf(dataDir);
  const taking = `${path}.${process.pid}.taking`;
  try {
    renameSync(path, taking);
  } catch {
    return [];
  }
  try {
    // A hook that opened the file just before the rename appends to it still; a line that lands after this read is
    // lost (a status display can afford that microsecond window; a question never goes through here).
    return readFileSync(taking, "utf8")
      .split("\n")
      .map((line) => (line === "" ? undefined : entryOf(line)))
      .filter((entry): entry is JournalEntry => entry !== undefined);
  } finally {
    try {
      unlinkSync(taking);
    } catch {}
  }
}

/** A burst of hook events is taken in once, this long after its first append. */
const WATCH_SETTLE_MS = 250;

/**
 * Runs `take` shortly after a command hook appends to the journal (fs.watch on the hooks folder; while there is no
 * such folder, on the data dir until it appears). Returns the stop; a folder that cannot be watched leaves only the
 * broker's periodic take.
 */
export function watchJournal(dataDir: string, take: () => void): () => void {
  let hooks: FSWatcher | undefined;
  let parent: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  const soon = (): void => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      take();
    }, WATCH_SETTLE_MS);
    timer.unref();
  };
  const watchHooks = (): boolean => {
    try {
      hooks = watch(join(dataDir, "hooks"), { persistent: false }, (_event, name) => {
        if (name === "sessions.jsonl") soon();
      });
      hooks.on("error", () => hooks?.close());
      return true;
    } catch {
      return false;
    }
  };
  if (!watchHooks()) {
    try {
      parent = watch(dataDir, { persistent: false }, (_event, name) => {
        if (name !== "hooks" || hooks !== undefined || !watchHooks()) return;
        parent?.close();
        soon();
      });
      parent.on("error", () => parent?.close());
    } catch {}
  }
  return () => {
    clearTimeout(timer);
    hooks?.close();
    parent?.close();
  };
}
