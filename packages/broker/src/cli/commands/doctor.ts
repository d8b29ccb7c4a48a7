import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { terminalText } from "@notify/contracts/text";
import { configPath } from "../../config/config-file.js";
import { codexHookTrust } from "../../hooks/install/codex-trust.js";
import { isNotifyCommand } from "../../hooks/install/entries.js";
import { installStatus } from "../../hooks/install/installer.js";
import { mcpStatus } from "../../mcp/install.js";
import { systemdUnitPath } from "../../service/service-files.js";
import { VERSION } from "../../version.js";
import { brokerTarget, type ClientOptions, createClient, nonEmpty, printJson } from "../client.js";
import { ExitError } from "../exit-error.js";

export interface DoctorOptions extends ClientOptions {
  json?: boolean;
}

type Status = "ok" | "warn" | "fail";
interface Check {
  name: "broker" | "service" | "hooks" | "mcp" | "router" | "relay" | "desktop" | "data-dir";
  status: Status;
  detail: string;
  fix?: string;
}

type Json = Record<string, unknown>;
const ok = (name: Check["name"], detail: string): Check => ({ name, status: "ok", detail });
const warn = (name: Check["name"], detail: string, fix: string): Check => ({ name, status: "warn", detail, fix });
const fail = (name: Check["name"], detail: string, fix: string): Check => ({ name, status: "fail", detail, fix });

/** The first one or two words of a hook command as the shell reads them (Notify writes them quoted by shellQuote). */
function commandWords(command: string): string[] {
  const words: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) {
    words.push(match[1] !== undefined ? match[1].replaceAll("'\\''", "'") : (match[2] as string));
    if (words.length === 2) break;
  }
  return words;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether the shell could start `program` (an absolute path, or a name on PATH) and, for `node x.js`, find x.js. */
function resolvable(words: string[]): string | undefined {
  const [program, script] = words;
  if (program === undefined) return "an empty command";
  const found = isAbsolute(program)
    ? executable(program)
    : (process.env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && executable(join(dir, program)));
  if (!found) return `${program} cannot be run`;
  if (script?.endsWith(".js") && !existsSync(script)) return `${script} does not exist (a moved or deleted checkout?)`;
  return undefined;
}

/** Notify's hook commands in one agent settings file, each with the event it is hooked into. */
function notifyCommands(file: string, agent: "claude-code" | "codex"): { event: string; command: string }[] {
  const text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  const hooks = ((JSON.parse(text) as Json).hooks ?? {}) as Record<string, unknown>;
  const commands: { event: string; command: string }[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      for (const hook of ((group as Json)?.hooks as unknown[]) ?? []) {
        const command = (hook as Json)?.command;
        if (isNotifyCommand(command, agent)) commands.push({ event, command: command as string });
      }
    }
  }
  return commands;
}

/** Codex's trust of Notify's hooks: a warning naming those it does not run yet, else a note for the ok line. */
async function codexTrust(): Promise<Check | string> {
  const trust = await codexHookTrust(process.cwd());
  if (!trust.checked) return ` (Codex's trust of them not checked: ${trust.reason})`;
  const waiting = trust.hooks.filter((hook) => hook.trustStatus !== "trusted");
  if (waiting.length === 0) return "; Codex trusts them";
  const events = waiting.map((hook) => `${hook.key.split(":").at(-3)} (${hook.trustStatus})`).join(", ");
  return warn(
    "hooks",
    `Codex does not run ${waiting.length} of Notify's hooks until you trust them: ${events}`,
    "start codex, open /hooks and trust Notify's hooks",
  );
}

async function hooksCheck(): Promise<Check> {
  const installed = installStatus({}).filter((row) => row.events !== null && row.events.length > 0);
  if (installed.length === 0) return ok("hooks", "no agent hooks installed (notify hooks install claude-code|codex)");
  const broken: string[] = [];
  for (const row of installed) {
    // One sentence per problem, naming the events it breaks: a moved checkout breaks every hook of the file alike
    // (issue 31, item 12).
    const events = new Map<string, string[]>();
    for (const { event, command } of notifyCommands(row.file, row.agent)) {
      const problem = resolvable(commandWords(command));
      if (problem === undefined) continue;
      const affected = events.get(problem) ?? [];
      if (!affected.includes(event)) affected.push(event);
      events.set(problem, affected);
    }
    for (const [problem, affected] of events) {
      broken.push(`${row.agent} ${row.scope} hooks (${affected.join(", ")}) in ${row.file}: ${problem}`);
    }
  }
  const where = installed.map((row) => `${row.agent} ${row.scope}`).join(", ");
  if (broken.length === 0) {
    const trust = installed.some((row) => row.agent === "codex") ? await codexTrust() : "";
    if (typeof trust !== "string") return trust;
    return ok("hooks", `installed for ${where}; every command resolves${trust}`);
  }
  const agents = [...new Set(installed.map((row) => `notify hooks install ${row.agent} --scope ${row.scope}`))];
  return fail("hooks", broken.join("; "), agents.join(" && "));
}

/** Notify's MCP server entries (notify mcp install): each one's command must still start (docs/mcp.md). */
function mcpCheck(): Check {
  const rows = mcpStatus();
  const unreadable = rows.filter((row) => row.installed === null);
  const installed = rows.filter((row) => row.installed === true);
  const broken: string[] = unreadable.map((row) => `${row.agent} ${row.scope}: ${row.file} cannot be parsed`);
  for (const row of installed) {
    const problem = resolvable(row.command ?? []);
    if (problem !== undefined) broken.push(`${row.agent} ${row.scope}: ${problem}`);
  }
  if (installed.length === 0 && broken.length === 0) {
    return ok("mcp", "not installed (optional: notify mcp install claude-code|codex)");
  }
  const where = installed.map((row) => `${row.agent} ${row.scope}`).join(", ");
  if (broken.length === 0) return ok("mcp", `installed for ${where}; every command resolves`);
  const fixes = [
    ...new Set(
      [...unreadable, ...installed.filter((row) => resolvable(row.command ?? []) !== undefined)].map((row) =>
        row.installed === null ? `fix ${row.file} by hand` : `notify mcp install ${row.agent} --scope ${row.scope}`,
      ),
    ),
  ];
  return fail("mcp", broken.join("; "), fixes.join(" && "));
}

function dataDirCheck(dataDir: string): Check {
  if (!existsSync(dataDir)) return warn("data-dir", `${dataDir} does not exist yet`, "notify serve");
  const wide: string[] = [];
  const dirMode = statSync(dataDir).mode & 0o777;
  if ((dirMode & 0o077) !== 0) wide.push(`${dataDir} is ${dirMode.toString(8)}`);
  const config = configPath(dataDir);
  if (existsSync(config)) {
    const mode = statSync(config).mode & 0o777;
    if ((mode & 0o077) !== 0) wide.push(`${config} is ${mode.toString(8)}`);
  }
  if (wide.length === 0) return ok("data-dir", `${dataDir} is 700 and its secrets 600`);
  return fail("data-dir", `readable by others: ${wide.join(", ")}`, `chmod 700 '${dataDir}' && chmod 600 '${config}'`);
}

async function desktopCheck(): Promise<Check> {
  const address = nonEmpty(process.env.DBUS_SESSION_BUS_ADDRESS);
  if (address === undefined) {
    return warn(
      "desktop",
      "no session bus (DBUS_SESSION_BUS_ADDRESS is not set): no toasts",
      "run Notify in a desktop session",
    );
  }
  const dbus = await import("dbus-next");
  const bus = dbus.sessionBus();
  try {
    const names = await Promise.race([
      bus.getProxyObject("org.freedesktop.DBus", "/org/freedesktop/DBus").then(async (object) => {
        const iface = object.getInterface("org.freedesktop.DBus");
        return (iface as unknown as { ListNames(): Promise<string[]> }).ListNames();
      }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the session bus did not answer")), 3_000)),
    ]);
    if (names.includes("org.freedesktop.Notifications"))
      return ok("desktop", "a notification service is on the session bus");
    return warn(
      "desktop",
      "no org.freedesktop.Notifications on the session bus: no toasts",
      "start a notification daemon (e.g. dunst)",
    );
  } catch (error) {
    return warn("desktop", `session bus: ${(error as Error).message}`, "check DBUS_SESSION_BUS_ADDRESS");
  } finally {
    bus.disconnect();
  }
}

/** `notify doctor [--json]` (DESIGN.md, Installed as a tool): one line per check; exit 1 on any fail. */
export async function doctor(options: DoctorOptions): Promise<void> {
  const checks: Check[] = [];
  const { dataDir } = brokerTarget(options);
  let reachable = false;
  let client: ReturnType<typeof createClient> | undefined;
  try {
    client = createClient(options);
    const health = await client.request<Json>("GET", "/v1/health", { timeoutMs: 3_000 });
    reachable = true;
    const version = String(health.version ?? "unknown");
    checks.push(
      version === VERSION
        ? ok("broker", `answers at ${client.baseUrl} (notify ${version})`)
        : warn(
            "broker",
            `answers at ${client.baseUrl} with notify ${version}, this CLI is ${VERSION}`,
            "restart the broker",
          ),
    );
  } catch (error) {
    checks.push(
      fail(
        "broker",
        `does not answer${client ? ` at ${client.baseUrl}` : ""}: ${(error as Error).message}`,
        "notify service install (or notify serve)",
      ),
    );
  }

  const unit = systemdUnitPath();
  if (process.platform === "linux") {
    checks.push(
      existsSync(unit)
        ? reachable
          ? ok("service", `installed (${unit}) and a broker answers`)
          : fail("service", `installed (${unit}) but no broker answers`, "systemctl --user restart notify.service")
        : warn("service", "not installed: the broker stops with its terminal", "notify service install"),
    );
  }
  checks.push(await hooksCheck());
  checks.push(mcpCheck());

  if (reachable && client !== undefined) {
    const status = await client.request<Json>("GET", "/ui/api/router/status", { ui: true }).catch(() => undefined);
    if (status?.enabled !== true) {
      checks.push(ok("router", "off"));
    } else {
      const key = nonEmpty(JSON.parse(readFileSync(configPath(dataDir), "utf8")).RouterKey as string | undefined);
      const listing = await client
        .request<Json>("GET", "/ui/api/router/agents", { ui: true })
        .catch(() => ({ accounts: [] }));
      const connected = ((listing.accounts as Json[] | undefined) ?? []).filter((account) => account.connected);
      const stale = connected.filter(
        (account) =>
          key === undefined ||
          !((account.files as string[]) ?? []).some(
            (file) => existsSync(file) && readFileSync(file, "utf8").includes(key),
          ),
      );
      checks.push(
        stale.length === 0
          ? ok("router", `on; ${connected.length} connected agent account(s) carry the current router key`)
          : fail(
              "router",
              `${stale.map((account) => `${account.agent} (${account.label})`).join(", ")} carry an old router key`,
              stale.map((account) => `notify router connect ${account.agent}`).join(" && "),
            ),
      );
    }
    const devices = await client.request<Json>("GET", "/ui/api/relay/devices", { ui: true }).then(
      (body) => ({ ok: true as const, body }),
      (error: Error) => ({ ok: false as const, message: error.message }),
    );
    if (devices.ok) {
      checks.push(
        ok("relay", `enrolled and reachable; ${((devices.body.devices as unknown[]) ?? []).length} paired device(s)`),
      );
    } else if (/no relay is configured/.test(devices.message)) {
      checks.push(ok("relay", "not enrolled (optional: notify relay enroll URL --enrollment-token T)"));
    } else {
      checks.push(
        fail(
          "relay",
          `enrolled but: ${devices.message}`,
          "check the relay's URL and that it runs (notify relay devices)",
        ),
      );
    }
  } else {
    checks.push(warn("router", "unknown: the broker does not answer", "start the broker"));
    checks.push(warn("relay", "unknown: the broker does not answer", "start the broker"));
  }
  checks.push(await desktopCheck());
  checks.push(dataDirCheck(dataDir));

  if (options.json) {
    printJson({ checks });
  } else {
    for (const check of checks) {
      // Details carry a relay's or the broker's words and agent account labels: escaped (docs/cli.md).
      process.stdout.write(`${check.status.padEnd(5)} ${check.name.padEnd(9)} ${terminalText(check.detail)}\n`);
      if (check.fix !== undefined) process.stdout.write(`${" ".repeat(16)}fix: ${terminalText(check.fix)}\n`);
    }
  }
  if (checks.some((check) => check.status === "fail")) throw new ExitError(1);
}
