import { type ClientOptions, createClient } from "../../client/client.js";
import type { NotificationDto } from "../../notifications/types.js";

export interface ResolveOptions extends ClientOptions {
  id: string;
}

/** `notify resolve <id>`: PATCH /v1/notifications/{id} `{status: "resolved"}`; prints `<id> <status>`. */
export async function resolve(options: ResolveOptions): Promise<void> {
  const client = createClient(options);
  const notification = await client.request<NotificationDto>(
    "PATCH",
    `/v1/notifications/${encodeURIComponent(options.id)}`,
    { body: { status: "resolved" } },
  );
  process.stdout.write(`${notification.id} ${notification.status}\n`);
}
