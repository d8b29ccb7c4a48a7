import { type ClientOptions, createClient, printJson, withoutNonce } from "../../client/client.js";
import type { InteractionDto } from "../../interactions/types.js";

export interface CancelOptions extends ClientOptions {
  id: string;
  json?: boolean | undefined;
}

/** `notify cancel ID`: withdraws a pending question (its waiters wake); idempotent on a settled one. */
export async function cancel(options: CancelOptions): Promise<void> {
  const client = createClient(options);
  const path = `/v1/interactions/${encodeURIComponent(options.id)}`;
  // Cancel is idempotent on a settled question, so only the state before it tells "cancelled now" apart.
  const before = await client.request<InteractionDto>("GET", path);
  const interaction = await client.request<InteractionDto>("POST", `${path}/cancel`);
  if (options.json) return printJson(withoutNonce(interaction));
  const said =
    before.status === "pending" && interaction.status === "cancelled"
      ? `cancelled interaction ${interaction.id}`
      : `interaction ${interaction.id} is already ${interaction.status}; nothing changed`;
  process.stderr.write(`notify: ${said}\n`);
}
