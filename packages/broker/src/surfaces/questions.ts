import type { ChatStore, MessageRow } from "../store/chat-store.js";

/** The hooks a chat adapter posts questions through (broker.ts builds them; without them questions go as text). */
export interface ChatQuestions {
  store: ChatStore;
  now(): number;
  /** A question message was recorded: the supervisor edits it at once if the question is already closed. */
  posted(row: Omit<MessageRow, "closed">): void;
}
