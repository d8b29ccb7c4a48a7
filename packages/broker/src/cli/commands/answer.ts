import { randomUUID } from "node:crypto";
import type { InteractionDto } from "../../interactions/types.js";
import { type ClientOptions, createClient, printJson, withoutNonce } from "../client.js";
import { ExitError } from "../exit-error.js";

export interface AnswerOptions extends ClientOptions {
  id: string;
  choice?: string | undefined;
  text?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `notify answer`: reads the interaction for its current request_digest and nonce, then responds once with a fresh
 * response_id (spec 1, POST /v1/interactions/{id}/respond). The nonce is never printed.
 */
export async function answer(options: AnswerOptions): Promise<void> {
  if ((options.choice === undefined) === (options.text === undefined)) {
    throw new ExitError(1, "pass exactly one of --choice <choiceId> or --text <text>");
  }
  const client = createClient(options);
  const path = `/v1/interactions/${encodeURIComponent(options.id)}`;
  const current = await client.request<InteractionDto>("GET", path);
  const answered = await client.request<InteractionDto>("POST", `${path}/respond`, {
    body: {
      response_id: randomUUID(),
      request_digest: current.request_digest,
      nonce: current.nonce,
      choice_id: options.choice,
      text: options.text,
      source: "cli",
    },
  });
  if (options.json) {
    printJson(withoutNonce(answered));
    return;
  }
  const given = options.choice !== undefined ? `choice ${options.choice}` : "text";
  process.stderr.write(`notify: answered interaction ${answered.id} with ${given}\n`);
}
