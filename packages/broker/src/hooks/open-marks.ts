import { createHash } from "node:crypto";
import { existsSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../fs/private-files.js";
import type { AgentId } from "./agents.js";

/**
 * Issue 33, item 3: an event that only reports (PostToolUse, UserPromptSubmit, Stop) makes no request at all to
 * find open questions when none can be open. A hook marks the agent session in the data dir (an empty file under
 * `hooks/open/`) before it opens a question; a session without the mark has never had a hook question, so there is
 * nothing to withdraw and the broker is not asked. A mark is only a hint that a question may be open: with it the
 * hook asks the broker as before. A turn's end (Stop, UserPromptSubmit, SessionEnd) clears a mark older than its own
 * look at the broker, once that look found none open.
 */
const dirOf = (dataDir: string): string => join(dataDir, "hooks", "open");
const markOf = (dataDir: string, agent: AgentId, session: string): string =>
  join(dirOf(dataDir), createHash("sha256").update(`${agent}\0${session}`).digest("hex").slice(0, 32));

export class OpenMarks {
  constructor(private readonly dataDir: string) {}

  /** Before a hook opens a question in `session`. */
  mark(agent: AgentId, session: string): void {
    ensurePrivateDir(this.dataDir);
    ensurePrivateDir(join(this.dataDir, "hooks"));
    writePrivateFile(markOf(this.dataDir, agent, session), "");
  }

  /** False only when no hook ever opened a question in `session` (or its mark was cleared since). */
  mayHaveOpen(agent: AgentId, session: string): boolean {
    return existsSync(markOf(this.dataDir, agent, session));
  }

  /** Clears the mark when it is older than `sinceMs` (no question was opened after the broker said none is open). */
  clearIfOlder(agent: AgentId, session: string, sinceMs: number): void {
    const path = markOf(this.dataDir, agent, session);
    try {
      if (statSync(path).mtimeMs < sinceMs) unlinkSync(path);
    } catch {}
  }
}
