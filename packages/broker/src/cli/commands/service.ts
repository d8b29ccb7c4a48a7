import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { brokerTarget, type ClientOptions, nonEmpty, printJson } from "../../client/client.js";
import {
  LAUNCHD_LABEL,
  launchdLogPath,
  launchdPlist,
  launchdPlistPath,
  MARKER,
  type ServicePlatform,
  type ServiceSpec,
  serveSpec,
  systemdUnit,
  systemdUnitPath,
} from "../../service/service-files.js";
import { ExitError } from "../exit-error.js";
import { stableCommand } from "../stable-command.js";

export interface ServiceOptions extends ClientOptions {
  print?: boolean;
  json?: boolean;
  platform?: string;
}

interface Target {
  platform: ServicePlatform;
  file: string;
  contents: string;
  /** The commands that enable and start it, and their reverse; run when a service manager answers. */
  start: string[][];
  stop: string[][];
  logs: string;
}

function platformOf(options: ServiceOptions): ServicePlatform {
  const platform = options.platform ?? (process.platform === "darwin" ? "launchd" : "systemd");
  if (platform !== "systemd" && platform !== "launchd") {
    throw new ExitError(1, `unknown --platform ${platform}: expected systemd or launchd`);
  }
  return platform;
}

/** The command and the environment the user chose (a data dir or port given here or in the environment). */
function spec(options: ServiceOptions): ServiceSpec {
  const environment: Record<string, string> = {};
  const dataDir = nonEmpty(options.dataDir) ?? nonEmpty(process.env.NOTIFY_DATA_DIR);
  if (dataDir !== undefined) environment.NOTIFY_DATA_DIR = dataDir;
  const port = nonEmpty(options.port) ?? nonEmpty(process.env.NOTIFY_PORT);
  if (port !== undefined) environment.NOTIFY_PORT = port;
  return serveSpec(stableCommand().program, environment);
}

function target(options: ServiceOptions): Target {
  const platform = platformOf(options);
  if (platform === "systemd") {
    return {
      platform,
      file: systemdUnitPath(),
      contents: systemdUnit(spec(options)),
      start: [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "--now", "notify.service"],
      ],
      stop: [
        ["systemctl", "--user", "disable", "--now", "notify.service"],
        ["systemctl", "--user", "daemon-reload"],
      ],
      logs: "journalctl --user -u notify.service",
    };
  }
  const uid = process.getuid?.() ?? 501;
  const file = launchdPlistPath();
  return {
    platform,
    file,
    contents: launchdPlist(spec(options)),
    start: [["launchctl", "bootstrap", `gui/${uid}`, file]],
    stop: [["launchctl", "bootout", `gui/${uid}/${LAUNCHD_LABEL}`]],
    logs: launchdLogPath(),
  };
}

/** Whether the service manager answers: `systemctl --user` needs a running user manager, launchctl a macOS. */
function managerRuns(platform: ServicePlatform): boolean {
  const probe =
    platform === "systemd"
      ? spawnSync("systemctl", ["--user", "show-environment"], { stdio: "ignore", timeout: 10_000 })
      : spawnSync("launchctl", ["print", `gui/${process.getuid?.() ?? 501}`], { stdio: "ignore", timeout: 10_000 });
  return probe.status === 0;
}

function runAll(commands: string[][]): void {
  for (const [command, ...args] of commands) {
    const result = spawnSync(command as string, args, { encoding: "utf8", timeout: 30_000 });
    if (result.status !== 0) {
      throw new ExitError(
        1,
        `\`${[command, ...args].join(" ")}\` failed: ${(result.stderr || result.error?.message || "").trim()}`,
      );
    }
  }
}

const shown = (commands: string[][]): string => commands.map((words) => `  ${words.join(" ")}\n`).join("");

/** Whether a broker already answers on the port this install would use (a foreground `notify serve`). */
async function brokerAnswers(options: ServiceOptions): Promise<string | undefined> {
  let baseUrl: string;
  try {
    baseUrl = brokerTarget(options).baseUrl;
  } catch {
    return undefined;
  }
  try {
    const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? baseUrl : undefined;
  } catch {
    return undefined;
  }
}

/** `notify service install [--print]` (docs/install.md, Run as a service). */
export async function serviceInstall(options: ServiceOptions): Promise<void> {
  const service = target(options);
  if (options.print) {
    process.stdout.write(service.contents);
    return;
  }
  const current = existsSync(service.file) ? readFileSync(service.file, "utf8") : undefined;
  if (current !== undefined && !current.includes(MARKER)) {
    throw new ExitError(1, `${service.file} exists and was not written by Notify: nothing was changed`);
  }
  const unchanged = current === service.contents;
  if (!unchanged) {
    mkdirSync(dirname(service.file), { recursive: true });
    writeFileSync(service.file, service.contents, { mode: 0o644 });
  }
  const running = await brokerAnswers(options);
  const manager = managerRuns(service.platform);
  if (options.json) {
    printJson({
      platform: service.platform,
      file: service.file,
      changed: !unchanged,
      manager,
      broker_running: running !== undefined,
    });
  } else {
    process.stdout.write(`${unchanged ? "already installed" : "installed"}: ${service.file}\n`);
  }
  if (running !== undefined) {
    process.stderr.write(
      `notify: a broker already answers at ${running} (a foreground \`notify serve\`?), so the service was not started. ` +
        `Stop that broker, then start the service:\n${shown(service.start)}`,
    );
    return;
  }
  if (!manager) {
    process.stderr.write(
      `notify: no ${service.platform === "systemd" ? "systemd user manager" : "launchd session"} answers here; ` +
        `to enable and start the service, run:\n${shown(service.start)}`,
    );
    return;
  }
  if (unchanged && service.platform === "systemd") return;
  runAll(service.start);
  process.stderr.write(`notify: enabled and started; logs: ${service.logs}\n`);
}

/** `notify service uninstall`: stops the service and removes only the file install wrote. */
export async function serviceUninstall(options: ServiceOptions): Promise<void> {
  const service = target(options);
  if (!existsSync(service.file)) {
    process.stdout.write(`not installed: ${service.file}\n`);
    return;
  }
  if (!readFileSync(service.file, "utf8").includes(MARKER)) {
    throw new ExitError(1, `${service.file} was not written by Notify: nothing was changed`);
  }
  if (managerRuns(service.platform)) {
    // Stopping may fail when it was never started; the file goes either way.
    for (const [command, ...args] of service.stop)
      spawnSync(command as string, args, { stdio: "ignore", timeout: 30_000 });
  } else {
    process.stderr.write(
      `notify: no service manager answers here; if the service runs elsewhere, run:\n${shown(service.stop)}`,
    );
  }
  rmSync(service.file);
  process.stdout.write(`removed: ${service.file}\n`);
}

/** `notify service status [--json]`: installed, enabled, running, and where the logs are. Exit 0 either way. */
export async function serviceStatus(options: ServiceOptions): Promise<void> {
  const service = target(options);
  const installed = existsSync(service.file) && readFileSync(service.file, "utf8").includes(MARKER);
  const manager = managerRuns(service.platform);
  const ask = (args: string[]): string | undefined => {
    if (!manager || service.platform !== "systemd") return undefined;
    return spawnSync("systemctl", ["--user", ...args, "notify.service"], {
      encoding: "utf8",
      timeout: 10_000,
    }).stdout.trim();
  };
  const enabled = ask(["is-enabled"]);
  const active = ask(["is-active"]);
  const broker = await brokerAnswers(options);
  const status = {
    platform: service.platform,
    file: service.file,
    installed,
    manager,
    enabled: enabled === undefined ? null : enabled === "enabled",
    running: active === undefined ? broker !== undefined : active === "active",
    broker: broker ?? null,
    logs: service.logs,
  };
  if (options.json) {
    printJson(status);
    return;
  }
  const yes = (value: boolean | null) =>
    value === null ? "unknown (no service manager answers)" : value ? "yes" : "no";
  process.stdout.write(
    `installed  ${installed ? `yes (${service.file})` : "no"}\n` +
      `enabled    ${yes(status.enabled)}\n` +
      `running    ${status.running ? `yes${broker !== undefined ? ` (answers at ${broker})` : ""}` : "no"}\n` +
      `logs       ${service.logs}\n`,
  );
}
