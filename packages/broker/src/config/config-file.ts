import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { resolveLinks } from "../fs/edit-file.js";
import { ensurePrivateDir } from "../fs/private-files.js";

export const CONFIG_FILE_NAME = "config.json";

/** A config.json that cannot be used. The broker stops with this message and never overwrites the file. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export function configPath(dataDir: string): string {
  return join(dataDir, CONFIG_FILE_NAME);
}

/**
 * Reads config.json as a plain object. A missing file is an empty config; anything else that is not a JSON object
 * is a ConfigError naming the file.
 */
export function readConfigFile(dataDir: string): Record<string, unknown> {
  const path = configPath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ConfigError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? "read error"}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `${path} is not valid JSON (${(error as Error).message}); fix or move it away, the broker will not overwrite it`,
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`${path} must hold a JSON object; fix or move it away, the broker will not overwrite it`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Writes config.json atomically: a temp file in the same directory, fsync, rename. Readable by the user only, as it
 * holds the bearer token. Every key of `contents` is written, so unknown keys survive a round trip.
 */
export function writeConfigFile(dataDir: string, contents: Record<string, unknown>): void {
  ensurePrivateDir(dataDir);
  // A config.json kept elsewhere through a symlink stays a link: the file it points at is replaced (still 0600).
  const path = resolveLinks(configPath(dataDir));
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temp, "wx", 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${JSON.stringify(contents, null, 2)}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
}

/** Read-modify-write of config.json; `change` edits the object in place. Unknown keys are preserved. */
export function updateConfigFile(dataDir: string, change: (contents: Record<string, unknown>) => void): void {
  const contents = readConfigFile(dataDir);
  change(contents);
  writeConfigFile(dataDir, contents);
}
