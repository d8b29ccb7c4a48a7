import type { AttemptRecord, RequestRecord } from "@notify/router";
import {
  type ClientOptions,
  createClient,
  nonEmpty,
  parseIntegerOption,
  printJson,
  readConfigOrExit,
} from "../../client/client.js";
import { configPath } from "../../config/config-file.js";
import { resolveDataDir } from "../../config/paths.js";
import { ExitError } from "../exit-error.js";
import { ROUTER_UI, type RouterStatus } from "../router-api.js";
import { cell, formatTable } from "./list.js";

/**
 * `notify router status|key|activity` (docs/connectors.md, "CLI"; docs/cli.md, "notify router"). `status` and
 * `activity` read /ui/api/router; `key` reads config.json (the broker never returns the router key over HTTP) and
 * asks the running broker only to regenerate it.
 */

export interface RouterStatusOptions extends ClientOptions {
  json?: boolean | undefined;
}

export interface RouterKeyOptions extends ClientOptions {
  regenerate?: boolean | undefined;
}

export interface RouterActivityOptions extends ClientOptions {
  limit?: string | undefined;
  json?: boolean | undefined;
}

type ActivityRecord = RequestRecord & { attempts: AttemptRecord[] };

/** `notify router status`: the switch, the base URL agents point at, the key's presence, counts and routing. */
export async function routerStatus(options: RouterStatusOptions): Promise<void> {
  const client = createClient(options);
  const status = await client.request<RouterStatus>("GET", `${ROUTER_UI}/status`, { ui: true });
  const baseUrl = `${client.baseUrl}${status.base_path}`;
  if (options.json) {
    printJson({ ...status, base_url: baseUrl });
    return;
  }
  const lines: [string, string][] = [
    ["router", status.enabled ? "on" : "off"],
    ["base url", baseUrl],
    [
      "key",
      status.has_key ? "set (notify router key prints it)" : "none yet (created when the router is first enabled)",
    ],
    ["upstreams", String(status.upstreams)],
    ["routes", String(status.routes)],
    ["default", status.default_route ?? "-"],
    ["strategy", status.switch_strategy],
    ["fallback", status.native_fallback_route ?? "-"],
    ["body limit", bytesText(status.max_request_body_bytes)],
    ["retention", `${status.ledger_retention_days} day${status.ledger_retention_days === 1 ? "" : "s"}`],
  ];
  process.stdout.write(lines.map(([name, value]) => `${name.padEnd(12)}${cell(value)}\n`).join(""));
}

/**
 * `notify router key`: RouterKey from config.json in the data dir, with no broker needed. `--regenerate` asks the
 * running broker for a new key (the old one stops working at once) and prints the new one from config.json.
 */
export async function routerKey(options: RouterKeyOptions): Promise<void> {
  const dataDir = resolveDataDir(options.dataDir);
  if (options.regenerate) {
    const before = readRouterKey(dataDir);
    const client = createClient(options);
    await client.request("POST", `${ROUTER_UI}/key/regenerate`, { ui: true, body: {} });
    const after = readRouterKey(dataDir);
    if (after === undefined || after === before) {
      // The broker wrote its own config.json: this one belongs to another data dir.
      throw new ExitError(
        1,
        `the broker at ${client.baseUrl} regenerated its router key, but ${configPath(dataDir)} does not hold it: ` +
          "pass the broker's --data-dir",
      );
    }
    process.stdout.write(`${after}\n`);
    return;
  }
  const key = readRouterKey(dataDir);
  if (key === undefined) {
    throw new ExitError(
      1,
      `no router key in ${configPath(dataDir)} yet: enable the router first (router.enabled: true in \`notify apply\`, ` +
        "or the switch on the Providers page); the key is created then",
    );
  }
  process.stdout.write(`${key}\n`);
}

const MIB = 1024 * 1024;

function bytesText(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes} bytes (${bytes / MIB} MiB)` : `${bytes} bytes`;
}

function readRouterKey(dataDir: string): string | undefined {
  return nonEmpty(readConfigOrExit(dataDir).RouterKey);
}

const ACTIVITY_COLUMNS = [
  "TIME",
  "WIRE",
  "MODEL",
  "ROUTE",
  "UPSTREAM",
  "STREAM",
  "STATUS",
  "OUTCOME",
  "TOKENS",
  "ATTEMPTS",
] as const;

/** `notify router activity`: the newest ledger rows with their attempts, as a table or the JSON array. */
export async function routerActivity(options: RouterActivityOptions): Promise<void> {
  const limit = parseIntegerOption("--limit", options.limit);
  const client = createClient(options);
  const records = await client.request<ActivityRecord[]>("GET", `${ROUTER_UI}/activity`, {
    ui: true,
    query: { limit: limit === undefined ? undefined : String(limit) },
    flags: { limit: "--limit" },
  });
  if (options.json) {
    printJson(records);
    return;
  }
  if (records.length === 0) {
    process.stderr.write("notify: no router activity\n");
    return;
  }
  const rows = records.map((record) =>
    [
      record.started_at.replace(/\.\d+Z$/, "Z"),
      record.inbound_wire,
      record.requested_model ?? "-",
      routeText(record),
      record.upstream_slug === null ? "-" : `${record.upstream_slug}/${record.upstream_model ?? "-"}`,
      record.stream ? "yes" : "no",
      record.status === null ? "-" : String(record.status),
      record.outcome ?? (record.finished_at === null ? "running" : "-"),
      `${record.tokens.input ?? "-"}/${record.tokens.output ?? "-"}`,
      record.attempts
        .map((attempt) => `${attempt.upstream_slug}:${attempt.status ?? attempt.error_code ?? "-"}`)
        .join(",") || "-",
    ].map(cell),
  );
  process.stdout.write(formatTable([[...ACTIVITY_COLUMNS], ...rows]));
}

/** `alias:fast`, `combo:chain`, `explicit`, `default:fast`, ... */
function routeText(record: ActivityRecord): string {
  if (record.route_kind === null) return "-";
  return record.route_name ? `${record.route_kind}:${record.route_name}` : record.route_kind;
}

export interface RouterAgentsOptions extends ClientOptions {
  json?: boolean | undefined;
}

export interface RouterConnectOptions extends ClientOptions {
  agent: string;
  model?: string | undefined;
  effort?: string | undefined;
  subagentModel?: string | undefined;
  subagentEffort?: string | undefined;
  reviewModel?: string | undefined;
  smallModel?: string | undefined;
  replaceLineup?: boolean | undefined;
  json?: boolean | undefined;
}

export interface RouterDisconnectOptions extends ClientOptions {
  agent: string;
  json?: boolean | undefined;
}

/** One account row of GET /ui/api/router/agents (packages/broker/src/connectors/connector-service.ts AccountView). */
interface AgentAccountRow {
  id: string;
  agent: string;
  label: string;
  dir: string;
  installed: boolean;
  connected: boolean;
  model: string | null;
  effort: string | null;
  subagent_model: string | null;
  review_model: string | null;
}

const AGENT_COLUMNS = ["AGENT", "ACCOUNT", "DIR", "STATE", "MODEL", "EFFORT", "SUBAGENT", "REVIEW"] as const;

const stateText = (row: AgentAccountRow): string =>
  !row.installed ? "not installed" : row.connected ? "connected" : "not connected";

function agentTable(rows: AgentAccountRow[]): string {
  return formatTable([
    [...AGENT_COLUMNS],
    ...rows.map((row) =>
      [
        row.agent,
        row.label,
        row.dir,
        stateText(row),
        row.model ?? "-",
        row.effort ?? "-",
        row.subagent_model ?? "-",
        row.review_model ?? "-",
      ].map(cell),
    ),
  ]);
}

/** `notify router agents`: every account of Codex and Claude Code with its state, then the routed selectors. */
export async function routerAgents(options: RouterAgentsOptions): Promise<void> {
  const client = createClient(options);
  const listing = await client.request<{ accounts: AgentAccountRow[]; selectors: string[] }>(
    "GET",
    `${ROUTER_UI}/agents`,
    { ui: true },
  );
  if (options.json) {
    printJson(listing);
    return;
  }
  process.stdout.write(agentTable(listing.accounts));
  process.stdout.write(`\nselectors: ${listing.selectors.length === 0 ? "-" : cell(listing.selectors.join(", "))}\n`);
}

/** `notify router connect <agent>`: asks the running broker to point every installed account of the agent at it. */
export async function routerConnect(options: RouterConnectOptions): Promise<void> {
  const agent = agentArgument(options.agent);
  const body: Record<string, unknown> = {};
  for (const [field, value] of [
    ["model", options.model],
    ["effort", options.effort],
    ["subagent_model", options.subagentModel],
    ["subagent_effort", options.subagentEffort],
    ["review_model", options.reviewModel],
    ["small_model", options.smallModel],
  ] as const) {
    if (value !== undefined) body[field] = value;
  }
  if (options.replaceLineup) body.replace_lineup = true;
  const client = createClient(options);
  const result = await client.request<{ accounts: AgentAccountRow[]; notices?: string[] }>(
    "POST",
    `${ROUTER_UI}/agents/${agent}/connect`,
    {
      ui: true,
      body,
      flags: {
        model: "--model",
        effort: "--effort",
        subagent_model: "--subagent-model",
        subagent_effort: "--subagent-effort",
        review_model: "--review-model",
        small_model: "--small-model",
        replace_lineup: "--replace-lineup",
      },
    },
  );
  if (options.json) {
    printJson(result);
    return;
  }
  process.stdout.write(agentTable(result.accounts));
  const connected = result.accounts.filter((row) => row.connected).length;
  process.stderr.write(
    `notify: ${agent} connected to the router (${connected} account${connected === 1 ? "" : "s"})\n`,
  );
  for (const notice of result.notices ?? []) process.stderr.write(`notify: ${cell(notice)}\n`);
}

/** `notify router disconnect <agent>`: Notify's part comes out; files nobody else changed are as before connect. */
export async function routerDisconnect(options: RouterDisconnectOptions): Promise<void> {
  const agent = agentArgument(options.agent);
  const client = createClient(options);
  const result = await client.request<{ accounts: AgentAccountRow[] }>(
    "POST",
    `${ROUTER_UI}/agents/${agent}/disconnect`,
    { ui: true, body: {} },
  );
  if (options.json) {
    printJson(result);
    return;
  }
  process.stdout.write(agentTable(result.accounts));
  process.stderr.write(`notify: ${agent} disconnected from the router\n`);
}

function agentArgument(agent: string): string {
  if (agent !== "codex" && agent !== "claude-code") {
    throw new ExitError(2, `unknown agent ${agent}: codex or claude-code`);
  }
  return agent;
}
