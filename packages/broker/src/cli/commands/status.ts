import { terminalText } from "@notify/contracts/text";
import { type ClientOptions, createClient, printJson } from "../../client/client.js";

export interface StatusOptions extends ClientOptions {
  json?: boolean | undefined;
}

/** HealthResponse (docs/api.md, "GET /v1/health"). */
interface Health {
  status: string;
  version: string;
  pid: number;
  uptimeSeconds: number;
  activeCount: number;
  apiVersion: string;
  serverTimeUtc: string;
}

/** `notify status`: GET /v1/health as a few lines (or the JSON); exits 1 when the broker cannot be reached. */
export async function status(options: StatusOptions): Promise<void> {
  const client = createClient(options);
  const health = await client.request<Health>("GET", "/v1/health");
  if (options.json) {
    printJson(health);
    return;
  }
  const lines: [string, string][] = [
    ["url", client.baseUrl],
    ["status", health.status],
    ["version", health.version],
    ["api", health.apiVersion],
    ["pid", String(health.pid)],
    ["uptime", formatUptime(health.uptimeSeconds)],
    ["active", `${health.activeCount} notification${health.activeCount === 1 ? "" : "s"}`],
  ];
  // Whatever answers on the port wrote these: escaped like any text from the network (docs/cli.md).
  process.stdout.write(lines.map(([name, value]) => `${name.padEnd(8)}${terminalText(value)}\n`).join(""));
}

export function formatUptime(seconds: number): string {
  let rest = Math.floor(seconds);
  const days = Math.floor(rest / 86_400);
  rest -= days * 86_400;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  rest -= minutes * 60;
  const parts: string[] = [];
  if (days > 0) parts.push(`${days}d`);
  if (days > 0 || hours > 0) parts.push(`${hours}h`);
  if (days > 0 || hours > 0 || minutes > 0) parts.push(`${minutes}m`);
  parts.push(`${rest}s`);
  return parts.join(" ");
}
