import { spawn } from "node:child_process";
import { CLI, type CliProcess, type CliResult, cliEnv } from "../cli/cli-harness.js";

/**
 * Starts `notify hook ...args` as an agent does: the agent's JSON on stdin, then stdin closed. Resolves like
 * spawnCli (stdout, stderr, exit code) and can wait for a line on stderr.
 */
export function spawnHook(args: string[], stdin: unknown, env: NodeJS.ProcessEnv = cliEnv()): CliProcess {
  const child = spawn(process.execPath, [CLI, "hook", ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin?.end(typeof stdin === "string" ? stdin : JSON.stringify(stdin));
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const listener of listeners) listener();
  });
  let exited = false;
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      exited = true;
      for (const listener of listeners) listener();
      resolve({ code, signal, stdout, stderr });
    });
  });
  const stderrMatching = (pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`stderr did not match ${pattern} within ${timeoutMs} ms: ${stderr}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      const check = (): void => {
        const match = pattern.exec(stderr);
        if (match) {
          finish();
          resolve(match);
        } else if (exited) {
          finish();
          reject(new Error(`process ended before stderr matched ${pattern}: ${stderr}`));
        }
      };
      listeners.add(check);
      check();
    });
  return { child, done, stderrMatching };
}

/** The line the hook writes once its question is open. */
export const WAITING = /waiting for an answer to interaction (int_\S+)/;
