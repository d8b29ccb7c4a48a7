import type { DeliveryResult } from "../outbox/types.js";
import type { ChatStore, MessageRow } from "../store/chat-store.js";
import type { ChatApiResult } from "./chat-api.js";

/** The hooks a chat adapter posts questions through (broker.ts builds them; without them questions go as text). */
export interface ChatQuestions {
  store: ChatStore;
  now(): number;
  /** A question message was recorded: the supervisor edits it at once if the question is already closed. */
  posted(row: Omit<MessageRow, "closed">): void;
}

/** A chat API's failure as the outbox takes it: retryable or not, the status, a server-named delay. */
export function failedDelivery(reply: {
  code: string;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
}): DeliveryResult {
  const result: DeliveryResult = { ok: false, retryable: reply.retryable, code: reply.code };
  if (reply.status !== undefined) result.status = reply.status;
  if (reply.retryAfterMs !== undefined) result.retryAfterMs = reply.retryAfterMs;
  return result;
}

/** Records a posted question message, and lets the supervisor edit it at once if the question is closed already. */
export function recordQuestion(chat: ChatQuestions, row: Omit<MessageRow, "closed">): void {
  chat.store.addMessage(row, chat.now());
  chat.posted(row);
}

/** The button that opens the answer form of a text question (Slack's modal, Discord's). */
export const TEXT_BUTTON_LABEL = "Answer…";

/** A posted question message, as the chat app's reply named it: where it is. */
export interface PostedAt {
  conversation: unknown;
  message: unknown;
}

/**
 * What posting a message came to, for the outbox: a failed call as failedDelivery maps it; a question message
 * (`question` given) recorded where the reply says it is (`at`), or `badReply` (retried) when the reply does not
 * say; anything else delivered.
 */
export function posted<T>(
  reply: ChatApiResult<T>,
  question: { chat: ChatQuestions; row: Omit<MessageRow, "closed" | "conversation" | "message"> } | undefined,
  at: (result: T) => PostedAt,
  badReply: string,
): DeliveryResult {
  if (!reply.ok) return failedDelivery(reply);
  if (question) {
    const { conversation, message } = at(reply.result);
    if (typeof conversation !== "string" || typeof message !== "string") {
      return { ok: false, retryable: true, code: badReply, status: 200 };
    }
    recordQuestion(question.chat, { ...question.row, conversation, message });
  }
  return { ok: true, status: 200 };
}
