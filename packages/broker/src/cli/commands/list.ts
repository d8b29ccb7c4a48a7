import { terminalText } from "@notify/contracts/text";
import { type ClientOptions, createClient, printJson } from "../../client/client.js";
import { normalizeTypeId } from "../../notifications/type-ids.js";
import type { NotificationDto } from "../../notifications/types.js";

export interface ListOptions extends ClientOptions {
  unresolved?: boolean | undefined;
  type?: string | undefined;
  status?: string | undefined;
  project?: string | undefined;
  agent?: string | undefined;
  limit?: string | undefined;
  json?: boolean | undefined;
}

const COLUMNS = ["ID", "STATUS", "PRIORITY", "TYPE", "AGENT", "PROJECT", "CREATED", "TITLE"] as const;

/** `notify list`: GET /v1/notifications (newest first) as an aligned table, or the JSON array with --json. */
export async function list(options: ListOptions): Promise<void> {
  const client = createClient(options);
  const notifications = await client.request<NotificationDto[]>("GET", "/v1/notifications", {
    query: {
      unresolved: options.unresolved ? "true" : undefined,
      type: options.type !== undefined ? normalizeTypeId(options.type) : undefined,
      status: options.status,
      project: options.project,
      agent: options.agent,
      limit: options.limit,
    },
    flags: { type: "--type", status: "--status", project: "--project", agent: "--agent", limit: "--limit" },
  });
  if (options.json) {
    printJson(notifications);
    return;
  }
  if (notifications.length === 0) {
    process.stderr.write("notify: no notifications\n");
    return;
  }
  const rows = notifications.map((notification) =>
    [
      notification.id,
      notification.status,
      notification.priority,
      notification.type,
      notification.agent,
      notification.project ?? "-",
      notification.createdAt.replace(/\.\d+Z$/, "Z"),
      notification.title,
    ].map(cell),
  );
  process.stdout.write(formatTable([[...COLUMNS], ...rows]));
}

/**
 * One line per value: control characters (newlines, escapes) and bidi controls from agents or the network must not
 * break the table, drive the terminal or reorder what is read; each is shown as a visible escape (docs/cli.md).
 */
export function cell(value: string): string {
  return terminalText(value);
}

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function formatTable(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((value, index) => {
      widths[index] = Math.max(widths[index] ?? 0, value.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((value, index) => (index === row.length - 1 ? value : value.padEnd(widths[index] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}
