import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { systemdUnitPath } from "../../service/service-files.js";
import type { Start } from "./command-start.js";

/** A doctor check's verdict. */
export type CheckStatus = "ok" | "warn" | "fail";

export interface ServiceCheck {
  status: CheckStatus;
  detail: string;
  fix?: string;
}

const LOGS = "journalctl --user -u notify.service";

/** ExecStart's words as systemd.service(5) splits them (service-files.ts quotes with double quotes and `\`). */
export function execStartWords(unit: string): string[] | undefined {
  const line = unit.split("\n").find((text) => text.startsWith("ExecStart="));
  if (line === undefined) return undefined;
  const words: string[] = [];
  for (const match of line.slice("ExecStart=".length).matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    const word = match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : (match[2] as string);
    words.push(word.replaceAll("$$", "$").replaceAll("%%", "%"));
  }
  return words;
}

/** `systemctl --user <args> notify.service`'s one-word answer, or undefined when no user manager answers. */
function systemctl(args: string[]): string | undefined {
  const result = spawnSync("systemctl", ["--user", ...args, "notify.service"], { encoding: "utf8", timeout: 10_000 });
  return result.error === undefined ? result.stdout.trim() : undefined;
}

export function managerAnswers(): boolean {
  return spawnSync("systemctl", ["--user", "show-environment"], { stdio: "ignore", timeout: 10_000 }).status === 0;
}

/** What `notify start`'s pid file says: the pid it names, and whether that is a live `notify serve`. */
export interface BackgroundBroker {
  pid: number | undefined;
  live: boolean;
}

/**
 * No unit installed (issue 32, item 4): a broker `notify start` keeps in the background is ok (nothing restarts it,
 * which the detail says); a pid file naming no live broker is stale (`notify stop` clears it); otherwise the fix is
 * the service where a user manager answers, and `notify start` where none does (a container, WSL, an SSH session).
 */
function withoutUnit(reachable: boolean, background: BackgroundBroker): ServiceCheck {
  if (background.pid !== undefined && background.live) {
    return {
      status: "ok",
      detail: `not installed; the broker runs in the background (notify start, pid ${background.pid}); nothing restarts it after a crash or reboot`,
    };
  }
  if (background.pid !== undefined) {
    return {
      status: "warn",
      detail: `not installed, and notify.pid names pid ${background.pid}, which is no running broker (a crash or a reboot)`,
      fix: reachable ? "notify stop" : "notify stop && notify start",
    };
  }
  if (!managerAnswers()) {
    return {
      status: "warn",
      detail: "not installed, and no systemd user manager answers here: the broker stops with its terminal",
      fix: "notify start",
    };
  }
  return { status: "warn", detail: "not installed: the broker stops with its terminal", fix: "notify service install" };
}

/**
 * The systemd user unit as systemd sees it (issue 32, item 6): whether its ExecStart starts without PATH, whether a
 * user manager answers here, and the unit's enabled and active states. A broker answering does not make the
 * service ok: a foreground `notify serve` answers too, and stops with its terminal.
 */
export function systemdServiceCheck(
  reachable: boolean,
  starts: (program: string[]) => Start,
  background: BackgroundBroker = { pid: undefined, live: false },
): ServiceCheck {
  const unit = systemdUnitPath();
  if (!existsSync(unit)) return withoutUnit(reachable, background);
  const words = execStartWords(readFileSync(unit, "utf8")) ?? [];
  const serve = words.lastIndexOf("serve");
  const start = starts(serve > 0 ? words.slice(0, serve) : words);
  if (start.status !== "ok") {
    return { status: "fail", detail: `${unit}: ExecStart: ${start.problem}`, fix: "notify service install" };
  }
  if (!managerAnswers()) {
    const detail = `installed (${unit}) but no systemd user manager answers here, so it cannot run`;
    return reachable
      ? { status: "warn", detail: `${detail}; a broker started another way answers`, fix: "notify start" }
      : { status: "fail", detail: `${detail}; no broker answers`, fix: "notify start" };
  }
  const enabled = systemctl(["is-enabled"]) ?? "unknown";
  const active = systemctl(["is-active"]) ?? "unknown";
  if (enabled !== "enabled") {
    const detail = `installed (${unit}) but ${enabled}, so it does not start at login`;
    return {
      status: reachable ? "warn" : "fail",
      detail: reachable ? `${detail}; a broker started another way answers` : `${detail}; no broker answers`,
      fix: "systemctl --user enable --now notify.service",
    };
  }
  if (active !== "active") {
    return {
      status: "fail",
      detail: `enabled but ${active}${reachable ? " (another broker answers)" : ""}; see ${LOGS}`,
      fix: "systemctl --user restart notify.service",
    };
  }
  if (!reachable) {
    return {
      status: "fail",
      detail: `active but no broker answers; see ${LOGS}`,
      fix: "systemctl --user restart notify.service",
    };
  }
  return { status: "ok", detail: `enabled and active (${unit}); runs with ${start.node}` };
}
