import { invalid } from "../../domain/errors.js";
import type { DeliveryResult, ProviderAdapter } from "../types.js";
import { sendHttp } from "./http.js";
import { httpUrl, joinUrl, onlyFields, optionalBoolean, optionalChoice, settingsObject } from "./settings.js";
import { messageOf, truncate } from "./text-limits.js";

export const TELEGRAM_API_BASE_URL = "https://api.telegram.org";

/** sendMessage `text`: 1-4096 characters after entities parsing (https://core.telegram.org/bots/api#sendmessage). */
const TEXT_MAX = 4096;

const PARSE_MODES = ["HTML", "MarkdownV2"] as const;
type ParseMode = (typeof PARSE_MODES)[number];

/** A bot token as BotFather issues it: `<bot id>:<secret>`. Anything else could change the URL's path. */
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;

/**
 * Telegram Bot API (https://core.telegram.org/bots/api#sendmessage): POST of JSON `{chat_id, text, parse_mode?,
 * link_preview_options: {is_disabled}}` to `{apiBaseUrl}/bot<botToken>/sendMessage`. Bot API 7.0 replaced
 * `disable_web_page_preview` with `link_preview_options`, so the current field is sent.
 *
 * The bot token is in the URL path, so the URL never reaches a result, an error or a log: sendHttp's results are
 * a status and a fixed code. A 429's `parameters.retry_after` (seconds) is honoured. Telegram has no idempotency
 * key.
 */
export const telegramAdapter: ProviderAdapter = {
  kind: "telegram",
  secrets: { required: ["botToken"], optional: [] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "telegram");
    onlyFields(settings, ["chatId", "apiBaseUrl", "parseMode", "disableLinkPreview"], "telegram");
    const parsed: Record<string, unknown> = {
      chatId: chatId(settings.chatId),
      apiBaseUrl:
        settings.apiBaseUrl === undefined ? TELEGRAM_API_BASE_URL : httpUrl(settings.apiBaseUrl, "apiBaseUrl"),
    };
    const parseMode = optionalChoice(settings.parseMode, "parseMode", PARSE_MODES);
    if (parseMode !== undefined) parsed.parseMode = parseMode;
    const disableLinkPreview = optionalBoolean(settings.disableLinkPreview, "disableLinkPreview");
    if (disableLinkPreview !== undefined) parsed.disableLinkPreview = disableLinkPreview;
    return parsed;
  },
  async send(payload, settings, secrets, context): Promise<DeliveryResult> {
    const token = secrets.botToken ?? "";
    if (!BOT_TOKEN.test(token)) return { ok: false, retryable: false, code: "provider_secret_invalid" };
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
};

/**
 * The title, a blank line and the message; the title is bold when a parse mode is set. Cut to the limit before
 * escaping, since the limit counts the text after entities are parsed.
 */
export function formatText(title: string, message: string | undefined, parseMode: ParseMode | undefined): string {
  const shortTitle = truncate(title, TEXT_MAX);
  // Spec 1, Outbound delivery rule 3: without a message only the title is sent.
  const shortMessage =
    message === undefined ? undefined : truncate(message, Math.max(1, TEXT_MAX - shortTitle.length - 2));
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
