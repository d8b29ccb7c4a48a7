import { spawn } from "node:child_process";
import { removeLoginPage, writeLoginPage } from "../http/ui/login-page-file.js";

/** How long an opener may run before it counts as having opened the page (it may be the browser itself). */
export const OPENER_WAIT_MS = 10_000;

export interface OpenOutcome {
  /** True when the opener accepted the page (exit 0, or still running after the wait). */
  opened: boolean;
  program: string;
  /** Why nothing opened: the opener is missing, or it exited non-zero or on a signal. */
  problem?: string;
}

export interface OpenOptions {
  /** The data dir whose `open/` holds the redirect page. */
  dataDir: string;
  /** The opener's environment, without the broker's token (below). */
  env?: NodeJS.ProcessEnv;
  waitMs?: number;
  platform?: NodeJS.Platform;
}

/** The program that opens a file in the desktop's browser. */
export function opener(platform: NodeJS.Platform = process.platform): string {
  if (platform === "darwin") return "open";
  if (platform === "win32") return "explorer";
  return "xdg-open";
}

/** Variables that hold Notify's credentials: a program Notify starts (an opener, a sound player) never inherits them. */
const SECRET_VARIABLES = ["NOTIFY_TOKEN"];

/** `env` without Notify's credentials, for a child process that has no use for them. */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of SECRET_VARIABLES) delete copy[name];
  return copy;
}

/**
 * Opens a one-time login link (`/ui/login?t=...`) in the browser without the token ever being in a process's
 * arguments or environment (issue 21, item 1): the link goes into a 0600 redirect page (login-page-file.ts) and the
 * opener gets that file's path. Waits for the opener to exit, at most `waitMs`, so a missing display or opener is
 * reported instead of passing silently (item 15); the page is removed again when nothing opened.
 */
export function openLoginLink(url: string, options: OpenOptions): Promise<OpenOutcome> {
  const program = opener(options.platform);
  const token = new URL(url).searchParams.get("t") ?? "";
  const page = writeLoginPage(options.dataDir, url);
  const env = withoutSecrets(options.env ?? process.env);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: OpenOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!outcome.opened) removeLoginPage(options.dataDir, token);
      resolve(outcome);
    };
    const child = spawn(program, [page], { stdio: "ignore", detached: true, env });
    const timer = setTimeout(() => {
      child.unref();
      finish({ opened: true, program });
    }, options.waitMs ?? OPENER_WAIT_MS);
    child.once("error", (error) => {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      finish({ opened: false, program, problem: missing ? `${program} is not installed` : `cannot start ${program}` });
    });
    child.once("exit", (code, signal) => {
      if (code === 0) finish({ opened: true, program });
      else {
        const how = signal !== null ? `was ended by ${signal}` : `exited with status ${code}`;
        finish({ opened: false, program, problem: `${program} ${how} (no display or no browser?)` });
      }
    });
  });
}
