import { cappedServerDelayMs, retryAfterMs } from "@notify/contracts/retry";
import { joinUrl } from "../../outbox/providers/settings.js";
import { VERSION } from "../../version.js";
import { type ChatApiFailure, type ChatApiResult, fetchJson, httpFailure, tokenAccount } from "../chat-api.js";

export const DISCORD_API_BASE_URL = "https://discord.com/api/v10";

/** A bot token as the Developer Portal shows it: three dot-separated base64url parts. */
export const BOT_TOKEN = /^[A-Za-z0-9_-]{20,100}\.[A-Za-z0-9_-]{4,20}\.[A-Za-z0-9_-]{20,100}$/;

/** `discord:<16 hex of sha256(bot token)>`: which bot a message went out through, without the token. */
export function discordAccount(botToken: string): string {
  return tokenAccount("discord", botToken);
}

/** A REST call's outcome: the JSON result, or a status and a fixed code (never the token or the URL). */
export type DiscordResult<T> = ChatApiResult<T, ChatApiFailure & { errorCode?: number }>;

/**
 * One Discord REST call (https://discord.com/developers/docs/reference): JSON to `{apiBaseUrl}/{path}` with
 * `Authorization: Bot <token>` and a `DiscordBot (name, version)` user agent. Answered with JSON (or 204); an error
 * carries a numeric JSON `code` (10008: unknown message) and a 429 a `retry_after` in seconds (body) or
 * `Retry-After` (header), taken up to MAX_SERVER_DELAY_MS. `signal` carries the caller's deadline: a reply cut off
 * by it is `timeout`.
 */
export async function discordApi<T>(
  base: string,
  token: string,
  method: "GET" | "POST" | "PATCH",
  path: string,
  body: Record<string, unknown> | undefined,
  signal: AbortSignal,
): Promise<DiscordResult<T>> {
  const reply = await fetchJson(
    joinUrl(base, path),
    {
      method,
      headers: {
        authorization: `Bot ${token}`,
        "user-agent": `DiscordBot (notify-chat, ${VERSION})`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    },
    signal,
  );
  if (!("response" in reply)) return reply;
  const { response, json } = reply;
  const status = response.status;
  if (status >= 200 && status < 300) return { ok: true, result: json as T };
  const result: ChatApiFailure & { errorCode?: number } = httpFailure(status);
  if (typeof json?.code === "number" && Number.isSafeInteger(json.code)) result.errorCode = json.code;
  const seconds = json?.retry_after;
  const after =
    typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0
      ? Math.ceil(seconds * 1000)
      : retryAfterMs(Object.fromEntries(response.headers), Date.now());
  if (after !== undefined) result.retryAfterMs = cappedServerDelayMs(after);
  return result;
}
