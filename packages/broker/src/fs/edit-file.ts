import {
  closeSync,
  fstatSync,
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
import { temporaryBeside, writeNewFile } from "./private-files.js";

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

const ATTEMPTS = 8;

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

/**
 * Reads `file` (through any symlink), asks `plan` what to do with its bytes, and does it safely (see above).
 * `plan` may run more than once (once per attempt), so it must not have side effects.
 */
export function editFile<T>(
  file: string,
  plan: (current: Buffer | undefined, mode: number | undefined) => EditPlan<T>,
): EditOutcome<T> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const real = resolveLinks(file);
    let fd: number | undefined;
    try {
      fd = openSync(real, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    try {
      const before = fd === undefined ? undefined : readAll(fd);
      const beforeMode = fd === undefined ? undefined : fstatSync(fd).mode & 0o7777;
      const decided = plan(before, beforeMode);
      if (decided.content === undefined) return { before, beforeMode, result: decided.result, changed: false };
      let temporary: string | undefined;
      if (decided.content !== null) {
        temporary = temporaryBeside(real);
        writeNewFile(temporary, decided.content, decided.mode ?? beforeMode ?? 0o600);
      }
      // Still what the plan was worked out on? Otherwise work it out again on the new content.
      if (!sameBytes(readPath(real), before) || resolveLinks(file) !== real) {
        if (temporary !== undefined) rmSync(temporary, { force: true });
        continue;
      }
      if (temporary === undefined) unlinkSync(real);
      else if (before === undefined) {
        // A new file: link() fails when one appeared meanwhile, where a rename would replace it.
        try {
          linkSync(temporary, real);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
          continue;
        } finally {
          rmSync(temporary, { force: true });
        }
      } else renameSync(temporary, real);
      // An edit that reached the replaced file between the check and the rename: it is put back and the edit
      // worked out again on it.
      if (fd !== undefined) {
        const late = readAll(fd);
        if (!late.equals(before as Buffer)) {
          restoreLateEdit(real, decided.content, late, beforeMode as number);
          continue;
        }
      }
      return { before, beforeMode, result: decided.result, changed: true };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  throw new EditConflictError(
    `${file} kept changing while Notify edited it (${ATTEMPTS} attempts); nothing was changed: try again when it is quiet`,
  );
}

/**
 * The owner wrote to the file Notify had just replaced: the owner's bytes come back in its place, with anything
 * appended to Notify's new file since (an append after the rename reaches the new file).
 */
function restoreLateEdit(real: string, written: string | Buffer | null, late: Buffer, mode: number): void {
  const now = readPath(real);
  let extra: Buffer = Buffer.alloc(0);
  if (written !== null && now !== undefined) {
    const mine = typeof written === "string" ? Buffer.from(written, "utf8") : written;
    if (now.subarray(0, mine.length).equals(mine)) extra = now.subarray(mine.length);
    else {
      throw new EditConflictError(
        `${real} was changed by two writers at once while Notify edited it; Notify's edit is in the file, the other ` +
          "writer's change may need redoing",
      );
    }
  } else if (now !== undefined) {
    throw new EditConflictError(`${real} was recreated while Notify removed it; check its content`);
  }
  const temporary = temporaryBeside(real);
  writeNewFile(temporary, Buffer.concat([late, extra]), mode);
  renameSync(temporary, real);
}
