import { createHash } from "node:crypto";
import { readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../fs/private-files.js";
import type { AgentId } from "./agents.js";

const dirOf = (dataDir: string): string => join(dataDir, "hooks", "follow-ups");
const fileOf = (dataDir: string, agent: AgentId, session: string): string =>
  join(dirOf(dataDir), createHash("sha256").update(`${agent}\0${session}`).digest("hex").slice(0, 32));

/**
 * How many follow-up replies in a row continued a session (`followUp.maxInARow`, docs/hooks.md, "Follow-ups"): a
 * small file per agent session under `hooks/follow-ups/` in the data dir. The agents' own flag says whether a Stop
 * comes from a turn a Stop hook continued (`stop_hook_active`); a Stop without it (the person typed a prompt) starts
 * the count again, so only an unattended chain of replies is counted.
 */
export class FollowUpCount {
  constructor(private readonly dataDir: string) {}

  /** Replies in a row before this Stop: 0 when the turn was not continued by a Stop hook (and the count restarts). */
  before(agent: AgentId, session: string, continued: boolean): number {
    const path = fileOf(this.dataDir, agent, session);
    if (!continued) {
      try {
        unlinkSync(path);
      } catch {}
      return 0;
    }
    try {
      const count = Number.parseInt(readFileSync(path, "utf8"), 10);
      return Number.isSafeInteger(count) && count > 0 ? count : 0;
    } catch {
      return 0;
    }
  }

  /** A reply continued the session: one more in a row. */
  replied(agent: AgentId, session: string, before: number): void {
    ensurePrivateDir(this.dataDir);
    ensurePrivateDir(join(this.dataDir, "hooks"));
    ensurePrivateDir(dirOf(this.dataDir));
    writePrivateFile(fileOf(this.dataDir, agent, session), String(before + 1));
  }
}
