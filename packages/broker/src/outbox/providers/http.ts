import { cappedServerDelayMs, retryAfterMs } from "@notify/contracts/retry";
import type { DeliveryResult } from "../types.js";

export interface HttpSend {
  url: string;
  method?: "POST" | "PUT";
  headers?: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /**
   * For services that name their wait in a JSON body on 429 (Discord `retry_after`, Telegram
   * `parameters.retry_after`): returns milliseconds, or undefined. Only this number is taken from the body.
   */
  retryAfterFromBody?: (body: unknown) => number | undefined;
}

/** At most this much of a response body is read, and only to find a retry hint. */
const MAX_BODY_BYTES = 64 * 1024;

/** Network failures as short fixed codes: never the exception text. */
export function networkCode(error: unknown): string {
  const name = (error as { name?: string }).name;
  if (name === "AbortError" || name === "TimeoutError") return "timeout";
  const code = String((error as { code?: string }).code ?? "");
  const known: Record<string, string> = {
    ECONNREFUSED: "connection_refused",
    ECONNRESET: "connection_reset",
    ENOTFOUND: "dns_failure",
    EAI_AGAIN: "dns_failure",
    ETIMEDOUT: "timeout",
    UND_ERR_CONNECT_TIMEOUT: "timeout",
    UND_ERR_HEADERS_TIMEOUT: "timeout",
    UND_ERR_BODY_TIMEOUT: "timeout",
    UND_ERR_SOCKET: "connection_reset",
    UND_ERR_ABORTED: "timeout",
  };
  return known[code] ?? "network_error";
}

/**
 * How an HTTP status is judged: 2xx delivered; 408, 425, 429 and 5xx retried; other statuses are final. A
 * `Retry-After` is kept up to MAX_SERVER_DELAY_MS (the dispatcher caps it again with its own option).
 */
export function resultForStatus(
  status: number,
  headers: Record<string, string | string[] | undefined>,
): DeliveryResult {
  if (status >= 200 && status < 300) return { ok: true, status };
  const retryable = status === 408 || status === 425 || status === 429 || status >= 500;
  const result: DeliveryResult = { ok: false, retryable, code: `http_${status}`, status };
  const after = retryAfterMs(headers, Date.now());
  if (after !== undefined) result.retryAfterMs = cappedServerDelayMs(after);
  return result;
}

/**
 * One request to a provider: no redirects are followed (undici's request follows none), no cookies, no system
 * proxy. The response body is drained and never read into diagnostics.
 */
export async function sendHttp(send: HttpSend): Promise<DeliveryResult> {
  try {
    // undici is loaded on first delivery: a broker with no provider configured never pays for it.
    const { request } = await import("undici");
    const response = await request(send.url, {
      method: send.method ?? "POST",
      headers: { "user-agent": "notify-outbox", ...send.headers },
      body: send.body,
      signal: send.signal,
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    let hint: number | undefined;
    if (response.statusCode === 429 && send.retryAfterFromBody) {
      hint = send.retryAfterFromBody(await readJson(response.body));
    } else {
      await response.body.dump({ limit: MAX_BODY_BYTES }).catch(() => {});
    }
    const result = resultForStatus(response.statusCode, response.headers);
    if (!result.ok && hint !== undefined && hint >= 0) result.retryAfterMs = cappedServerDelayMs(Math.ceil(hint));
    return result;
  } catch (error) {
    return { ok: false, retryable: true, code: networkCode(error) };
  }
}

/** Reads a JSON body of at most MAX_BODY_BYTES; anything else (too long, not JSON, cut off) is undefined. */
async function readJson(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        body.destroy();
        return undefined;
      }
      chunks.push(chunk);
    }
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}
