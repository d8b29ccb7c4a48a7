import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { delay } from "@notify/contracts/retry";
import { parseIntegerOption } from "../../client/client.js";
import { ExitError } from "../exit-error.js";
import { absoluteDataDir, backgroundFiles } from "./start.js";

export interface LogsOptions {
  dataDir?: string;
  follow?: boolean;
  lines?: string;
}

const DEFAULT_LINES = 50;
const CHUNK = 64 * 1024;
/** How often `-f` looks for new lines: a person reading a log does not see the difference to an inotify watch. */
const FOLLOW_EVERY_MS = 200;

/**
 * `notify logs [-n N] [-f]`: the last lines of the log of the broker `notify start` started, and with `-f` every
 * line written after them, across a new start (which may rotate the file) until interrupted, like `tail -F`.
 */
export async function logs(options: LogsOptions): Promise<void> {
  const count = parseIntegerOption("-n", options.lines) ?? DEFAULT_LINES;
  if (count < 0) throw new ExitError(1, "-n must be 0 or more");
  const dataDir = absoluteDataDir(options.dataDir);
  const { logFile } = backgroundFiles(dataDir);
  let fd = openOrUndefined(logFile);
  if (fd === undefined && !options.follow) {
    throw new ExitError(
      1,
      `no ${logFile}: \`notify start\` writes it. A \`notify serve\` in a terminal or the service logs to ` +
        `${join(dataDir, "logs")}/notify-YYYY-MM-DD.log (docs/config.md, Logs)`,
    );
  }
  let offset = 0;
  if (fd !== undefined) {
    offset = fstatSync(fd).size;
    process.stdout.write(lastLines(fd, offset, count));
  }
  if (!options.follow) {
    if (fd !== undefined) closeSync(fd);
    return;
  }
  let inode = fd === undefined ? undefined : fstatSync(fd).ino;
  for (;;) {
    await delay(FOLLOW_EVERY_MS);
    // A new start may have moved the file aside (rotation) and made a new one: follow the name, not the file.
    let current: number | undefined;
    try {
      current = statSync(logFile).ino;
    } catch {
      current = undefined;
    }
    if (fd !== undefined && current !== inode) {
      offset = copyFrom(fd, offset);
      closeSync(fd);
      fd = undefined;
    }
    if (fd === undefined) {
      fd = openOrUndefined(logFile);
      if (fd === undefined) continue;
      inode = fstatSync(fd).ino;
      offset = 0;
    }
    if (fstatSync(fd).size < offset) offset = 0;
    offset = copyFrom(fd, offset);
  }
}

function openOrUndefined(path: string): number | undefined {
  try {
    return openSync(path, "r");
  } catch {
    return undefined;
  }
}

/** Writes what the file holds past `offset` to stdout; returns the new offset. */
function copyFrom(fd: number, offset: number): number {
  const buffer = Buffer.alloc(CHUNK);
  let at = offset;
  for (;;) {
    const read = readSync(fd, buffer, 0, CHUNK, at);
    if (read === 0) return at;
    process.stdout.write(Buffer.from(buffer.subarray(0, read)));
    at += read;
  }
}

/** The last `count` lines of the first `size` bytes, read backwards a chunk at a time (the log may be large). */
function lastLines(fd: number, size: number, count: number): Buffer {
  if (count === 0 || size === 0) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let start = size;
  let newlines = 0;
  while (start > 0) {
    const length = Math.min(CHUNK, start);
    start -= length;
    const chunk = Buffer.alloc(length);
    readSync(fd, chunk, 0, length, start);
    chunks.unshift(chunk);
    for (let index = length - 1; index >= 0; index--) {
      // A final newline ends the last line; it does not start another one.
      if (chunk[index] !== 0x0a || start + index === size - 1) continue;
      newlines++;
      if (newlines === count) return Buffer.concat(chunks).subarray(index + 1, size - start);
    }
  }
  return Buffer.concat(chunks);
}
