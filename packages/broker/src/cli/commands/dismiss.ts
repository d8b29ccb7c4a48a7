import { type ClientOptions, createClient } from "../../client/client.js";
import type { NotificationDto } from "../../notifications/types.js";

export interface DismissOptions extends ClientOptions {
  id: string;
}

/** `notify dismiss <id>`: POST /v1/notifications/{id}/dismiss; prints `<id> <status>`. */
export async function dismiss(options: DismissOptions): Promise<void> {
  const client = createClient(options);
  const notification = await client.request<NotificationDto>(
    "POST",
    `/v1/notifications/${encodeURIComponent(options.id)}/dismiss`,
  );
  process.stdout.write(`${notification.id} ${notification.status}\n`);
}
