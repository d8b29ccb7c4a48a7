import { cappedServerDelayMs, retryAfterMs } from "@notify/contracts/retry";
import { joinUrl } from "../../outbox/providers/settings.js";
import { type ChatApiResult, fetchJson, httpFailure, type MethodCall, tokenAccount } from "../chat-api.js";

export const SLACK_API_BASE_URL = "https://slack.com/api";

export type SlackResult<T> = ChatApiResult<T>;

/** `slack:<16 hex of sha256(bot token)>`: which bot a message went out through, without the token. */
export function slackAccount(botToken: string): string {
  return tokenAccount("slack", botToken);
}

export const APP_TOKEN = /^xapp-[A-Za-z0-9-]{10,300}$/;
export const BOT_TOKEN = /^xoxb-[A-Za-z0-9-]{10,300}$/;

/** Slack's error names are short snake_case words; anything else is not echoed. */
const ERROR_NAME = /^[a-z0-9_]{1,60}$/;

/**
 * One Slack Web API method (https://api.slack.com/web): POST of JSON to `{base}/{method}` with the token as a
 * Bearer header, answered `{ok: true, ...}` or `{ok: false, error}`. 429 carries Retry-After (seconds), taken up
 * to MAX_SERVER_DELAY_MS. Results are a status and a fixed code (`slack_<error>`), never the token. `signal` carries
 * the caller's deadline: a reply cut off by it (headers or body) is `timeout`.
 */
export async function slackApi<T>(...[base, token, method, body, signal]: MethodCall): Promise<SlackResult<T>> {
  const reply = await fetchJson(
    joinUrl(base, method),
    {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        authorization: `Bearer ${token}`,
        "user-agent": "notify-chat",
      },
      body: JSON.stringify(body),
    },
    signal,
  );
  if (!("response" in reply)) return reply;
  const { response, json } = reply;
  if (response.ok && json?.ok === true) return { ok: true, result: json as T };
  const status = response.status;
  if (response.ok) {
    const name = typeof json?.error === "string" && ERROR_NAME.test(json.error) ? json.error : "bad_reply";
    return { ok: false, code: `slack_${name}`, status, retryable: name === "ratelimited" || name === "internal_error" };
  }
  const result = httpFailure(status);
  const after = retryAfterMs(Object.fromEntries(response.headers), Date.now());
  if (after !== undefined) result.retryAfterMs = cappedServerDelayMs(after);
  return result;
}
