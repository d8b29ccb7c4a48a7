import module from "node:module";
import { join } from "node:path";
import envPaths from "env-paths";

/**
 * Node's on-disk cache of compiled modules (`module.enableCompileCache`), in the user's own cache directory
 * (~/.cache/notify/node-compile-cache on Linux, ~/Library/Caches/notify/... on macOS; never a shared /tmp directory
 * another user could write). Every command loads a few hundred modules; with their bytecode cached `notify serve`
 * reaches /health in about half the time and a hook starts faster too (bench/README.md, "Idle cost").
 * NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE, when set, are Node's own and win.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (typeof module.enableCompileCache !== "function") return;
  if (env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return;
  try {
    module.enableCompileCache(join(envPaths("notify", { suffix: "" }).cache, "node-compile-cache"));
  } catch {
    // A cache that cannot be created only costs start time.
  }
}

/** Writes what this process compiled so far, so the next start benefits even if this one never exits cleanly. */
export function flushCompileCache(): void {
  try {
    module.flushCompileCache?.();
  } catch {
    // As above.
  }
}
