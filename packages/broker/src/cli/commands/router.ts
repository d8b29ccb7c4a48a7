import type { AttemptRecord, RequestRecord } from "@notify/router";
import { configPath } from "../../config/config-file.js";
import { resolveDataDir } from "../../config/paths.js";
import {
  type ClientOptions,
  createClient,
  nonEmpty,
  parseIntegerOption,
  printJson,
  readConfigOrExit,
} from "../client.js";
import { ExitError } from "../exit-error.js";
import { ROUTER_UI, type RouterStatus } from "../router-api.js";
import { cell, formatTable } from "./list.js";

/**
 * `notify router status|key|activity` (spec 3, Agent connectors 5; DESIGN.md, Operational contract). `status` and
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
