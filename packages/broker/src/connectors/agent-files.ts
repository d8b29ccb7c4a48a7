import { EditConflictError, type EditOutcome, type EditPlan, editFile } from "../fs/edit-file.js";
import type { AgentAccount } from "./accounts.js";
import type { BackupStore } from "./backups.js";
import type { FileRecord } from "./connection-state.js";
import { ConnectorError } from "./connector-error.js";
import { sha256 } from "./file-store.js";

/** editFile (through symlinks, exact modes, no lost owner edit) with a refusal the API shows as a 409. */
function edit<T>(file: string, plan: (current: Buffer | undefined, mode: number | undefined) => EditPlan<T>) {
  try {
    return editFile(file, plan);
  } catch (error) {
    if (error instanceof EditConflictError) throw new ConnectorError(409, error.message);
    throw error;
  }
}

export interface AgentFileWrite {
  record: FileRecord;
  /** The file was readable by others and now holds the router key: Notify made it 0600 (the mode it had). */
  tightenedFrom?: number;
}

/**
 * Writes an agent file for a connection: `render` works out the file's new text from its current one (again, when
 * the owner changes the file meanwhile). A copy of the replaced bytes goes into the backups, and the record keeps
 * what a byte-for-byte disconnect needs (the copy from before Notify's first write, while nobody else has changed
 * the file since). The file holds the router key: one readable by others becomes 0600.
 */
export function writeAgentFile(
  backups: BackupStore,
  account: AgentAccount,
  file: string,
  render: (current: string | undefined) => string,
  record: FileRecord | undefined,
  reason: string,
): AgentFileWrite {
  const outcome: EditOutcome<string> = edit(file, (current, mode) => {
    const text = render(current?.toString("utf8"));
    if (current !== undefined && current.toString("utf8") === text) return { content: undefined, result: text };
    const open = mode !== undefined && (mode & 0o077) !== 0;
    return { content: text, mode: open ? 0o600 : undefined, result: text };
  });
  const { before, beforeMode } = outcome;
  if (!outcome.changed) {
    return { record: record ?? { existed: true, writtenSha256: sha256(before as Buffer) } };
  }
  const text = outcome.result;
  const taken = before !== undefined ? backups.takeBytes(account.agent, account.id, file, before, reason) : undefined;
  const tightened = beforeMode !== undefined && (beforeMode & 0o077) !== 0 ? beforeMode : undefined;
  let next: FileRecord;
  if (record === undefined) {
    next = { existed: before !== undefined, original: taken?.id, writtenSha256: sha256(text) };
    if (tightened !== undefined) next.mode = tightened;
  } else {
    // The owner changed the file after Notify's last write: the old copy no longer holds everything to keep.
    const untouched = before !== undefined && sha256(before) === record.writtenSha256;
    next = {
      existed: record.existed,
      original: untouched ? record.original : undefined,
      writtenSha256: sha256(text),
    };
    const mode = untouched ? record.mode : tightened;
    if (mode !== undefined) next.mode = mode;
  }
  return tightened !== undefined ? { record: next, tightenedFrom: tightened } : { record: next };
}

/**
 * Takes Notify's part out of an agent file. Untouched since Notify's last write: the bytes from before the first
 * write come back with their mode (or the file goes, when Notify created it). Changed since: `strip` removes only
 * Notify's part and the file keeps its mode.
 */
export function releaseAgentFile(
  backups: BackupStore,
  account: AgentAccount,
  file: string,
  record: FileRecord,
  strip: (text: string) => string,
): "restored" | "removed" | "stripped" | "unchanged" {
  const outcome = edit(file, (current) => {
    if (current === undefined) return { content: undefined, result: "unchanged" as const };
    if (sha256(current) === record.writtenSha256) {
      const original = record.original === undefined ? undefined : backups.bytesOf(record.original);
      if (record.existed && original !== undefined) {
        return { content: original, mode: record.mode, result: "restored" as const };
      }
      if (!record.existed) return { content: null, result: "removed" as const };
    }
    const text = current.toString("utf8");
    const stripped = strip(text);
    if (stripped === text) return { content: undefined, result: "unchanged" as const };
    if (!record.existed && stripped.trim() === "") return { content: null, result: "removed" as const };
    return { content: stripped, result: "stripped" as const };
  });
  if (outcome.changed && outcome.before !== undefined) {
    backups.takeBytes(account.agent, account.id, file, outcome.before, "disconnect");
  }
  return outcome.result;
}
