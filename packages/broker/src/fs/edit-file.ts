import {
  closeSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  unlinkSync,
} from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { openNewFile, temporaryBeside } from "./private-files.js";

/**
 * Editing a file that belongs to someone else (an agent's settings.json, config.toml, hooks.json):
 * - a symlink stays a symlink: the edit is written to the file it points at (a temporary file beside the target,
 *   renamed over the target);
 * - the file keeps its exact mode (set with fchmod, not filtered by the umask); a new file is 0600;
 * - an edit the owner makes between Notify's read and Notify's write is never lost: the file is read again just
 *   before the rename, and the replaced file once more right after it; on a change the edit is worked out again
 *   on the new content (a few times), then refused with EditConflictError.
 */

/** The file kept changing while Notify tried to edit it: nothing of the owner's was lost, and Notify's edit was not made. */
export class EditConflictError extends Error {
  override name = "EditConflictError";
}

/** What an edit does with the content it was given: write `content`, remove the file (null), or nothing. */
export interface EditPlan<T> {
  content: string | Buffer | null | undefined;
  /** The exact mode to give the file; default: the mode it has (0600 for a new file). */
  mode?: number | undefined;
  result: T;
}

export interface EditOutcome<T> {
  /** The bytes the edit was worked out on (undefined: there was no file). */
  before: Buffer | undefined;
  /** The mode the file had before (undefined: there was no file). */
  beforeMode: number | undefined;
  result: T;
  /** Whether the file was written or removed. */
  changed: boolean;
}

/** Attempts at most, and for at most this long: a busy machine makes each attempt slower, not the owner quieter. */
const ATTEMPTS = 200;
const ATTEMPTS_MS = 5_000;
/** How long a write into the replaced file is still caught (a writer that opened it just before the rename). */
const LATE_WRITE_GRACE_MS = 30;

/** How long bytes that cannot be read (a write caught halfway) are given to change before Notify gives up. */
const TORN_WAIT_MS = 1_500;

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** The path a chain of symlinks ends at (which need not exist); `path` itself when it is no link. */
export function resolveLinks(path: string): string {
  let current = resolve(path);
  for (let hops = 0; hops < 40; hops += 1) {
    let stat: Stats;
    try {
      stat = lstatSync(current);
    } catch {
      return current;
    }
    if (!stat.isSymbolicLink()) return current;
    const target = readlinkSync(current);
    current = isAbsolute(target) ? target : resolve(dirname(current), target);
  }
  throw new Error(`${path}: too many levels of symbolic links`);
}

function readAll(fd: number): Buffer {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const chunk = Buffer.alloc(65_536);
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) return Buffer.concat(chunks);
    chunks.push(chunk.subarray(0, read));
    position += read;
  }
}

const sameBytes = (a: Buffer | undefined, b: Buffer | undefined): boolean =>
  a === undefined || b === undefined ? a === b : a.equals(b);

const readPath = (path: string): Buffer | undefined => {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
};

/** Whether the bytes at `path` differ from `seen` within `ms` (looked at every 10 ms). */
function changesWithin(path: string, seen: Buffer | undefined, ms: number): boolean {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!sameBytes(readPath(path), seen)) return true;
    if (Date.now() > deadline) return false;
    sleep(10);
  }
}

/**
 * Reads `file` (through any symlink), asks `plan` what to do with its bytes, and does it safely (see above).
 * `plan` may run more than once (once per attempt), so it must not have side effects.
 */
export function editFile<T>(
  file: string,
  plan: (current: Buffer | undefined, mode: number | undefined) => EditPlan<T>,
): EditOutcome<T> {
  // After an owner's write reached a file Notify had just replaced: the owner's content (what the next attempt
  // works on) and what the path held when that was worked out.
  let owner: { content: Buffer | undefined; atPath: Buffer | undefined } | undefined;
  const started = Date.now();
  for (let attempt = 0; attempt < ATTEMPTS && (attempt < 40 || Date.now() - started < ATTEMPTS_MS); attempt += 1) {
    const real = resolveLinks(file);
    let fd: number | undefined;
    try {
      fd = openSync(real, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    try {
      const atPath = fd === undefined ? undefined : readAll(fd);
      const pathMode = fd === undefined ? undefined : fstatSync(fd).mode & 0o7777;
      if (owner !== undefined && !sameBytes(owner.atPath, atPath)) {
        try {
          owner = { content: carryOver(owner.atPath, atPath, owner.content, real), atPath };
        } catch (error) {
          // The owner's next write caught halfway (written, not yet truncated): read again once it has changed.
          const torn = error instanceof EditConflictError && attempt + 1 < ATTEMPTS;
          if (torn && changesWithin(real, atPath, TORN_WAIT_MS)) continue;
          throw error;
        }
      }
      const before = owner === undefined ? atPath : owner.content;
      const beforeMode = pathMode;
      let decided: EditPlan<T>;
      try {
        decided = plan(before, beforeMode);
      } catch (error) {
        // Bytes caught halfway through someone else's write (a refusal such as "cannot parse"): when the file has
        // changed since, work it out again on what is there now.
        // A writer paused between its write and its truncate leaves such bytes for a while: wait for it.
        if (attempt + 1 < ATTEMPTS && changesWithin(real, atPath, TORN_WAIT_MS)) continue;
        throw error;
      }
      let content = decided.content;
      if (content === undefined) {
        if (owner === undefined) return { before, beforeMode, result: decided.result, changed: false };
        // Nothing to do on the owner's content, but the path still holds Notify's earlier write.
        content = owner.content ?? null;
      }
      let temporary: { path: string; fd: number } | undefined;
      if (content !== null) {
        const path = temporaryBeside(real);
        temporary = { path, fd: openNewFile(path, content, decided.mode ?? pathMode ?? 0o600, false) };
      }
      const discard = () => {
        if (temporary === undefined) return;
        closeSync(temporary.fd);
        rmSync(temporary.path, { force: true });
      };
      // Still what the plan was worked out on? Otherwise work it out again on the new content.
      if (!sameBytes(readPath(real), atPath) || resolveLinks(file) !== real) {
        discard();
        continue;
      }
      if (temporary === undefined) {
        if (atPath !== undefined) unlinkSync(real);
      } else if (atPath === undefined) {
        // A new file: link() fails when one appeared meanwhile, where a rename would replace it.
        try {
          linkSync(temporary.path, real);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
          discard();
          continue;
        }
        rmSync(temporary.path, { force: true });
      } else {
        try {
          renameSync(temporary.path, real);
        } catch (error) {
          discard();
          throw error;
        }
      }
      // Flushed after the rename: the time between the check above and the rename stays short.
      if (temporary !== undefined) {
        fsyncSync(temporary.fd);
        closeSync(temporary.fd);
      }
      // A write that reached the replaced file after the check (a writer that opened it just before the rename
      // writes within moments, so it is looked at again after a short grace period): the owner's change is carried
      // onto the owner's content, together with anything written to Notify's new file since, and the edit is
      // worked out again on that.
      if (fd !== undefined) {
        let late = readAll(fd);
        if (late.equals(atPath as Buffer)) {
          sleep(LATE_WRITE_GRACE_MS);
          late = readAll(fd);
        }
        if (!late.equals(atPath as Buffer)) {
          const written = content === null ? undefined : typeof content === "string" ? Buffer.from(content) : content;
          // The late write may itself be caught halfway (written, not yet truncated): read again until it merges.
          const deadline = Date.now() + TORN_WAIT_MS;
          for (;;) {
            const now = readPath(real);
            try {
              const mine = carryOver(atPath, late, before, real);
              owner = { content: carryOver(written, now, mine, real), atPath: now };
              break;
            } catch (error) {
              if (!(error instanceof EditConflictError) || Date.now() > deadline) throw error;
              sleep(10);
              late = readAll(fd);
            }
          }
          continue;
        }
      }
      return { before, beforeMode, result: decided.result, changed: true };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  throw new EditConflictError(
    `${file} kept changing while Notify edited it (${Math.round((Date.now() - started) / 100) / 10} s of attempts); nothing was changed: try again when it is quiet`,
  );
}

type Json = Record<string, unknown>;

const parseObject = (bytes: Buffer | undefined): Json | undefined => {
  try {
    const parsed: unknown = JSON.parse((bytes ?? Buffer.alloc(0)).toString("utf8"));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Json) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Carries the owner's change `base` -> `edited` onto `onto`: lines appended (the text grew at its end), or, for
 * JSON objects, every top-level key the owner set, changed or removed. Anything else cannot be merged safely and
 * is refused.
 */
export function carryOver(
  base: Buffer | undefined,
  edited: Buffer | undefined,
  onto: Buffer | undefined,
  file: string,
): Buffer | undefined {
  if (sameBytes(base, edited)) return onto;
  const target = parseObject(onto);
  if (target === undefined) {
    // Text (TOML, a hooks file not yet JSON): lines the owner appended are appended.
    const from = base ?? Buffer.alloc(0);
    const to = edited ?? Buffer.alloc(0);
    if (edited !== undefined && to.length >= from.length && to.subarray(0, from.length).equals(from)) {
      return Buffer.concat([onto ?? Buffer.alloc(0), to.subarray(from.length)]);
    }
  }
  // A JSON object is merged key by key, never by bytes: a base read halfway through the owner's in-place write is a
  // prefix of what the owner then wrote, and appending the rest of it to Notify's content would make a broken file.
  const [was, is] = [parseObject(base), parseObject(edited)];
  if (was !== undefined && is !== undefined && target !== undefined) {
    for (const key of new Set([...Object.keys(was), ...Object.keys(is)])) {
      if (isDeepStrictEqual(was[key], is[key])) continue;
      if (key in is) target[key] = is[key];
      else delete target[key];
    }
    return Buffer.from(`${JSON.stringify(target, null, 2)}\n`);
  }
  if (was === undefined && is !== undefined && target !== undefined) {
    // The base itself was caught halfway through a write (or there was none): every key the owner's file holds
    // that differs is carried over. Notify's own edit is worked out again on the result, so its keys come out
    // right; a key the owner deleted in that same moment could come back, which loses nothing.
    for (const key of Object.keys(is)) {
      if (!isDeepStrictEqual(target[key], is[key])) target[key] = is[key];
    }
    return Buffer.from(`${JSON.stringify(target, null, 2)}\n`);
  }
  throw new EditConflictError(
    `${file} was changed by another program while Notify edited it, in a way Notify cannot merge; nothing of Notify's ` +
      "was left in it: check the file, then run this again",
  );
}
