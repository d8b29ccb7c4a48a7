import { randomBytes } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { transaction } from "./database.js";

/** What a button's handle names: the question and the choice it answers (no choice: a text answer's button). */
export interface HandleRow {
  account: string;
  interactionId: string;
  choiceId: string | undefined;
}

/** A question message posted to a chat: where it is, what it asks, whether it shows the outcome yet. */
export interface MessageRow {
  account: string;
  /** Telegram chat id, Slack channel id. */
  conversation: string;
  /** Telegram message_id, Slack ts. */
  message: string;
  interactionId: string;
  /** The text as posted, so the edit keeps it and adds the outcome. */
  body: string;
  closed: boolean;
}

interface MessageRecord {
  account: string;
  conversation: string;
  message: string;
  interaction_id: string;
  body: string;
  closed: number;
}

const toMessage = (row: MessageRecord): MessageRow => ({
  account: row.account,
  conversation: row.conversation,
  message: row.message,
  interactionId: row.interaction_id,
  body: row.body,
  closed: row.closed !== 0,
});

/**
 * The durable state of answers from chat apps (migration 8). A handle is 12 random bytes, base64url (16
 * characters): short enough for Telegram's 64-byte callback_data, unguessable, and meaningless outside this
 * table, so a button never carries the nonce or the digest. An account names the bot a message went out through
 * (`telegram:<bot id>`, `slack:<hash of the bot token>`), so only that bot's updates can use its handles.
 */
export class ChatStore {
  private readonly insertHandle: StatementSync;
  private readonly selectHandle: StatementSync;
  private readonly insertMessage: StatementSync;
  private readonly selectMessage: StatementSync;
  private readonly selectOpen: StatementSync;
  private readonly selectOpenFor: StatementSync;
  private readonly closeMessage: StatementSync;
  private readonly selectEdited: StatementSync;
  private readonly selectOffset: StatementSync;
  private readonly saveOffsetStatement: StatementSync;
  private readonly pruneHandles: StatementSync;
  private readonly pruneMessages: StatementSync;
  private readonly pruneOffsets: StatementSync;

  constructor(private readonly db: DatabaseSync) {
    this.insertHandle = db.prepare(
      "INSERT INTO chat_handles (handle, account, interaction_id, choice_id, created_ms) VALUES (?, ?, ?, ?, ?)",
    );
    this.selectHandle = db.prepare("SELECT account, interaction_id, choice_id FROM chat_handles WHERE handle = ?");
    this.insertMessage = db.prepare(
      `INSERT INTO chat_messages (account, conversation, message, interaction_id, body, created_ms)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    this.selectMessage = db.prepare(
      "SELECT * FROM chat_messages WHERE account = ? AND conversation = ? AND message = ?",
    );
    this.selectOpen = db.prepare("SELECT * FROM chat_messages WHERE closed = 0 AND account = ?");
    this.selectOpenFor = db.prepare("SELECT * FROM chat_messages WHERE closed = 0 AND interaction_id = ?");
    this.closeMessage = db.prepare(
      "UPDATE chat_messages SET closed = 1, closed_ms = ? WHERE account = ? AND conversation = ? AND message = ?",
    );
    this.selectEdited = db.prepare(
      "SELECT account, closed_ms FROM chat_messages WHERE interaction_id = ? AND closed_ms IS NOT NULL ORDER BY closed_ms",
    );
    this.selectOffset = db.prepare("SELECT next_offset FROM chat_offsets WHERE provider_id = ?");
    this.saveOffsetStatement = db.prepare(
      `INSERT INTO chat_offsets (provider_id, next_offset, updated_ms) VALUES (?1, ?2, ?3)
       ON CONFLICT (provider_id) DO UPDATE SET next_offset = ?2, updated_ms = ?3`,
    );
    // A question still pending keeps its handles whatever their age (a deadline is at most an hour away).
    const settled = "interaction_id NOT IN (SELECT id FROM interactions WHERE status = 'pending')";
    this.pruneHandles = db.prepare(`DELETE FROM chat_handles WHERE created_ms < ? AND ${settled}`);
    this.pruneMessages = db.prepare(`DELETE FROM chat_messages WHERE created_ms < ? AND ${settled}`);
    this.pruneOffsets = db.prepare(
      "DELETE FROM chat_offsets WHERE provider_id NOT IN (SELECT id FROM provider_profiles)",
    );
  }

  /** One new handle per entry of `choiceIds` (null: the text answer's button), in order. */
  addHandles(account: string, interactionId: string, choiceIds: (string | null)[], nowMs: number): string[] {
    return transaction(this.db, () =>
      choiceIds.map((choiceId) => {
        const handle = randomBytes(12).toString("base64url");
        this.insertHandle.run(handle, account, interactionId, choiceId, nowMs);
        return handle;
      }),
    );
  }

  handle(handle: string): HandleRow | undefined {
    if (!/^[A-Za-z0-9_-]{16}$/.test(handle)) return undefined;
    const row = this.selectHandle.get(handle) as
      | { account: string; interaction_id: string; choice_id: string | null }
      | undefined;
    return row && { account: row.account, interactionId: row.interaction_id, choiceId: row.choice_id ?? undefined };
  }

  addMessage(row: Omit<MessageRow, "closed">, nowMs: number): void {
    transaction(this.db, () =>
      this.insertMessage.run(row.account, row.conversation, row.message, row.interactionId, row.body, nowMs),
    );
  }

  message(account: string, conversation: string, message: string): MessageRow | undefined {
    const row = this.selectMessage.get(account, conversation, message) as MessageRecord | undefined;
    return row && toMessage(row);
  }

  /** Messages of this account that do not show their outcome yet. */
  openMessages(account: string): MessageRow[] {
    return (this.selectOpen.all(account) as unknown as MessageRecord[]).map(toMessage);
  }

  openMessagesFor(interactionId: string): MessageRow[] {
    return (this.selectOpenFor.all(interactionId) as unknown as MessageRecord[]).map(toMessage);
  }

  /** The message shows the outcome now (edited at `nowMs`, for the item's timeline: migration 15). */
  close(row: Pick<MessageRow, "account" | "conversation" | "message">, nowMs: number = Date.now()): void {
    transaction(this.db, () => this.closeMessage.run(nowMs, row.account, row.conversation, row.message));
  }

  /** When each of a question's messages was edited to its outcome, oldest first (rows closed since migration 15). */
  editedFor(interactionId: string): { account: string; editedMs: number }[] {
    const rows = this.selectEdited.all(interactionId) as { account: string; closed_ms: number }[];
    return rows.map((row) => ({ account: row.account, editedMs: row.closed_ms }));
  }

  /** The next getUpdates offset to ask for; undefined before the first update was settled. */
  offset(providerId: string): number | undefined {
    const row = this.selectOffset.get(providerId) as { next_offset: number } | undefined;
    return row?.next_offset;
  }

  /**
   * Forgets the handles and messages of settled questions posted before `beforeMs`, and the offsets of deleted
   * providers. A tap on a button that old is then refused as unknown. Returns the rows removed.
   */
  prune(beforeMs: number): { handles: number; messages: number; offsets: number } {
    return transaction(this.db, () => ({
      handles: Number(this.pruneHandles.run(beforeMs).changes),
      messages: Number(this.pruneMessages.run(beforeMs).changes),
      offsets: Number(this.pruneOffsets.run().changes),
    }));
  }

  saveOffset(providerId: string, offset: number, nowMs: number): void {
    transaction(this.db, () => this.saveOffsetStatement.run(providerId, offset, nowMs));
  }
}
