/**
 * V8's semi-space (half of the young generation) for the served broker, in MiB. V8's default lets it grow to 16 MiB
 * per half under allocation pressure, and a proxy holding 1,000 slow streams then sits at 240-280 MB of RSS,
 * mostly young-generation pages; at 4 MiB it stays under 200 MB with the same throughput within this machine's
 * noise (bench/README.md, Router).
 */
export const SERVE_SEMI_SPACE_MIB = 4;

const FLAG = "--max-semi-space-size";

/** The flags `execWithServeFlags` adds; a service gives them at start so the broker need not re-execute itself. */
export const SERVE_NODE_FLAGS = [`${FLAG}=${SERVE_SEMI_SPACE_MIB}`];

/**
 * Re-executes `notify serve` in place (same pid, same stdio, same arguments) with the broker's V8 flags, unless
 * they are given already on the command line or in NODE_OPTIONS. Where `process.execve` is missing (Windows, or
 * an older Node) the broker runs with V8's defaults.
 */
export function execWithServeFlags(): void {
  if (typeof process.execve !== "function") return;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  if (given.some((flag) => flag === FLAG || flag.startsWith(`${FLAG}=`))) return;
  process.execve(
    process.execPath,
    [process.execPath, ...SERVE_NODE_FLAGS, ...process.execArgv, ...process.argv.slice(1)],
    process.env,
  );
}
