import { apply } from "../../src/cli/commands/apply.js";
import type { CliBroker, CliResult } from "./cli-harness.js";

/**
 * `notify apply FILE` run in this process (the command's own function, the code the CLI runs), for a test that only
 * needs the state a file makes before the run it is about: a spawned CLI costs about a second of CPU to load, and
 * that run's output is not what the test proves. What it prints is collected, not shown, and returned as a
 * {@link CliResult} (for a suite that checks every output for a secret); a refused file throws with it.
 */
export async function applyInProcess(
  cli: CliBroker,
  file: string,
  ...flags: ("--prune" | "--json")[]
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const { stdout: out, stderr: err } = process;
  const writeOut = out.write;
  const writeErr = err.write;
  out.write = ((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  }) as typeof out.write;
  err.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof err.write;
  try {
    await apply({
      file,
      port: String(cli.broker.port),
      dataDir: cli.dataDir,
      token: cli.token,
      prune: flags.includes("--prune"),
      json: flags.includes("--json"),
    });
  } catch (error) {
    throw new Error(`apply ${file} failed in process: ${(error as Error).message}\n${stderr}`);
  } finally {
    out.write = writeOut;
    err.write = writeErr;
  }
  return { code: 0, signal: null, stdout, stderr };
}
