import { invalid } from "../../domain/errors.js";
import { sendHttp } from "../../outbox/providers/http.js";
import { readableText } from "../../outbox/providers/readable-text.js";
import { httpUrl, joinUrl, optionalBoolean, optionalChoice } from "../../outbox/providers/settings.js";
import { messageOf, truncate } from "../../outbox/providers/text-limits.js";
import type {
  DeliveryContext,
  DeliveryResult,
  EditableMessages,
  OutboundPayload,
  ProviderAdapter,
} from "../../outbox/types.js";
import { chatSettings } from "../chat-settings.js";
import { contextBlock, questionBody } from "../question-text.js";
import { type ChatQuestions, failedDelivery, posted } from "../questions.js";
import { BOT_TOKEN, botApi, telegramAccount } from "./api.js";

export const TELEGRAM_API_BASE_URL = "https://api.telegram.org";

/** sendMessage `text`: 1-4096 characters after entities parsing (https://core.telegram.org/bots/api#sendmessage). */
const TEXT_MAX = 4096;

const PARSE_MODES = ["HTML", "MarkdownV2"] as const;
type ParseMode = (typeof PARSE_MODES)[number];

/**
 * Plain-text messages posted and edited later (docs/outbound.md, "Less noise"): a digest, a session's "finished"
 * notification. sendMessage, then editMessageText on the handle `<chat id>:<message id>`; an edit Telegram answers
 * "message is not modified" already shows the text. Edits make no sound: a digest notifies once per window.
 */
const telegramEditable: EditableMessages = {
  async post(text, settings, secrets, context) {
    const token = secrets.botToken ?? "";
    if (!BOT_TOKEN.test(token)) return { result: { ok: false, retryable: false, code: "provider_secret_invalid" } };
    const reply = await botApi<{ message_id: number; chat: { id: number } }>(
      settings.apiBaseUrl as string,
      token,
      "sendMessage",
      { chat_id: settings.chatId, text: truncate(text, TEXT_MAX), link_preview_options: { is_disabled: true } },
      context.signal,
    );
    if (!reply.ok) return { result: failedDelivery(reply) };
    const message = reply.result;
    if (typeof message?.message_id !== "number" || message.chat === undefined) {
      return { result: { ok: false, retryable: true, code: "telegram_bad_reply", status: 200 } };
    }
    return { result: { ok: true, status: 200 }, handle: `${message.chat.id}:${message.message_id}` };
  },
  async edit(handle, text, settings, secrets, context) {
    const token = secrets.botToken ?? "";
    if (!BOT_TOKEN.test(token)) return { ok: false, retryable: false, code: "provider_secret_invalid" };
    const split = handle.lastIndexOf(":");
    const reply = await botApi(
      settings.apiBaseUrl as string,
      token,
      "editMessageText",
      {
        chat_id: handle.slice(0, split),
        message_id: Number(handle.slice(split + 1)),
        text: truncate(text, TEXT_MAX),
        link_preview_options: { is_disabled: true },
      },
      context.signal,
    );
    if (reply.ok || /message is not modified/i.test(reply.description ?? "")) return { ok: true, status: 200 };
    return failedDelivery(reply);
  },
};

/**
 * Telegram Bot API (https://core.telegram.org/bots/api#sendmessage): POST of JSON `{chat_id, text, parse_mode?,
 * link_preview_options: {is_disabled}}` to `{apiBaseUrl}/bot<botToken>/sendMessage`. Bot API 7.0 replaced
 * `disable_web_page_preview` with `link_preview_options`, so the current field is sent.
 *
 * The bot token is in the URL path, so the URL never reaches a result, an error or a log: sendHttp's results are
 * a status and a fixed code. A 429's `parameters.retry_after` (seconds) is honoured. Telegram has no idempotency
 * key.
 */
export const telegramAdapter: ProviderAdapter = telegramAdapterWith(undefined);

/**
 * The adapter with answers (issue 25): with `answers: true` and the chat hooks, a notification that asks a
 * question goes out with one inline button per choice (callback_data a handle from store/chat-store.ts), or asks
 * for a reply (force_reply) for a text question, and the message is recorded so the outcome can be shown on it.
 */
export function telegramAdapterWith(chat: ChatQuestions | undefined): ProviderAdapter {
  return {
    kind: "telegram",
    secrets: { required: ["botToken"], optional: [] },
    parseSettings(raw) {
      const settings = chatSettings(raw, "telegram", [
        "chatId",
        "apiBaseUrl",
        "parseMode",
        "disableLinkPreview",
        "answers",
        "allowedUserIds",
      ]);
      const parsed: Record<string, unknown> = {
        chatId: chatId(settings.chatId),
        apiBaseUrl:
          settings.apiBaseUrl === undefined ? TELEGRAM_API_BASE_URL : httpUrl(settings.apiBaseUrl, "apiBaseUrl"),
      };
      const parseMode = optionalChoice(settings.parseMode, "parseMode", PARSE_MODES);
      if (parseMode !== undefined) parsed.parseMode = parseMode;
      const disableLinkPreview = optionalBoolean(settings.disableLinkPreview, "disableLinkPreview");
      if (disableLinkPreview !== undefined) parsed.disableLinkPreview = disableLinkPreview;
      const answers = optionalBoolean(settings.answers, "answers");
      const allowed = userIds(settings.allowedUserIds);
      if (answers === true && allowed === undefined) {
        throw invalid("allowedUserIds is required with answers: true (the Telegram user ids that may answer)");
      }
      if (answers !== undefined) parsed.answers = answers;
      if (allowed !== undefined) parsed.allowedUserIds = allowed;
      return parsed;
    },
    async send(payload, settings, secrets, context): Promise<DeliveryResult> {
      const token = secrets.botToken ?? "";
      if (!BOT_TOKEN.test(token)) return { ok: false, retryable: false, code: "provider_secret_invalid" };
      if (chat && settings.answers === true && payload.interaction !== undefined && !payload.test) {
        return sendQuestion(chat, payload, settings, token, context);
      }
      const parseMode = settings.parseMode as ParseMode | undefined;
      const body: Record<string, unknown> = {
        chat_id: settings.chatId,
        text: formatText(payload.title, messageOf(payload), parseMode),
      };
      if (parseMode !== undefined) body.parse_mode = parseMode;
      body.link_preview_options = { is_disabled: settings.disableLinkPreview !== false };
      return sendHttp({
        url: joinUrl(settings.apiBaseUrl as string, `bot${token}/sendMessage`),
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: context.signal,
        retryAfterFromBody: (response) => {
          const seconds = (response as { parameters?: { retry_after?: unknown } } | null)?.parameters?.retry_after;
          return typeof seconds === "number" && seconds >= 0 ? seconds * 1000 : undefined;
        },
      });
    },
    editable: telegramEditable,
  };
}

/** The reply a text question asks for (force_reply puts the reply box under that message). */
const REPLY_HINT = "Reply to this message with your answer.";

async function sendQuestion(
  chat: ChatQuestions,
  payload: OutboundPayload,
  settings: Record<string, unknown>,
  token: string,
  context: DeliveryContext,
): Promise<DeliveryResult> {
  const question = payload.interaction as NonNullable<OutboundPayload["interaction"]>;
  const account = telegramAccount(token) as string;
  const body = questionBody(payload, question, TEXT_MAX, REPLY_HINT);
  // What it asks about, as a code block (a `pre` entity: plain text needs no escaping), in the room left.
  const block = contextBlock(question.context, TEXT_MAX - body.length - 2);
  const text = block === undefined ? body : `${body}\n\n${block}`;
  const entities =
    block === undefined
      ? undefined
      : [
          {
            type: "pre",
            offset: body.length + 2,
            length: block.length,
            ...(question.context?.kind === "diff" ? { language: "diff" } : {}),
          },
        ];
  let markup: Record<string, unknown>;
  if (question.kind === "text") {
    markup = { force_reply: true, input_field_placeholder: "Your answer" };
  } else {
    const handles = chat.store.addHandles(
      account,
      question.id,
      question.choices.map((choice) => choice.id),
      chat.now(),
    );
    markup = {
      inline_keyboard: question.choices.map((choice, index) => [
        { text: truncate(readableText(choice.label), 64), callback_data: handles[index] },
      ]),
    };
  }
  const reply = await botApi<{ message_id: number; chat: { id: number } }>(
    settings.apiBaseUrl as string,
    token,
    "sendMessage",
    {
      chat_id: settings.chatId,
      text,
      ...(entities !== undefined ? { entities } : {}),
      reply_markup: markup,
      link_preview_options: { is_disabled: true },
    },
    context.signal,
  );
  return posted(
    reply,
    { chat, row: { account, interactionId: question.id, body } },
    (message) =>
      typeof message?.message_id !== "number" || message.chat === undefined
        ? { conversation: undefined, message: undefined }
        : { conversation: String(message.chat.id), message: String(message.message_id) },
    "telegram_bad_reply",
  );
}

/** Telegram user ids (integers) allowed to answer. */
function userIds(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    !Array.isArray(value) ||
    value.length < 1 ||
    value.length > 100 ||
    !value.every(
      (id) =>
        (typeof id === "number" && Number.isSafeInteger(id) && id > 0) ||
        (typeof id === "string" && /^\d{1,20}$/.test(id)),
    )
  ) {
    throw invalid("allowedUserIds must be a list of 1-100 Telegram user ids (integers)");
  }
  return value.map((id) => String(id));
}

/**
 * The title, a blank line and the message; the title is bold when a parse mode is set. Controls are made visible
 * (readableText), then the text is cut to the limit, then escaped, since the limit counts the text after entities
 * are parsed.
 */
export function formatText(title: string, message: string | undefined, parseMode: ParseMode | undefined): string {
  const shortTitle = truncate(readableText(title), TEXT_MAX);
  // docs/outbound.md, "Delivery rules", rule 3: without a message only the title is sent.
  const shortMessage =
    message === undefined ? undefined : truncate(readableText(message), Math.max(1, TEXT_MAX - shortTitle.length - 2));
  switch (parseMode) {
    case undefined:
      return shortMessage === undefined ? shortTitle : `${shortTitle}\n\n${shortMessage}`;
    case "HTML":
      return shortMessage === undefined
        ? `<b>${escapeHtml(shortTitle)}</b>`
        : `<b>${escapeHtml(shortTitle)}</b>\n\n${escapeHtml(shortMessage)}`;
    case "MarkdownV2":
      return shortMessage === undefined
        ? `*${escapeMarkdownV2(shortTitle)}*`
        : `*${escapeMarkdownV2(shortTitle)}*\n\n${escapeMarkdownV2(shortMessage)}`;
    default: {
      const _exhaustive: never = parseMode;
      return _exhaustive;
    }
  }
}

/** HTML style: `<`, `>` and `&` must be entities (https://core.telegram.org/bots/api#html-style). */
function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** MarkdownV2: these characters must be preceded by `\` (https://core.telegram.org/bots/api#markdownv2-style). */
function escapeMarkdownV2(text: string): string {
  return text.replace(/[_*[\]()~`>#+\-=|{}.!\\]/g, (character) => `\\${character}`);
}

/** A chat id: an integer (negative for groups and channels), or `@channelusername`. */
function chatId(value: unknown): string | number {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^-?\d{1,20}$/.test(value)) return value;
  if (typeof value === "string" && /^@[A-Za-z0-9_]{4,32}$/.test(value)) return value;
  throw invalid("chatId must be an integer chat id or @channelusername");
}
