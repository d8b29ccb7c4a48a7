import { cappedServerDelayMs } from "@notify/contracts/retry";
import { readableText } from "../../outbox/providers/readable-text.js";
import { truncate } from "../../outbox/providers/text-limits.js";
import { answerFromChat, isAccepted, loopSecrets, SurfaceFailure, unlessAccepted } from "../chat-loop.js";
import { outcomeLine } from "../question-text.js";
import { outcomeReply } from "../settle.js";
import type { SurfaceLoopContext } from "../supervisor.js";
import { type BotApiResult, botApi, telegramAccount } from "./api.js";

/** The parts of a Bot API Update the broker reads (https://core.telegram.org/bots/api#update). */
interface TgUser {
  id: number;
  is_bot?: boolean;
  first_name?: string;
  last_name?: string;
  username?: string;
}
interface TgMessage {
  message_id: number;
  from?: TgUser;
  chat: { id: number };
  text?: string;
  reply_to_message?: { message_id: number; chat?: { id: number } };
}
interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  callback_query?: { id: string; from: TgUser; message?: TgMessage; data?: string };
}

/** sendMessage and editMessageText `text`: at most 4096 characters (https://core.telegram.org/bots/api#sendmessage). */
const TEXT_MAX = 4096;

/** The name the outcome line shows, chosen by the chat user: cut, and its controls made visible. */
function displayName(user: TgUser): string {
  const name = [user.first_name, user.last_name].filter(Boolean).join(" ").trim();
  return readableText(truncate(name || (user.username ? `@${user.username}` : `user ${user.id}`), 64));
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value);
const isUser = (value: unknown): boolean => isObject(value) && isId(value.id);
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);
const isMessage = (value: unknown): boolean =>
  isObject(value) &&
  isId(value.message_id) &&
  isObject(value.chat) &&
  isId(value.chat.id) &&
  optional(value.from, isUser) &&
  optional(value.text, (text) => typeof text === "string") &&
  optional(value.reply_to_message, (replied) => isObject(replied) && isId(replied.message_id));

/**
 * Whether an update has the shape the loop reads (the fields in TgUpdate, with their types): a tap with its
 * query id and sender, and a message (when present) with its id and chat; a message with its id and chat. An
 * update of another kind is well formed and ignored. A bad one must not throw: the offset would never move past it.
 */
function wellFormed(update: TgUpdate): boolean {
  const query = update.callback_query as unknown;
  if (query !== undefined) {
    return (
      isObject(query) &&
      typeof query.id === "string" &&
      isUser(query.from) &&
      optional(query.message, isMessage) &&
      optional(query.data, (data) => typeof data === "string")
    );
  }
  return update.message === undefined || isMessage(update.message);
}

/**
 * The Telegram answer loop of one provider (`answers: true`): long-polls getUpdates from the stored offset, takes
 * a button tap (callback_query) or a reply to a question message from an allowed user in the configured chat,
 * answers with source `telegram`, answers the callback query, and only then stores the next offset (and so
 * confirms the update to Telegram on the next poll). A crash in between gets the update again; its response id
 * comes from the update, so the second time replays the first answer instead of settling anything twice.
 *
 * Every call has a deadline (a long poll: its `timeout` plus `requestTimeoutMs`), so a server that stops answering
 * shows as `retrying (timeout)` instead of `connected`. A malformed update is skipped, logged once, and its offset
 * stored like any other; the stored offset only moves forward.
 */
export async function telegramLoop(context: SurfaceLoopContext): Promise<void> {
  const { profile, signal, store } = context;
  const settings = profile.settings;
  const base = settings.apiBaseUrl as string;
  const chatId = String(settings.chatId);
  const allowed = new Set((settings.allowedUserIds as string[] | undefined) ?? []);
  const token = loopSecrets(context).botToken ?? "";
  const account = telegramAccount(token);
  if (!account) throw new SurfaceFailure("provider_secret_invalid");
  const botId = account.slice("telegram:".length);

  const { requestTimeoutMs } = context.timings;

  /**
   * One Bot API call, retried on 429 (retry_after, capped) and 5xx/network failures (a missed deadline too) with
   * backoff, until it works.
   */
  const call = async <T>(method: string, body: Record<string, unknown>): Promise<BotApiResult<T>> => {
    const deadlineMs = (typeof body.timeout === "number" ? body.timeout * 1000 : 0) + requestTimeoutMs;
    let failures = 0;
    for (;;) {
      const reply = await botApi<T>(
        base,
        token,
        method,
        body,
        AbortSignal.any([signal, AbortSignal.timeout(deadlineMs)]),
      );
      if (reply.ok || !reply.retryable || signal.aborted) return reply;
      failures++;
      context.report("retrying", reply.code);
      if (failures >= 5 && method !== "getUpdates") return reply;
      await context.sleep(Math.max(context.backoff(failures), cappedServerDelayMs(reply.retryAfterMs)));
    }
  };

  context.setEditor(account, async (row, interaction, editSignal) => {
    const line = outcomeLine(interaction, "telegram");
    // A message stored before its text was made readable is made so here (a second pass changes nothing).
    const body = truncate(readableText(row.body), Math.max(1, TEXT_MAX - line.length - 2));
    const reply = await botApi(
      base,
      token,
      "editMessageText",
      { chat_id: row.conversation, message_id: Number(row.message), text: `${body}\n\n${line}` },
      context.within(editSignal),
    );
    if (reply.ok) return true;
    // Already showing it, or gone: nothing more to edit. Anything else is tried again on the next rescan.
    return reply.description !== undefined || reply.status === 400;
  });

  /** Who answers in `update`: the response id comes from the update, so a redelivered one replays. */
  const answerer = (update: TgUpdate, from: TgUser) => ({
    responseId: `telegram_${botId}_${update.update_id}`,
    userId: String(from.id),
    name: displayName(from),
  });

  const answerCallback = (id: string, text: string, alert: boolean) =>
    call("answerCallbackQuery", { callback_query_id: id, text, show_alert: alert });

  const tap = async (update: TgUpdate): Promise<void> => {
    const query = update.callback_query as NonNullable<TgUpdate["callback_query"]>;
    if (query.message === undefined || String(query.message.chat.id) !== chatId) {
      context.logger.info(`chat: telegram provider ${profile.name} refused a tap from another chat`);
      await answerCallback(query.id, "Not accepted: this chat does not answer questions.", true);
      return;
    }
    if (!allowed.has(String(query.from.id))) {
      context.logger.info(`chat: telegram provider ${profile.name} refused a tap by user ${query.from.id}`);
      await answerCallback(query.id, "Not accepted: you are not allowed to answer.", true);
      return;
    }
    const handle = typeof query.data === "string" ? store.handle(query.data) : undefined;
    const message = store.message(account, chatId, String(query.message.message_id));
    if (!handle || handle.account !== account || !message || message.interactionId !== handle.interactionId) {
      context.logger.info(`chat: telegram provider ${profile.name} refused an unknown button`);
      await answerCallback(query.id, "Not accepted: this button is not one the broker sent.", true);
      return;
    }
    await answerFromChat(
      context,
      handle.interactionId,
      {
        ...answerer(update, query.from),
        ...(handle.choiceId !== undefined ? { choiceId: handle.choiceId } : {}),
      },
      (outcome) => answerCallback(query.id, outcomeReply(outcome), !isAccepted(outcome)),
    );
  };

  const reply = async (update: TgUpdate): Promise<void> => {
    const message = update.message as TgMessage;
    const replied = message.reply_to_message;
    if (!replied || typeof message.text !== "string" || String(message.chat.id) !== chatId) return;
    const question = store.message(account, chatId, String(replied.message_id));
    if (!question) return;
    if (!message.from || !allowed.has(String(message.from.id))) {
      context.logger.info(`chat: telegram provider ${profile.name} refused a reply by user ${message.from?.id ?? "?"}`);
      return;
    }
    const text = message.text;
    await answerFromChat(
      context,
      question.interactionId,
      { ...answerer(update, message.from), text },
      unlessAccepted((reply) =>
        call("sendMessage", {
          chat_id: chatId,
          text: reply,
          reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true },
        }),
      ),
    );
  };

  /** Malformed updates without a usable update_id are logged once per run: they could come back on every poll. */
  let loggedBadId = false;
  // The first poll does not wait: the page shows "connected" (or the failure) at once, not after a long-poll.
  let first = true;
  while (!signal.aborted) {
    let offset = store.offset(profile.id);
    const page = await call<TgUpdate[]>("getUpdates", {
      ...(offset !== undefined ? { offset } : {}),
      timeout: first ? 0 : context.timings.pollSeconds,
      allowed_updates: ["message", "callback_query"],
    });
    if (signal.aborted) return;
    if (!page.ok) throw new SurfaceFailure(page.code);
    if (!Array.isArray(page.result)) throw new SurfaceFailure("telegram_bad_reply");
    first = false;
    context.report("connected");
    for (const update of page.result as unknown[]) {
      if (signal.aborted) return;
      if (!isObject(update) || !isId(update.update_id) || update.update_id < 0) {
        if (!loggedBadId)
          context.logger.warn(`chat: telegram provider ${profile.name} skipped an update without an id`);
        loggedBadId = true;
        continue;
      }
      const valid = update as unknown as TgUpdate;
      if (!wellFormed(valid)) {
        // Its offset is stored below like any other: logged once, never fetched again.
        context.logger.warn(`chat: telegram provider ${profile.name} skipped malformed update ${valid.update_id}`);
      } else if (valid.callback_query) await tap(valid);
      else if (valid.message) await reply(valid);
      // Only now: the answer above is committed (settleFromChat waits for it). Never backwards: an update with a
      // lower id later in a page must not make the next poll fetch what was confirmed already.
      if (offset === undefined || valid.update_id + 1 > offset) {
        offset = valid.update_id + 1;
        store.saveOffset(profile.id, offset, context.clock.now());
      }
    }
    await context.unit.pendingCommit();
  }
}
