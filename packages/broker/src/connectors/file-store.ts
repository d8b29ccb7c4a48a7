import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../fs/private-files.js";

export const sha256 = (bytes: Buffer | string): string => createHash("sha256").update(bytes).digest("hex");

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

/** Writes one of Notify's JSON files under `<dataDir>/connectors/`: 0600, in 0700 directories. */
export function writeJsonFile(file: string, value: unknown): void {
  ensurePrivateDir(dirname(dirname(file)));
  writePrivateFile(file, `${JSON.stringify(value, null, 2)}\n`);
}
