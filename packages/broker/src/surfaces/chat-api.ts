import { createHash } from "node:crypto";
import { networkCode } from "../outbox/providers/http.js";

/** A chat API call that failed: a status and a fixed code (never the token or the URL), retryable or not. */
export interface ChatApiFailure {
  ok: false;
  code: string;
  status?: number;
  retryable: boolean;
  /** A delay the server named (429), already capped. */
  retryAfterMs?: number;
}

/** A chat API call's outcome: the `result`, or why not. */
export type ChatApiResult<T, Failure extends ChatApiFailure = ChatApiFailure> = { ok: true; result: T } | Failure;

/**
 * `<source>:<16 hex of sha256(token)>`: which bot a message went out through, without the token (Slack, Discord;
 * Telegram's bot id is public and names its account itself).
 */
export function tokenAccount(source: string, token: string): string {
  return `${source}:${createHash("sha256").update(token).digest("hex").slice(0, 16)}`;
}

/**
 * One call of a chat app's Web API method (Slack's, Telegram's): the API's base URL, the token, the method, its
 * JSON body, and the signal that carries the caller's deadline.
 */
export type MethodCall = [
  base: string,
  token: string,
  method: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
];

/** A chat API's reply: its response and its JSON body (null when it had none, or none that parsed). */
export interface JsonReply {
  response: Response;
  json: Record<string, unknown> | null;
}

/**
 * One request to a chat app's HTTP API (redirects not followed) and its JSON reply. A request that never got an
 * answer, or whose body `signal` cut off (the caller's deadline, `timeout`), is a retryable network failure; a
 * 204, or a body that is not JSON, is a reply with no JSON.
 */
export async function fetchJson(
  url: string,
  init: RequestInit,
  signal: AbortSignal,
): Promise<JsonReply | ChatApiFailure> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal, redirect: "manual" });
  } catch (error) {
    return { ok: false, code: networkCode(error), retryable: true };
  }
  if (response.status === 204) return { response, json: null };
  try {
    return { response, json: (await response.json()) as Record<string, unknown> | null };
  } catch (error) {
    if (signal.aborted) return { ok: false, code: networkCode(error), retryable: true };
    return { response, json: null };
  }
}

/** The failure of a non-2xx reply: `http_<status>`, retryable on 429 and 5xx. */
export function httpFailure(status: number): ChatApiFailure {
  return { ok: false, code: `http_${status}`, status, retryable: status === 429 || status >= 500 };
}
