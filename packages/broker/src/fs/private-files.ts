import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Files and directories of Notify's own (the data dir, its `hooks/` and `connectors/` trees, their backups and
 * state) hold secrets: the bearer token, the router key (a copy of an agent file taken after `router connect`),
 * sealed upstream keys. They are 0600 in 0700 directories whatever the umask, and a directory of Notify's that
 * already existed with a wider mode is tightened. Never call these on a directory of the user's (`~/.claude`).
 */

/** Creates `dir` (and missing parents, 0700) and makes it 0700 when it is Notify's own and wider. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  // A link or a directory of another user is left as it is (chmod would fail or reach someone else's directory).
  if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid())) return;
  if ((stat.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/** Writes `bytes` to a new file with exactly `mode` (fchmod: not filtered by the umask), flushed to disk. */
export function writeNewFile(path: string, bytes: string | Buffer, mode: number): void {
  closeSync(openNewFile(path, bytes, mode, true));
}

/**
 * Writes `bytes` to a new file with exactly `mode` and returns its open descriptor; `sync`: flushed first (else the
 * caller flushes it, e.g. after a rename, to keep the time between a check and the rename short).
 */
export function openNewFile(path: string, bytes: string | Buffer, mode: number, sync: boolean): number {
  const fd = openSync(path, "wx", 0o600);
  try {
    writeSync(fd, typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes);
    fchmodSync(fd, mode);
    if (sync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  return fd;
}

/** A temporary name beside `path` (same directory, so the rename is atomic). */
export const temporaryBeside = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString("hex")}.notify-tmp`);

/**
 * Writes one of Notify's own files: 0600 in a 0700 directory, through a temporary file and a rename, so a reader
 * never sees half of it and the file is never readable by others, not even for a moment.
 */
export function writePrivateFile(path: string, bytes: string | Buffer): void {
  ensurePrivateDir(dirname(path));
  const temporary = temporaryBeside(path);
  writeNewFile(temporary, bytes, 0o600);
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
