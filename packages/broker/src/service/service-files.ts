import { homedir } from "node:os";
import { join } from "node:path";
import { SERVE_NODE_FLAGS } from "../cli/runtime-flags.js";

/** What runs the broker as a per-user service: the command's words and the environment the user chose. */
export interface ServiceSpec {
  /** The stable command (the absolute Node and the real path of the CLI file, stable-command.ts) then `serve`. */
  argv: string[];
  /**
   * NOTIFY_DATA_DIR and NOTIFY_PORT when the user set them; never a token (it stays in config.json), and no PATH:
   * the command names its Node, so systemd's default PATH is enough (issue 32, item 3).
   */
  environment: Record<string, string>;
}

/**
 * The service's `serve` command with the broker's V8 flags (cli/runtime-flags.ts) given from the start, so the
 * broker does not re-execute itself for them (one Node start less, about 40 ms of CPU): on node's command line,
 * or in NODE_OPTIONS for a program that is a script (its interpreter line takes no flags).
 */
export function serveSpec(program: string[], environment: Record<string, string>): ServiceSpec {
  const [node, ...rest] = program;
  if (node !== undefined && rest.length > 0)
    return { argv: [node, ...SERVE_NODE_FLAGS, ...rest, "serve"], environment };
  return { argv: [...program, "serve"], environment: { ...environment, NODE_OPTIONS: SERVE_NODE_FLAGS.join(" ") } };
}

export type { ServicePlatform } from "@notify/contracts/enums";

/** The first line of every file `notify service install` writes: uninstall removes only a file that has it. */
export const MARKER = "Written by `notify service install`; `notify service uninstall` removes it.";
export const LAUNCHD_LABEL = "dev.notify.broker";

export function systemdUnitPath(env: NodeJS.ProcessEnv = process.env): string {
  const config =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(config, "systemd", "user", "notify.service");
}

export function launchdPlistPath(): string {
  return join(homedir(), "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
}

/** Where launchd writes the broker's output (systemd keeps it in the user journal). */
export function launchdLogPath(): string {
  return join(homedir(), "Library", "Logs", "notify.log");
}

/**
 * One word of ExecStart or Environment, quoted as systemd.service(5) reads it: double quotes around anything with
 * a space or quote, `\` and `"` escaped, and `%` and `$` doubled so systemd expands neither specifiers nor variables.
 */
function systemdWord(word: string): string {
  const escaped = word.replaceAll("%", "%%").replaceAll("$", "$$$$");
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped)
    ? escaped
    : `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** A systemd user unit (systemd.service(5)); Restart=on-failure brings a crashed broker back, a clean stop stays. */
export function systemdUnit(spec: ServiceSpec): string {
  const environment = Object.entries(spec.environment).map(
    ([name, value]) => `Environment=${systemdWord(`${name}=${value}`)}\n`,
  );
  return (
    `# ${MARKER}\n` +
    "[Unit]\n" +
    "Description=Notify, the attention broker for AI coding agents\n" +
    "\n" +
    "[Service]\n" +
    "Type=simple\n" +
    `ExecStart=${spec.argv.map(systemdWord).join(" ")}\n` +
    environment.join("") +
    "Restart=on-failure\n" +
    "RestartSec=2\n" +
    "\n" +
    "[Install]\n" +
    "WantedBy=default.target\n"
  );
}

const xml = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** A launchd agent (launchd.plist(5)): started at login, restarted only after a crash, output to a log file. */
export function launchdPlist(spec: ServiceSpec): string {
  const strings = (values: string[]) => values.map((value) => `\t\t<string>${xml(value)}</string>\n`).join("");
  const environment = Object.entries(spec.environment)
    .map(([name, value]) => `\t\t<key>${xml(name)}</key>\n\t\t<string>${xml(value)}</string>\n`)
    .join("");
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
    `<!-- ${MARKER} -->\n` +
    '<plist version="1.0">\n' +
    "<dict>\n" +
    `\t<key>Label</key>\n\t<string>${LAUNCHD_LABEL}</string>\n` +
    `\t<key>ProgramArguments</key>\n\t<array>\n${strings(spec.argv)}\t</array>\n` +
    `\t<key>EnvironmentVariables</key>\n\t<dict>\n${environment}\t</dict>\n` +
    "\t<key>RunAtLoad</key>\n\t<true/>\n" +
    "\t<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n" +
    `\t<key>StandardOutPath</key>\n\t<string>${xml(launchdLogPath())}</string>\n` +
    `\t<key>StandardErrorPath</key>\n\t<string>${xml(launchdLogPath())}</string>\n` +
    "</dict>\n" +
    "</plist>\n"
  );
}
