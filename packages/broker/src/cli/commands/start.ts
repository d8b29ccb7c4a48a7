import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { delay } from "@notify/contracts/retry";
import { brokerTarget, type ClientOptions, parseIntegerOption } from "../../client/client.js";
import { resolveDataDir } from "../../config/paths.js";
import { ExitError } from "../exit-error.js";

/**
 * `notify start`, `stop` and `logs`: the broker in the background where no service manager runs (a container, WSL,
 * an SSH session without lingering), the way `ccr start` runs claude-code-router
 * (docs/cli.md, "notify start, notify stop, notify logs"). A pid file in the data dir names the broker; its stderr
 * (every log line, and whatever Node prints if it dies) is appended to logs/background.log, which `notify logs` reads.
 */
export interface StartOptions extends ClientOptions {
  wait?: string;
}

const MAIN = fileURLToPath(new URL("../main.js", import.meta.url));
const DEFAULT_WAIT_SECONDS = 30;
/** At start, a background log past this size is moved to background.log.1 (replacing the older one). */
const ROTATE_BYTES = 1024 * 1024;

/** What `notify start` keeps in the data dir. */
export function backgroundFiles(dataDir: string): { pidFile: string; logFile: string } {
  return { pidFile: join(dataDir, "notify.pid"), logFile: join(dataDir, "logs", "background.log") };
}

/** The absolute data dir a command acts on (the pid file must not depend on the cwd it was started from). */
export function absoluteDataDir(explicit: string | undefined): string {
  return resolve(resolveDataDir(explicit));
}

/** The pid the pid file names, or undefined when there is none (or it holds no pid). */
export function readPidFile(pidFile: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(pidFile, "utf8");
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Whether `pid` is a live `notify serve` of this user. A pid file outlives a crash or a reboot, and the number may
 * since name another program: on Linux its command line must hold `serve` and it must not be a zombie (an exited
 * process its parent has not reaped; a container's init may never reap it).
 */
export function isBackgroundBroker(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    // ESRCH: gone. EPERM: another user's process, so not the broker this user started.
    return false;
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    if (state === "Z" || state === "X") return false;
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("serve");
  } catch {
    return false;
  }
}

/** The URL of a broker answering `/health` on the port the client commands would use, if one answers. */
export async function answeringBroker(options: ClientOptions, dataDir: string): Promise<string | undefined> {
  let baseUrl: string;
  try {
    ({ baseUrl } = brokerTarget({ ...options, dataDir }));
  } catch {
    // An unusable port or config.json: the broker started next says what is wrong with it.
    return undefined;
  }
  return (await answers(baseUrl)) ? baseUrl : undefined;
}

async function answers(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** `--wait <seconds>` as milliseconds. */
export function waitMs(value: string | undefined): number {
  const seconds = parseIntegerOption("--wait", value) ?? DEFAULT_WAIT_SECONDS;
  if (seconds < 1) throw new ExitError(1, "--wait must be at least 1 second");
  return seconds * 1000;
}

/**
 * `notify start`: starts `notify serve` detached from the terminal, waits until it answers `/health`, and prints its
 * URL. Refuses when the pid file names a live broker or a broker already answers on the port.
 */
export async function start(options: StartOptions): Promise<void> {
  const deadlineMs = waitMs(options.wait);
  const dataDir = absoluteDataDir(options.dataDir);
  const { pidFile, logFile } = backgroundFiles(dataDir);
  const running = readPidFile(pidFile);
  if (running !== undefined) {
    if (isBackgroundBroker(running)) {
      throw new ExitError(
        1,
        `a broker started by \`notify start\` is running already (pid ${running}); \`notify stop\` stops it`,
      );
    }
    unlinkSync(pidFile);
  }
  const other = await answeringBroker(options, dataDir);
  if (other !== undefined) {
    throw new ExitError(
      1,
      `a broker answers at ${other} already (a \`notify serve\` or the service): \`notify status\` says which pid`,
    );
  }

  mkdirSync(join(dataDir, "logs"), { recursive: true, mode: 0o700 });
  // The pid file is created exclusively before the broker starts: of two `notify start`s at once, one starts it.
  let pidFd: number;
  try {
    pidFd = openSync(pidFile, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new ExitError(1, `another \`notify start\` is starting a broker (${pidFile} appeared)`);
    }
    throw error;
  }
  let logFd: number;
  let logStart = 0;
  try {
    try {
      if (statSync(logFile).size > ROTATE_BYTES) renameSync(logFile, `${logFile}.1`);
    } catch {
      // No log yet.
    }
    logFd = openSync(logFile, "a", 0o600);
    logStart = statSync(logFile).size;
  } catch (error) {
    closeSync(pidFd);
    unlinkSync(pidFile);
    throw error;
  }

  const args = [...process.execArgv, MAIN, "serve", "--data-dir", dataDir];
  if (options.port !== undefined) args.push("--port", options.port);
  if (options.token !== undefined) args.push("--token", options.token);
  // Its own session (no terminal's SIGHUP or Ctrl-C reaches it), the home directory as cwd (it holds no other
  // directory busy), stdout nowhere (the web UI's login link is a credential: `notify open` makes a fresh one).
  const child = spawn(process.execPath, args, {
    detached: true,
    cwd: homedir(),
    stdio: ["ignore", "ignore", logFd],
  });
  closeSync(logFd);
  const pid = child.pid;
  if (pid === undefined) {
    closeSync(pidFd);
    unlinkSync(pidFile);
    throw new ExitError(1, `cannot start ${process.execPath}`);
  }
  writeSync(pidFd, `${pid}\n`);
  closeSync(pidFd);
  let exit: string | undefined;
  child.once("exit", (code, signal) => {
    exit = signal === null ? `exit code ${code}` : signal;
  });
  child.unref();

  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (exit !== undefined) {
      if (readPidFile(pidFile) === pid) unlinkSync(pidFile);
      throw new ExitError(1, `the broker ended (${exit}) before it answered; it said:\n${logTail(logFile, logStart)}`);
    }
    const url = listeningUrl(logFile, logStart, pid);
    if (url !== undefined && (await answers(url))) {
      process.stdout.write(`${url}\n`);
      process.stderr.write(
        `notify: the broker runs in the background (pid ${pid}); \`notify logs -f\` follows its log, ` +
          "`notify open` opens the web UI, `notify stop` stops it\n",
      );
      return;
    }
    if (Date.now() > deadline) {
      throw new ExitError(
        1,
        `the broker (pid ${pid}) did not answer within ${deadlineMs / 1000} s; it may still be starting: ` +
          "`notify logs` shows what it said, `notify stop` stops it",
      );
    }
    await delay(100);
  }
}

/** The log written since `from` (this start's lines), at most its last 20 lines. */
function logTail(logFile: string, from: number): string {
  let text = "";
  try {
    text = readFileSync(logFile).subarray(from).toString("utf8");
  } catch {
    // Nothing written.
  }
  return text.trimEnd().split("\n").slice(-20).join("\n") || "(nothing)";
}

/**
 * The URL in this broker's `listening on` line (config.md, Logs), so a port chosen by config.json or the OS is
 * found too: `notify 0.1.0 listening on http://127.0.0.1:47821 (data dir ..., pid 4770)`.
 */
function listeningUrl(logFile: string, from: number, pid: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(logFile).subarray(from).toString("utf8");
  } catch {
    return undefined;
  }
  for (const match of text.matchAll(/ listening on (http:\/\/\S+) \(data dir .*, pid (\d+)\)$/gm)) {
    if (Number(match[2]) === pid) return match[1];
  }
  return undefined;
}
