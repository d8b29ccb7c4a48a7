import { setFlagsFromString } from "node:v8";

/**
 * The young generation's cap for `serve` (V8's semi-space, in MB). V8 lets it grow to 16 MB per semi-space, which
 * with 10,000 held polls took RSS from about 255 to about 320 MB (bench/README.md, Relay); 8 MB keeps that within
 * the 300 MB target. `--optimize-for-size`, which did the same job before, keeps the young generation at about 1 MB,
 * three times as many scavenges, and cost the answer path about 20% of its CPU (issue 33).
 */
export const SEMI_SPACE_MB = 8;
const FLAG = "--max-semi-space-size";

/** Node flags that already decide the heap's young generation (the operator's own choice wins). */
const decided = (flags: readonly string[]): boolean =>
  flags.some((flag) => flag.startsWith(FLAG) || flag === "--optimize-for-size");

/**
 * Runs `serve` with the young generation capped. V8 sizes the heap when the process starts, so a flag set now would
 * be ignored: the process replaces itself (execve: same pid, same descriptors and signals for a supervisor) with the
 * same command and the flag in front. Without `process.execve` (Windows, Node before 22.15) it falls back to
 * `--optimize-for-size` at run time. RELAY_V8_SIZE=off keeps V8's defaults.
 */
export function capYoungGeneration(
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
): void {
  if (env.RELAY_V8_SIZE === "off") return;
  if (decided([...execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/)])) return;
  if (typeof process.execve !== "function") {
    setFlagsFromString("--optimize-for-size");
    return;
  }
  process.execve(
    process.execPath,
    [process.execPath, `${FLAG}=${SEMI_SPACE_MB}`, ...execArgv, ...process.argv.slice(1)],
    env,
  );
}
