import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync } from "node:fs";

/**
 * The relay's data directory holds the enrollment token, the VAPID private key and the database (device tokens'
 * hashes, sealed envelopes, answers): a directory of its own at 0700 and files at 0600, whatever the umask and
 * whether or not they existed before (issue 21, item 5). A link, or a directory another user owns, is left alone.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid())) return;
  if ((stat.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/**
 * Makes each existing file 0600 and creates `first` empty at 0600 when missing, before SQLite opens it: SQLite
 * creates its -wal and -shm files with the database file's own mode, so a 0600 database keeps them 0600 too.
 */
export function privateFiles(first: string, ...others: string[]): void {
  if (!existsSync(first)) closeSync(openSync(first, "a", 0o600));
  for (const path of [first, ...others]) {
    if (!existsSync(path)) continue;
    const stat = lstatSync(path);
    if (stat.isFile() && (stat.mode & 0o777) !== 0o600) chmodSync(path, 0o600);
  }
}
