import { type ClientOptions, createClient, printJson } from "../../client/client.js";
import type { NotificationDto } from "../../notifications/types.js";

export interface ReopenOptions extends ClientOptions {
  id: string;
  json?: boolean | undefined;
}

/** `notify reopen ID`: a dismissed or resolved notification becomes active again (PATCH status active). */
export async function reopen(options: ReopenOptions): Promise<void> {
  const client = createClient(options);
  const notification = await client.request<NotificationDto>(
    "PATCH",
    `/v1/notifications/${encodeURIComponent(options.id)}`,
    { body: { status: "active" } },
  );
  if (options.json) return printJson(notification);
  process.stderr.write(`notify: reopened notification ${notification.id}\n`);
}
