import { DomainError } from "../domain/errors.js";
import type { UnitOfWork } from "../domain/unit-of-work.js";
import type { InteractionService } from "../interactions/service.js";
import type { InteractionDto, RespondInput } from "../interactions/types.js";
import { readableText } from "../outbox/providers/readable-text.js";

/**
 * An answer from a chat app as the respond rules take it, but for the digest and nonce (read here): `response_id`
 * derived from the update (Telegram update_id, Slack action_ts), so the same update replays and never answers
 * twice; `source` the surface's word (its registry entry's); `device_id` `<source>:<user id>` (`telegram:123`,
 * `slack:U0123ABCD`).
 */
export type ChatAnswer = Pick<RespondInput, "response_id" | "source" | "choice_id" | "text"> & { device_id: string };

export type SettleOutcome =
  | { kind: "accepted"; interaction: InteractionDto }
  | { kind: "replayed"; interaction: InteractionDto }
  | { kind: "already_answered"; interaction: InteractionDto }
  | { kind: "closed"; interaction: InteractionDto }
  | { kind: "refused"; reason: string };

/**
 * Answers a question from a chat app through the one answer path every surface uses (InteractionService.answer:
 * the ordered checks of docs/api.md, "POST /v1/interactions/{id}/respond", first valid answer wins). The digest and
 * nonce are read here, on this machine: a button carries neither. Returns once the answer is committed, so the caller
 * may then acknowledge the update.
 */
export async function settleFromChat(
  interactions: InteractionService,
  unit: UnitOfWork,
  interactionId: string,
  answer: ChatAnswer,
): Promise<SettleOutcome> {
  const current = interactions.find(interactionId);
  if (!current) return { kind: "refused", reason: "unknown question" };
  const input: RespondInput = { ...answer, request_digest: current.request_digest, nonce: current.nonce };
  let outcome: SettleOutcome;
  try {
    const settled = interactions.answer(interactionId, input);
    outcome =
      current.status === "answered" && settled.response?.response_id === answer.response_id
        ? { kind: "replayed", interaction: settled }
        : { kind: "accepted", interaction: settled };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const now = interactions.find(interactionId) ?? current;
    if (error.status === 409) outcome = { kind: "already_answered", interaction: now };
    else if (now.status !== "pending") outcome = { kind: "closed", interaction: now };
    else outcome = { kind: "refused", reason: error.message };
  }
  await unit.pendingCommit();
  return outcome;
}

/** The short reply shown to the person who tapped (Telegram's callback answer, a Slack or Discord ephemeral message). */
export function outcomeReply(outcome: SettleOutcome): string {
  switch (outcome.kind) {
    case "accepted":
    case "replayed":
      return "Answer recorded.";
    case "already_answered":
      return "Already answered: your answer was not recorded.";
    case "closed":
      return `This question is ${outcome.interaction.status}: your answer was not recorded.`;
    case "refused":
      // The answer path words its own reasons today; any text that leaves for a chat goes through readableText.
      return `Not accepted: ${readableText(outcome.reason)}.`;
  }
}
