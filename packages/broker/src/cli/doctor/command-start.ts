import { spawnSync } from "node:child_process";
import { basename } from "node:path";

/**
 * The PATH a systemd user unit starts with (systemd.exec(5), "Environment variables in spawned processes"): the
 * poorest one a written command meets. A desktop launcher's is alike; an nvm or fnm shell's has another Node first.
 */
export const SYSTEMD_DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** ok names the Node; warn: it starts, but through PATH; fail: it does not start. */
export type Start = { status: "ok"; node: string } | { status: "warn" | "fail"; problem: string };

const isNode = (program: string): boolean => /^node(?:\.exe)?$/.test(basename(program));
/** `node --version` per Node binary: one run each per doctor. */
const nodeVersions = new Map<string, string>();

/**
 * Whether a command Notify wrote (its program words: node, any node flags, the CLI file) starts with nothing from
 * this shell: run with `--version` under an empty environment and systemd's default PATH, as the hooks, the unit
 * and the MCP entries are run (issue 32, item 3). Says which Node runs it, or that a `#!/usr/bin/env node` line
 * picks one from PATH.
 */
export function commandStarts(program: string[]): Start {
  const [command, ...rest] = program;
  if (command === undefined) return { status: "fail", problem: "an empty command" };
  const env = { PATH: SYSTEMD_DEFAULT_PATH, ...(process.env.HOME !== undefined ? { HOME: process.env.HOME } : {}) };
  const run = spawnSync(command, [...rest, "--version"], { env, encoding: "utf8", timeout: 20_000 });
  if (run.status !== 0) {
    const said = (run.stderr || run.error?.message || `exit ${run.status ?? run.signal}`).trim().split("\n")[0];
    return { status: "fail", problem: `${program.join(" ")} does not start without your shell's PATH: ${said}` };
  }
  if (!isNode(command) || rest.length === 0) {
    return {
      status: "warn",
      problem: `${command} finds its Node through PATH (#!/usr/bin/env node): another PATH gives another Node or none`,
    };
  }
  const version =
    nodeVersions.get(command) ??
    spawnSync(command, ["--version"], { env, encoding: "utf8", timeout: 20_000 }).stdout.trim();
  nodeVersions.set(command, version);
  return { status: "ok", node: `Node ${version} (${command})` };
}

/** One run per distinct program in a doctor run: every hook of a file names the same one. */
export function startChecker(): (program: string[]) => Start {
  const seen = new Map<string, Start>();
  return (program) => {
    const key = JSON.stringify(program);
    const known = seen.get(key);
    if (known !== undefined) return known;
    const start = commandStarts(program);
    seen.set(key, start);
    return start;
  };
}
