import { routingSummary } from "@notify/contracts/routing-summary";
import {
  type BrokerClient,
  type ClientOptions,
  createClient,
  parseIntegerOption,
  printJson,
} from "../../client/client.js";
import {
  type DeliveryResult,
  OUTBOX_STATUSES,
  type OutboundRoute,
  type OutboxItem,
  type ProviderProfile,
} from "../../outbox/types.js";
import { ExitError } from "../exit-error.js";
import { cell, formatTable } from "./list.js";

/**
 * `notify outbound list|test|retry|dead-letters`: outbound delivery through the /ui/api/outbound routes (loopback
 * Host, `X-Notify-UI: 1` on changes, no bearer). Secrets are write-only there: only their names are ever shown.
 */

export interface OutboundListOptions extends ClientOptions {
  json?: boolean | undefined;
}

export interface OutboundTestOptions extends ClientOptions {
  provider: string;
  json?: boolean | undefined;
}

export interface OutboundRetryOptions extends ClientOptions {
  id: string;
  json?: boolean | undefined;
}

export interface OutboundDeadLettersOptions extends ClientOptions {
  limit?: string | undefined;
  json?: boolean | undefined;
}

interface OutboxPage {
  counts: Record<string, number>;
  items: OutboxItem[];
}

const BASE = "/ui/api/outbound";

const yesNo = (value: boolean): string => (value ? "yes" : "no");

/** `notify outbound list`: providers, routes with their gates, and outbox counts by status. */
export async function outboundList(options: OutboundListOptions): Promise<void> {
  const client = createClient(options);
  const [providers, routes, outbox] = await Promise.all([
    client.request<ProviderProfile[]>("GET", `${BASE}/providers`, { ui: true }),
    client.request<OutboundRoute[]>("GET", `${BASE}/routes`, { ui: true }),
    client.request<OutboxPage>("GET", `${BASE}/outbox`, { ui: true, query: { limit: "1" } }),
  ]);
  // Every status, zeros included, so scripts can read `.outbox.DeadLetter` without a default.
  const counts = Object.fromEntries(OUTBOX_STATUSES.map((status) => [status, outbox.counts[status] ?? 0]));
  if (options.json) {
    printJson({ providers, routes, outbox: counts });
    return;
  }
  const providerNames = new Map(providers.map((provider) => [provider.id, provider.name]));
  const tables: string[] = [];
  if (providers.length > 0) {
    // Chat providers that take answers (issue 25) show their loop: connected, or retrying with the last code.
    const connectionOf = (provider: ProviderProfile): string | undefined => {
      const connection = (provider as { connection?: { state: string; lastCode?: string } }).connection;
      if (!connection) return undefined;
      return connection.lastCode && connection.state !== "connected"
        ? `${connection.state} (${connection.lastCode})`
        : connection.state;
    };
    const withAnswers = providers.some((provider) => connectionOf(provider) !== undefined);
    tables.push(
      formatTable([
        ["PROVIDER", "KIND", "ENABLED", "SECRETS", ...(withAnswers ? ["ANSWERS"] : []), "ID"],
        ...providers.map((provider) =>
          [
            provider.name,
            provider.kind,
            yesNo(provider.enabled),
            provider.secretNames.length > 0 ? provider.secretNames.join(",") : "-",
            ...(withAnswers ? [connectionOf(provider) ?? "-"] : []),
            provider.id,
          ].map(cell),
        ),
      ]),
    );
  } else {
    process.stderr.write("notify: no outbound providers\n");
  }
  if (routes.length > 0) {
    tables.push(
      formatTable([
        ["ROUTE", "PROVIDER", "ENABLED", "MIN_PRIORITY", "TYPE", "PROJECT", "AGENT", "MESSAGE", "ID"],
        ...routes.map((route) =>
          [
            route.name,
            providerNames.get(route.providerId) ?? route.providerId,
            yesNo(route.enabled),
            route.minimumPriority,
            route.typeId ?? "-",
            route.project ?? "-",
            route.agent ?? "-",
            route.includeMessage ? "included" : "redacted",
            route.id,
          ].map(cell),
        ),
      ]),
    );
    // Attention routing in words, one line per route (docs/routing.md): when each route delivers.
    tables.push(
      `DELIVERY\n${routes.map((route) => `  ${cell(route.name)}: ${cell(routingSummary(route))}`).join("\n")}\n`,
    );
  } else {
    process.stderr.write("notify: no outbound routes\n");
  }
  tables.push(formatTable([["OUTBOX", ...OUTBOX_STATUSES.map((status) => `${status} ${counts[status]}`)]]));
  process.stdout.write(tables.join("\n"));
}

/**
 * `notify outbound test <provider>`: the provider Test action (docs/outbound.md, "Delivery rules", rule 7); exit 1
 * unless ok.
 */
export async function outboundTest(options: OutboundTestOptions): Promise<void> {
  const client = createClient(options);
  const result = await client.request<DeliveryResult>(
    "POST",
    `${BASE}/providers/${encodeURIComponent(options.provider)}/test`,
    { ui: true, body: {} },
  );
  if (options.json) printJson(result);
  const status = result.status === undefined ? "" : ` (HTTP ${result.status})`;
  if (result.ok) {
    if (!options.json) process.stdout.write(`ok${status}\n`);
    return;
  }
  throw new ExitError(
    1,
    `test of provider ${options.provider} failed: ${result.code}${status}${result.retryable ? ", retryable" : ""}`,
  );
}

/** `notify outbound retry <id>`: a DeadLetter (or Retry) item back to Pending with a fresh attempt budget. */
export async function outboundRetry(options: OutboundRetryOptions): Promise<void> {
  const client = createClient(options);
  const item = await client.request<OutboxItem>("POST", `${BASE}/outbox/${encodeURIComponent(options.id)}/retry`, {
    ui: true,
    body: {},
  });
  if (options.json) printJson(item);
  const message =
    item.status === "Delivered"
      ? `outbox item ${item.id} was already delivered; nothing to retry`
      : `outbox item ${item.id} is ${item.status} again and will be delivered shortly`;
  process.stderr.write(`notify: ${message}\n`);
}

/** `notify outbound dead-letters`: items that gave up, newest first, with their last diagnostic code. */
export async function outboundDeadLetters(options: OutboundDeadLettersOptions): Promise<void> {
  const limit = parseIntegerOption("--limit", options.limit);
  const client = createClient(options);
  const page = await client.request<OutboxPage>("GET", `${BASE}/outbox`, {
    ui: true,
    query: { status: "DeadLetter", limit: limit === undefined ? undefined : String(limit) },
    flags: { limit: "--limit" },
  });
  if (options.json) {
    printJson(page.items);
    return;
  }
  if (page.items.length === 0) {
    process.stderr.write("notify: no dead letters\n");
    return;
  }
  const { providers, routes } = await names(client);
  const rows = page.items.map((item) =>
    [
      item.id,
      providers.get(item.providerId) ?? item.providerId,
      routes.get(item.routeId) ?? item.routeId,
      String(item.attempts),
      lastDiagnostic(item),
      item.updatedAt.replace(/\.\d+Z$/, "Z"),
      item.subject === "notification" ? item.notificationId : item.interactionId,
      item.payload.title,
    ].map(cell),
  );
  process.stdout.write(
    formatTable([["ID", "PROVIDER", "ROUTE", "ATTEMPTS", "LAST", "UPDATED", "NOTIFICATION", "TITLE"], ...rows]),
  );
}

/** Provider and route names by id, for tables that would otherwise show only ids. */
async function names(client: BrokerClient): Promise<{ providers: Map<string, string>; routes: Map<string, string> }> {
  const [providers, routes] = await Promise.all([
    client.request<ProviderProfile[]>("GET", `${BASE}/providers`, { ui: true }),
    client.request<OutboundRoute[]>("GET", `${BASE}/routes`, { ui: true }),
  ]);
  return {
    providers: new Map(providers.map((provider) => [provider.id, provider.name])),
    routes: new Map(routes.map((route) => [route.id, route.name])),
  };
}

/** The sanitized diagnostic the dispatcher kept: a short code, and the HTTP status when it is not in the code. */
function lastDiagnostic(item: OutboxItem): string {
  if (item.lastCode === undefined) return item.lastStatus === undefined ? "-" : `HTTP ${item.lastStatus}`;
  if (item.lastStatus === undefined || item.lastCode === `http_${item.lastStatus}`) return item.lastCode;
  return `${item.lastCode} (HTTP ${item.lastStatus})`;
}
