import { createHash } from "node:crypto";
import { cappedServerDelayMs, retryAfterMs } from "@notify/contracts/retry";
import { networkCode } from "../../outbox/providers/http.js";
import { joinUrl } from "../../outbox/providers/settings.js";

export const SLACK_API_BASE_URL = "https://slack.com/api";

export type SlackResult<T> =
  | { ok: true; result: T }
  | { ok: false; code: string; status?: number; retryable: boolean; retryAfterMs?: number };

/** `slack:<16 hex of sha256(bot token)>`: which bot a message went out through, without the token. */
export function slackAccount(botToken: string): string {
  return `slack:${createHash("sha256").update(botToken).digest("hex").slice(0, 16)}`;
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
export async function slackApi<T>(
  base: string,
  token: string,
  method: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<SlackResult<T>> {
  let response: Response;
  try {
    response = await fetch(joinUrl(base, method), {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        authorization: `Bearer ${token}`,
        "user-agent": "notify-chat",
      },
      body: JSON.stringify(body),
      signal,
      redirect: "manual",
    });
  } catch (error) {
    return { ok: false, code: networkCode(error), retryable: true };
  }
  let json: ({ ok?: unknown; error?: unknown } & Record<string, unknown>) | null;
  try {
    json = (await response.json()) as typeof json;
  } catch (error) {
    if (signal.aborted) return { ok: false, code: networkCode(error), retryable: true };
    json = null;
  }
  if (response.ok && json?.ok === true) return { ok: true, result: json as T };
  const status = response.status;
  if (response.ok) {
    const name = typeof json?.error === "string" && ERROR_NAME.test(json.error) ? json.error : "bad_reply";
    return { ok: false, code: `slack_${name}`, status, retryable: name === "ratelimited" || name === "internal_error" };
  }
  const result: SlackResult<T> = {
    ok: false,
    code: `http_${status}`,
    status,
    retryable: status === 429 || status >= 500,
  };
  const after = retryAfterMs(Object.fromEntries(response.headers), Date.now());
  if (after !== undefined) result.retryAfterMs = cappedServerDelayMs(after);
  return result;
}
