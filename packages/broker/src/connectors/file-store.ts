import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const sha256 = (bytes: Buffer | string): string => createHash("sha256").update(bytes).digest("hex");

/**
 * Writes through a temporary file and a rename, so an agent never reads half a file. The file keeps its mode (an
 * owner's 0600 settings file stays 0600); a new file is 0600: agent files, copies and state hold the router key and
 * the owner's header values.
 */
export function writeAtomically(file: string, content: string | Buffer): void {
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
  const temporary = join(dirname(file), `.${Date.now()}-${process.pid}.notify-tmp`);
  writeFileSync(temporary, content, { mode });
  renameSync(temporary, file);
}

/** A file's bytes, or undefined when it does not exist. */
export const readIfExists = (file: string): Buffer | undefined => (existsSync(file) ? readFileSync(file) : undefined);

/** A JSON document kept in the data dir, read whole and written atomically. */
export function readJsonFile<T>(file: string, fallback: T): T {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return fallback;
  }
}

export function writeJsonFile(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeAtomically(file, `${JSON.stringify(value, null, 2)}\n`);
}
