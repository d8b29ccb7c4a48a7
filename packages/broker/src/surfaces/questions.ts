import type { DeliveryResult } from "../outbox/types.js";
import type { ChatStore, MessageRow } from "../store/chat-store.js";

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
