import { unlinkSync } from "node:fs";
import type { AgentAccount } from "./accounts.js";
import type { BackupStore } from "./backups.js";
import type { FileRecord } from "./connection-state.js";
import { readIfExists, sha256, writeAtomically } from "./file-store.js";

/**
 * Writes an agent file for a connection: a copy of the current file goes into the backups first, and the record
 * keeps what a byte-for-byte disconnect needs (the copy from before Notify's first write, while nobody else has
 * changed the file since).
 */
export function writeAgentFile(
  backups: BackupStore,
  account: AgentAccount,
  file: string,
  text: string,
  record: FileRecord | undefined,
  reason: string,
): FileRecord {
  const current = readIfExists(file);
  if (current !== undefined && current.toString("utf8") === text) {
    return record ?? { existed: true, writtenSha256: sha256(current) };
  }
  const taken = current !== undefined ? backups.take(account.agent, account.id, file, reason) : undefined;
  writeAtomically(file, text);
  if (record === undefined) {
    return { existed: current !== undefined, original: taken?.id, writtenSha256: sha256(text) };
  }
  // The owner changed the file after Notify's last write: the old copy no longer holds everything to keep.
  const untouched = current !== undefined && sha256(current) === record.writtenSha256;
  return { existed: record.existed, original: untouched ? record.original : undefined, writtenSha256: sha256(text) };
}

/**
 * Takes Notify's part out of an agent file. Untouched since Notify's last write: the bytes from before the first
 * write come back (or the file goes, when Notify created it). Changed since: `strip` removes only Notify's part.
 */
export function releaseAgentFile(
  backups: BackupStore,
  account: AgentAccount,
  file: string,
  record: FileRecord,
  strip: (text: string) => string,
): "restored" | "removed" | "stripped" | "unchanged" {
  const current = readIfExists(file);
  if (current === undefined) return "unchanged";
  if (sha256(current) === record.writtenSha256) {
    const original = record.original === undefined ? undefined : backups.bytesOf(record.original);
    if (record.existed && original !== undefined) {
      backups.take(account.agent, account.id, file, "disconnect");
      writeAtomically(file, original);
      return "restored";
    }
    if (!record.existed) {
      backups.take(account.agent, account.id, file, "disconnect");
      unlinkSync(file);
      return "removed";
    }
  }
  const text = current.toString("utf8");
  const stripped = strip(text);
  if (stripped === text) return "unchanged";
  backups.take(account.agent, account.id, file, "disconnect");
  if (!record.existed && stripped.trim() === "") {
    unlinkSync(file);
    return "removed";
  }
  writeAtomically(file, stripped);
  return "stripped";
}
