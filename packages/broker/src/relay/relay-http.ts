import { networkCode } from "../outbox/providers/http.js";

/** At most this much of a relay answer is read (the relay's own body limit is the same). */
const MAX_BODY_BYTES = 1024 * 1024;

export type RelayReply =
  | { ok: true; status: number; body: unknown; headers: Record<string, string | string[] | undefined> }
  | {
      ok: false;
      status?: number;
      code: string;
      headers?: Record<string, string | string[] | undefined>;
      /** The relay's error code from the body (`{error: {code}}` or `{error: "<code>"}`), when it sent one. */
      relayError?: string;
    };

export interface RelayCall {
  url: string;
  method?: "GET" | "POST" | "DELETE";
  token: string;
  body?: unknown;
  signal?: AbortSignal;
  /** Headers timeout: a held poll (`wait=N`) needs more than the default. */
  timeoutMs?: number;
  /** Extra request headers (an envelope's `Idempotency-Key`). */
  headers?: Record<string, string>;
}

/** The error code of a relay error body (docs/relay.md, Errors): a string on the feeds, `{code}` elsewhere. */
function relayErrorCode(text: string): string | undefined {
  try {
    const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
    const code = typeof error === "string" ? error : (error as { code?: unknown } | undefined)?.code;
    return typeof code === "string" && /^[a-z_]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
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
        ...call.headers,
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
      const relayError = relayErrorCode(text);
      return {
        ok: false,
        status: response.statusCode,
        code: `http_${response.statusCode}`,
        headers: response.headers,
        ...(relayError === undefined ? {} : { relayError }),
      };
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
    return { ok: false, code: tlsCode(error) ?? networkCode(error) };
  }
}

/** Node's certificate verification codes, as the three causes the person can act on (docs/relay.md, Errors). */
const TLS_CODES: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "tls_untrusted",
  SELF_SIGNED_CERT_IN_CHAIN: "tls_untrusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "tls_untrusted",
  UNABLE_TO_GET_ISSUER_CERT: "tls_untrusted",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "tls_untrusted",
  CERT_UNTRUSTED: "tls_untrusted",
  CERT_HAS_EXPIRED: "tls_expired",
  CERT_NOT_YET_VALID: "tls_expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "tls_wrong_name",
};

/** A TLS verification failure's fixed code (on the error or its cause), or undefined for any other failure. */
function tlsCode(error: unknown): string | undefined {
  for (
    let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    current && depth < 3;
    depth++
  ) {
    const code = TLS_CODES[String(current.code)];
    if (code !== undefined) return code;
    current = current.cause as typeof current;
  }
  return undefined;
}

/** `base` + `path`, keeping a path prefix of the relay URL (`https://host/relay` + `/v1/devices`). */
export function relayUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}
