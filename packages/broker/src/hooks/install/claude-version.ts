import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { type TargetEnv, targetFor } from "./targets.js";

/**
 * The first Claude Code whose http hooks Notify writes: 2.1.51 made `allowedEnvVars` the only way a header is filled
 * from the environment (the entry's Authorization header needs it) and left SessionStart and Setup without http hooks.
 * Proven against 2.1.330, the version the suites pin (test/hooks/e2e).
 */
export const HTTP_HOOKS_SINCE: readonly [number, number, number] = [2, 1, 51];

export interface ClaudeCodeFound {
  /** The program asked. */
  path: string;
  /** Its version, or undefined when `--version` gave none. */
  version: [number, number, number] | undefined;
}

/** Where `claude` is: the first on PATH, else the per-user install Claude Code's installer makes (`local/claude`). */
export function findClaudeCode(where: TargetEnv = {}): string | undefined {
  const env = where.env ?? process.env;
  const candidates = (env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "")
    .map((dir) => join(dir, "claude"));
  candidates.push(join(targetFor("claude-code", "user", where).agentHome, "local", "claude"));
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** `2.1.330 (Claude Code)` -> [2, 1, 330]. */
export function parseClaudeVersion(text: string): [number, number, number] | undefined {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

export function atLeast(version: readonly number[], floor: readonly number[]): boolean {
  for (let i = 0; i < floor.length; i += 1) {
    const a = version[i] ?? 0;
    const b = floor[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** The installed Claude Code and its version (`claude --version`, 15 s at most), or undefined when none is found. */
export function claudeCodeVersion(where: TargetEnv = {}): ClaudeCodeFound | undefined {
  const path = findClaudeCode(where);
  if (path === undefined) return undefined;
  const run = spawnSync(path, ["--version"], {
    encoding: "utf8",
    timeout: 15_000,
    env: { ...(where.env ?? process.env), DISABLE_AUTOUPDATER: "1" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  return { path, version: run.status === 0 ? parseClaudeVersion(run.stdout ?? "") : undefined };
}
