import { randomUUID } from "node:crypto";
import { terminalText } from "@notify/contracts/text";
import { type ClientOptions, createClient, HttpFailure, printJson, withoutNonce } from "../../client/client.js";
import type { InteractionDto } from "../../interactions/types.js";
import { ExitError } from "../exit-error.js";

export interface AnswerOptions extends ClientOptions {
  id: string;
  choice?: string | undefined;
  text?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `notify answer`: reads the interaction for its current request_digest and nonce, then responds once with a fresh
 * response_id (docs/api.md, "POST /v1/interactions/{id}/respond"). Answering again with the answer already given
 * reports that answer and exits 0 (a retry, or a second person agreeing); a different answer is the conflict
 * (exit 1). The nonce is never printed.
 */
export async function answer(options: AnswerOptions): Promise<void> {
  if ((options.choice === undefined) === (options.text === undefined)) {
    throw new ExitError(1, "pass exactly one of --choice <choiceId> or --text <text>");
  }
  const client = createClient(options);
  const path = `/v1/interactions/${encodeURIComponent(options.id)}`;
  const current = await client.request<InteractionDto>("GET", path);
  if (current.status === "answered") return reportExisting(current, options);
  checkAnswerShape(current, options);
  let answered: InteractionDto;
  try {
    answered = await client.request<InteractionDto>("POST", `${path}/respond`, {
      body: {
        response_id: randomUUID(),
        request_digest: current.request_digest,
        nonce: current.nonce,
        choice_id: options.choice,
        text: options.text,
        source: "cli",
      },
      flags: { choice_id: "--choice" },
    });
  } catch (error) {
    // Another answer landed between the read and the respond: the same one is not a conflict.
    if (error instanceof HttpFailure && error.status === 409) {
      return reportExisting(await client.request<InteractionDto>("GET", path), options, error);
    }
    throw error;
  }
  if (options.json) {
    printJson(withoutNonce(answered));
    return;
  }
  const given = options.choice !== undefined ? `choice ${options.choice}` : "text";
  process.stderr.write(`notify: answered interaction ${answered.id} with ${given}\n`);
}

/**
 * The answer against the question as read, so a typo gets the valid choices instead of the broker's
 * `unknown choice_id` (issue 21, item 21). The broker checks again: this only words the refusal.
 */
function checkAnswerShape(current: InteractionDto, options: AnswerOptions): void {
  const valid = current.choices.map((choice) => choice.id).join(", ");
  if (current.kind === "text") {
    if (options.choice !== undefined) {
      throw new ExitError(1, `interaction ${current.id} is a text question: answer with --text <text>`);
    }
    return;
  }
  if (options.choice === undefined) {
    throw new ExitError(1, `interaction ${current.id} is a ${current.kind} question: answer with --choice ${valid}`);
  }
  if (!current.choices.some((choice) => choice.id === options.choice)) {
    throw new ExitError(
      1,
      `unknown choice ${options.choice} for interaction ${current.id}: choose one of ${current.choices
        .map((choice) => `${choice.id} (${choice.label})`)
        .join(", ")}`,
    );
  }
}

function reportExisting(current: InteractionDto, options: AnswerOptions, conflict?: HttpFailure): void {
  const response = current.response;
  const same = options.choice !== undefined ? response?.choice_id === options.choice : response?.text === options.text;
  const given = response?.choice_id !== undefined ? `choice ${response.choice_id}` : "text";
  if (!same) {
    throw conflict ?? new ExitError(1, `409 interaction ${current.id} was already answered with ${given}`);
  }
  if (options.json) {
    printJson(withoutNonce(current));
    return;
  }
  process.stderr.write(
    `notify: interaction ${current.id} was already answered with ${terminalText(given)} (from ${terminalText(response?.source ?? "unknown")})\n`,
  );
}
