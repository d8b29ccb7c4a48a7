import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made = new Set<string>();
// Registered when a test file first imports the kit (its collection): every file runs in a fresh module graph, so
// each file removes what it made when it ends.
afterAll(removeTempDirs);

/**
 * A fresh directory under the system temp dir, removed when the test file ends (after its last afterAll of its
 * own). Removing it earlier, with rmSync, is fine too.
 */
export function tempDir(prefix = "notify-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory tempDir made so far (what the file's afterAll runs). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
