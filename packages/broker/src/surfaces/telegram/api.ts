import { cappedServerDelayMs } from "@notify/contracts/retry";
import { joinUrl } from "../../outbox/providers/settings.js";
import { type ChatApiFailure, type ChatApiResult, fetchJson, type MethodCall } from "../chat-api.js";

/** A Bot API call's outcome: the `result`, or a status and a fixed code (never the URL, which holds the token). */
export type BotApiResult<T> = ChatApiResult<T, ChatApiFailure & { description?: string }>;

/** A bot token as BotFather issues it: `<bot id>:<secret>`. The bot id is public (it is the bot's user id). */
export const BOT_TOKEN = /^(\d{1,20}):[A-Za-z0-9_-]{20,100}$/;

/** `telegram:<bot id>`: the account a question message went out through; no part of the secret. */
export function telegramAccount(token: string): string | undefined {
  const match = BOT_TOKEN.exec(token);
  return match ? `telegram:${match[1]}` : undefined;
}

/** Descriptions Telegram sends that the broker acts on; any other text is dropped. */
const KNOWN_DESCRIPTIONS = [/message is not modified/i, /message to edit not found/i, /query is too old/i];

/**
 * One Bot API method (https://core.telegram.org/bots/api#making-requests): POST of JSON to
 * `{base}/bot<token>/<method>`, answered `{ok: true, result}` or `{ok: false, error_code, description,
 * parameters?: {retry_after}}`. A 429's `parameters.retry_after` (seconds) becomes `retryAfterMs`, at most
 * MAX_SERVER_DELAY_MS; 5xx and network failures are retryable. `signal` carries the caller's deadline: a reply cut
 * off by it (headers or body) is `timeout`.
 */
export async function botApi<T>(...[base, token, method, body, signal]: MethodCall): Promise<BotApiResult<T>> {
  const reply = await fetchJson(
    joinUrl(base, `bot${token}/${method}`),
    {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "notify-chat" },
      body: JSON.stringify(body),
    },
    signal,
  );
  if (!("response" in reply)) return reply;
  const response = reply.response;
  const json = reply.json as {
    ok?: unknown;
    result?: unknown;
    description?: unknown;
    parameters?: { retry_after?: unknown };
  } | null;
  if (response.ok && json?.ok === true) return { ok: true, result: json.result as T };
  const status = response.status;
  const result: ChatApiFailure & { description?: string } = {
    ok: false,
    code: status >= 200 && status < 300 ? "telegram_bad_reply" : `http_${status}`,
    status,
    retryable: status === 429 || status >= 500 || status < 300,
  };
  const retryAfter = json?.parameters?.retry_after;
  if (typeof retryAfter === "number" && retryAfter >= 0 && Number.isFinite(retryAfter)) {
    result.retryAfterMs = cappedServerDelayMs(Math.ceil(retryAfter * 1000));
  }
  const description = typeof json?.description === "string" ? json.description : "";
  const known = KNOWN_DESCRIPTIONS.find((pattern) => pattern.test(description));
  if (known) result.description = description.slice(0, 100);
  return result;
}
