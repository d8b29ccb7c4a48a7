import { networkCode } from "../outbox/providers/http.js";

/** At most this much of a relay answer is read (the relay's own body limit is the same). */
const MAX_BODY_BYTES = 1024 * 1024;

export type RelayReply =
  | { ok: true; status: number; body: unknown; headers: Record<string, string | string[] | undefined> }
  | { ok: false; status?: number; code: string; headers?: Record<string, string | string[] | undefined> };

export interface RelayCall {
  url: string;
  method?: "GET" | "POST" | "DELETE";
  token: string;
  body?: unknown;
  signal?: AbortSignal;
  /** Headers timeout: a held poll (`wait=N`) needs more than the default. */
  timeoutMs?: number;
}

/**
 * One request to the relay with the installation bearer: no redirects, no proxy, a bounded body. Failures are
 * short fixed codes (`http_<status>`, `connection_refused`, ...), never text from the relay or the token.
 */
export async function relayRequest(call: RelayCall): Promise<RelayReply> {
  try {
    const { request } = await import("undici");
    const timeout = call.timeoutMs ?? 15_000;
    const response = await request(call.url, {
      method: call.method ?? "GET",
      headers: {
        authorization: `Bearer ${call.token}`,
        accept: "application/json",
        "user-agent": "notify-relay-client",
        ...(call.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      ...(call.signal ? { signal: call.signal } : {}),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        response.body.destroy();
        return { ok: false, status: response.statusCode, code: "relay_body_too_large" };
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    if (response.statusCode < 200 || response.statusCode >= 300) {
      return { ok: false, status: response.statusCode, code: `http_${response.statusCode}`, headers: response.headers };
    }
    let body: unknown = null;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        return { ok: false, status: response.statusCode, code: "relay_bad_json" };
      }
    }
    return { ok: true, status: response.statusCode, body, headers: response.headers };
  } catch (error) {
    return { ok: false, code: networkCode(error) };
  }
}

/** `base` + `path`, keeping a path prefix of the relay URL (`https://host/relay` + `/v1/devices`). */
export function relayUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}
