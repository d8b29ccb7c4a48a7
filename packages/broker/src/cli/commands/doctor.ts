import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { terminalText } from "@notify/contracts/text";
import type { UnfetchedRoute, UnfetchedRoutes } from "@notify/contracts/ui";
import { brokerTarget, type ClientOptions, createClient, nonEmpty, printJson } from "../../client/client.js";
import { configPath } from "../../config/config-file.js";
import type { AgentId } from "../../hooks/agents.js";
import { HookTokenFile } from "../../hooks/hook-token.js";
import { codexHookTrust } from "../../hooks/install/codex-trust.js";
import { commandOf, HOOK_TOKEN_VARIABLE, isNotifyCommand, isNotifyHttpHook } from "../../hooks/install/entries.js";
import { installStatus } from "../../hooks/install/installer.js";
import { targetFor } from "../../hooks/install/targets.js";
import { mcpStatus } from "../../mcp/install.js";
import { VERSION } from "../../version.js";
import { type Start, startChecker } from "../doctor/command-start.js";
import { outboundCheck } from "../doctor/outbound-check.js";
import { type CheckStatus, managerAnswers, systemdServiceCheck } from "../doctor/service-check.js";
import { ExitError } from "../exit-error.js";
import { backgroundFiles, isBackgroundBroker, readPidFile } from "./start.js";

export interface DoctorOptions extends ClientOptions {
  json?: boolean;
}

interface Check {
  name:
    | "broker"
    | "service"
    | "hooks"
    | "follow-ups"
    | "mcp"
    | "router"
    | "outbound"
    | "relay"
    | "desktop"
    | "data-dir";
  status: CheckStatus;
  detail: string;
  fix?: string;
}

type Json = Record<string, unknown>;
const ok = (name: Check["name"], detail: string): Check => ({ name, status: "ok", detail });
const warn = (name: Check["name"], detail: string, fix: string): Check => ({ name, status: "warn", detail, fix });
const fail = (name: Check["name"], detail: string, fix: string): Check => ({ name, status: "fail", detail, fix });

/** "route questions: 2 deliveries not fetched by any phone after 120 s (the oldest handed over at …)". */
function unfetchedWords(route: UnfetchedRoute, warnAfterSeconds: number): string {
  const count = route.unfetched === 1 ? "1 delivery" : `${route.unfetched} deliveries`;
  return `route ${route.route_name ?? route.route_id}: ${count} not fetched by any phone after ${warnAfterSeconds} s (the oldest handed to the relay at ${route.oldest_at})`;
}

/** A hook command's words as the shell reads them (Notify writes them quoted by shellQuote). */
function commandWords(command: string): string[] {
  const words: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) {
    words.push(match[1] !== undefined ? match[1].replaceAll("'\\''", "'") : (match[2] as string));
  }
  return words;
}

/** The program words of a written command: those before its subcommand (`hook`, `mcp`). */
function programOf(words: string[], subcommand: string): string[] {
  const at = words.indexOf(subcommand);
  return at > 0 ? words.slice(0, at) : words.slice(0, 1);
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
  const [program] = words;
  const script = words.at(-1);
  if (program === undefined) return "an empty command";
  const found = isAbsolute(program)
    ? executable(program)
    : (process.env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && executable(join(dir, program)));
  if (!found) return `${program} cannot be run`;
  if (script?.endsWith(".js") && !existsSync(script)) return `${script} does not exist (a moved or deleted checkout?)`;
  return undefined;
}

/** One hook entry of an agent settings file, with the event it is hooked into. */
type HookEntry = { event: string; hook: Json };

/** Every hook entry of one agent settings file, read and parsed once per doctor run. */
function hookEntries(file: string): HookEntry[] {
  const text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  const hooks = ((JSON.parse(text) as Json).hooks ?? {}) as Record<string, unknown>;
  const entries: HookEntry[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      // Copilot CLI lists its entries flat; the others in matcher groups.
      const hooks = Array.isArray((group as Json)?.hooks) ? ((group as Json).hooks as unknown[]) : [group];
      for (const hook of hooks) entries.push({ event, hook: hook as Json });
    }
  }
  return entries;
}

/** Notify's hook commands in one agent settings file (Copilot CLI's under `bash`), as words, with their event. */
function notifyCommands(entries: HookEntry[], agent: AgentId): { event: string; words: string[] }[] {
  return entries
    .filter(({ hook }) => isNotifyCommand(commandOf(hook), agent))
    .map(({ event, hook }) => ({ event, words: commandWords(commandOf(hook) as string) }));
}

/**
 * The commands of Notify's OpenCode plugin (install/opencode-plugin.ts): each `notify hook opencode <event>` is
 * written as a JSON array of words.
 */
function pluginCommands(file: string): { event: string; words: string[] }[] {
  const commands: { event: string; words: string[] }[] = [];
  for (const [array] of readFileSync(file, "utf8").matchAll(/\[(?:"(?:[^"\\]|\\.)*",?)+\]/g)) {
    const words = JSON.parse(array) as string[];
    const at = words.indexOf("hook");
    if (at >= 0 && words[at + 1] === "opencode") commands.push({ event: words[at + 2] ?? "", words });
  }
  return commands;
}

/** Notify's `"type": "http"` hooks in one Claude Code settings file, each with the port its URL names. */
function notifyHttpPorts(entries: HookEntry[]): { event: string; port: number }[] {
  return entries
    .filter(({ hook }) => isNotifyHttpHook(hook))
    .map(({ event, hook }) => ({ event, port: Number(new URL(String(hook.url)).port) }));
}

/** The hook token in Claude Code's user settings `env`, or undefined. */
function settingsHookToken(): string | undefined {
  try {
    const file = targetFor("claude-code", "user").file;
    const env = (JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, "")) as Json).env as Json | undefined;
    const token = env?.[HOOK_TOKEN_VARIABLE];
    return typeof token === "string" ? token : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What breaks Claude Code's http hooks, filed like a command's problem: a URL naming another port than this broker's,
 * or a hook token in the user's settings that is not the one the broker accepts (never printed).
 */
function examineHttp(found: Findings, all: HookEntry[], broker: { dataDir: string; port: number }): number {
  const entries = notifyHttpPorts(all);
  if (entries.length === 0) return 0;
  const token = new HookTokenFile(broker.dataDir).current();
  const inSettings = settingsHookToken();
  const file_ = (problem: string, event: string): void => {
    const affected = found.fail.get(problem) ?? [];
    if (!affected.includes(event)) affected.push(event);
    found.fail.set(problem, affected);
  };
  for (const { event, port } of entries) {
    if (port !== broker.port) file_(`http hooks post to port ${port}, the broker is on ${broker.port}`, event);
    if (token === undefined) file_("the broker has no hook token", event);
    else if (inSettings !== token) {
      file_(
        inSettings === undefined
          ? `${HOOK_TOKEN_VARIABLE} is not in Claude Code's user settings env`
          : `the ${HOOK_TOKEN_VARIABLE} in Claude Code's user settings is not the broker's hook token`,
        event,
      );
    }
  }
  return entries.length;
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

/** What a run of doctor found about the written commands: problems by severity and the Nodes that run them. */
interface Findings {
  fail: Map<string, string[]>;
  warn: Map<string, string[]>;
  nodes: Set<string>;
}

const findings = (): Findings => ({ fail: new Map(), warn: new Map(), nodes: new Set() });

/** Files a written command's program under its problem (with `what` it breaks), or its Node when it starts. */
function examine(found: Findings, program: string[], what: string, starts: (program: string[]) => Start): void {
  const missing = resolvable(program);
  const start: Start = missing !== undefined ? { status: "fail", problem: missing } : starts(program);
  if (start.status === "ok") {
    found.nodes.add(start.node);
    return;
  }
  const byProblem = found[start.status];
  const affected = byProblem.get(start.problem) ?? [];
  if (!affected.includes(what)) affected.push(what);
  byProblem.set(start.problem, affected);
}

const runsWith = (found: Findings): string => (found.nodes.size > 0 ? `; run with ${[...found.nodes].join(", ")}` : "");

async function hooksCheck(
  starts: (program: string[]) => Start,
  broker: { dataDir: string; port: number },
): Promise<Check> {
  const installed = installStatus({}).filter((row) => row.events !== null && row.events.length > 0);
  if (installed.length === 0)
    return ok("hooks", "no agent hooks installed (notify hooks install claude-code|codex|copilot|gemini|opencode)");
  const problems: { status: "fail" | "warn"; text: string; row: (typeof installed)[number] }[] = [];
  const all = findings();
  let http = 0;
  for (const row of installed) {
    // One sentence per problem, naming the events it breaks: a moved checkout breaks every hook of the file alike
    // (issue 31, item 12). Each distinct command is run as the agent runs it, without this shell's PATH (issue 32).
    const found = findings();
    const entries = row.agent === "opencode" ? [] : hookEntries(row.file);
    const commands = row.agent === "opencode" ? pluginCommands(row.file) : notifyCommands(entries, row.agent);
    for (const { event, words } of commands) examine(found, programOf(words, "hook"), event, starts);
    if (row.agent === "claude-code") http += examineHttp(found, entries, broker);
    for (const node of found.nodes) all.nodes.add(node);
    for (const status of ["fail", "warn"] as const) {
      for (const [problem, affected] of found[status]) {
        const text = `${row.agent} ${row.scope} hooks (${affected.join(", ")}) in ${row.file}: ${problem}`;
        problems.push({ status, text, row });
      }
    }
  }
  const where = installed.map((row) => `${row.agent} ${row.scope}`).join(", ");
  if (problems.length === 0) {
    const trust = installed.some((row) => row.agent === "codex") ? await codexTrust() : "";
    if (typeof trust !== "string") return trust;
    const kinds = http > 0 ? `; ${http} http hooks reach this broker with its hook token` : "";
    return ok("hooks", `installed for ${where}; every command starts without PATH${runsWith(all)}${kinds}${trust}`);
  }
  const fixes = [...new Set(problems.map(({ row }) => `notify hooks install ${row.agent} --scope ${row.scope}`))];
  const detail = problems.map((problem) => problem.text).join("; ");
  return problems.some((problem) => problem.status === "fail")
    ? fail("hooks", detail, fixes.join(" && "))
    : warn("hooks", detail, fixes.join(" && "));
}

/** Notify's MCP server entries (notify mcp install): each one's command must still start (docs/mcp.md). */
function mcpCheck(starts: (program: string[]) => Start): Check {
  const rows = mcpStatus();
  const unreadable = rows.filter((row) => row.installed === null);
  const installed = rows.filter((row) => row.installed === true);
  if (installed.length === 0 && unreadable.length === 0) {
    return ok("mcp", "not installed (optional: notify mcp install claude-code|codex|copilot|gemini|opencode)");
  }
  const all = findings();
  const broken: string[] = unreadable.map((row) => `${row.agent} ${row.scope}: ${row.file} cannot be parsed`);
  const fixes = unreadable.map((row) => `fix ${row.file} by hand`);
  let failed = unreadable.length > 0;
  for (const row of installed) {
    const found = findings();
    examine(found, programOf(row.command ?? [], "mcp"), `${row.agent} ${row.scope}`, starts);
    for (const node of found.nodes) all.nodes.add(node);
    const problems = [...found.fail.keys(), ...found.warn.keys()];
    if (problems.length === 0) continue;
    failed ||= found.fail.size > 0;
    broken.push(`${row.agent} ${row.scope}: ${problems.join("; ")}`);
    fixes.push(`notify mcp install ${row.agent} --scope ${row.scope}`);
  }
  const where = installed.map((row) => `${row.agent} ${row.scope}`).join(", ");
  if (broken.length === 0)
    return ok("mcp", `installed for ${where}; every command starts without PATH${runsWith(all)}`);
  const fix = [...new Set(fixes)].join(" && ");
  return failed ? fail("mcp", broken.join("; "), fix) : warn("mcp", broken.join("; "), fix);
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
  // The deadline is cleared once the bus answers: a pending timer would keep `notify doctor` alive 3 s after its
  // report (4.3 s against 1.3 s in a desktop session).
  let deadline: NodeJS.Timeout | undefined;
  try {
    const names = await Promise.race([
      bus.getProxyObject("org.freedesktop.DBus", "/org/freedesktop/DBus").then(async (object) => {
        const iface = object.getInterface("org.freedesktop.DBus");
        return (iface as unknown as { ListNames(): Promise<string[]> }).ListNames();
      }),
      new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error("the session bus did not answer")), 3_000);
      }),
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
    clearTimeout(deadline);
    bus.disconnect();
  }
}

/** config.json `followUp` as the broker read it at start (docs/hooks.md, "Follow-ups"), and the presence it uses. */
async function followUpCheck(client: ReturnType<typeof createClient>): Promise<Check> {
  const state = await client.request<Json>("GET", "/v1/follow-up", { timeoutMs: 3_000 }).catch(() => undefined);
  if (state === undefined) {
    return warn("follow-ups", "unknown: the broker does not say (an older broker?)", "restart the broker");
  }
  if (state.wait_seconds === 0) return ok("follow-ups", "off (config.json followUp.waitSeconds 0)");
  return ok(
    "follow-ups",
    `a finished turn waits up to ${state.wait_seconds} s for a reply while you are away, at most ` +
      `${state.max_in_a_row} in a row (presence now: ${state.presence})`,
  );
}

/** `notify doctor [--json]` (docs/install.md, "notify doctor"): one line per check; exit 1 on any fail. */
export async function doctor(options: DoctorOptions): Promise<void> {
  const checks: Check[] = [];
  const { dataDir, baseUrl } = brokerTarget(options);
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
        process.platform === "linux" && !managerAnswers()
          ? "notify start (then notify logs if it does not answer)"
          : "notify service install (or notify serve)",
      ),
    );
  }

  const starts = startChecker();
  const pid = readPidFile(backgroundFiles(dataDir).pidFile);
  const background = { pid, live: pid !== undefined && isBackgroundBroker(pid) };
  if (process.platform === "linux") {
    checks.push({ name: "service", ...systemdServiceCheck(reachable, starts, background) });
  }
  checks.push(await hooksCheck(starts, { dataDir, port: Number(new URL(baseUrl).port) }));
  if (reachable && client !== undefined) checks.push(await followUpCheck(client));
  checks.push(mcpCheck(starts));

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
    checks.push({
      name: "outbound",
      ...(await outboundCheck(client).catch((error: Error) => ({
        status: "warn" as const,
        detail: `cannot read the outbound providers: ${error.message}`,
        fix: "notify outbound list",
      }))),
    });
    const devices = await client.request<Json>("GET", "/ui/api/relay/devices", { ui: true }).then(
      (body) => ({ ok: true as const, body }),
      (error: Error) => ({ ok: false as const, message: error.message }),
    );
    if (devices.ok) {
      const paired = `enrolled and reachable; ${((devices.body.devices as unknown[]) ?? []).length} paired device(s)`;
      // Receipts (issue 37, item 3): a route whose phones fetch nothing is a warning, not a reachable relay's ok.
      const unfetched = await client
        .request<UnfetchedRoutes>("GET", "/ui/api/relay/unfetched", { ui: true })
        .catch(() => undefined);
      const late = unfetched?.routes ?? [];
      checks.push(
        late.length === 0
          ? ok("relay", paired)
          : warn(
              "relay",
              `${paired}; but ${late.map((route) => unfetchedWords(route, unfetched?.warn_after_seconds ?? 0)).join("; ")}`,
              "open the Notify app on the phone and turn its notifications on (notify relay devices lists the phones)",
            ),
      );
    } else if (/no relay is configured/.test(devices.message)) {
      checks.push(ok("relay", "not enrolled (optional: notify relay enroll URL --enrollment-token T)"));
    } else {
      // The broker's sentence names the cause (relay-admin.ts); the fix follows it (issue 32, item 6).
      const fix = /tls_untrusted/.test(devices.message)
        ? "start the broker with NODE_EXTRA_CA_CERTS=/path/to/ca.pem (the service: systemctl --user edit notify.service)"
        : /HTTP 401/.test(devices.message)
          ? "notify relay enroll URL --enrollment-token T (the relay no longer knows this installation)"
          : "check the relay's URL and that it runs (notify relay devices)";
      checks.push(fail("relay", `enrolled but: ${devices.message}`, fix));
    }
  } else {
    checks.push(warn("router", "unknown: the broker does not answer", "start the broker"));
    checks.push(warn("outbound", "unknown: the broker does not answer", "start the broker"));
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
