import type { IncomingHttpHeaders } from "node:http";
import type { Upstream } from "./config/records.js";

/**
 * The agent's own native models (docs/router.md, "The agent's own native models"): the host vendor's family, its public
 * API, and which of the client's headers travel to it. Pure data and functions; the attempt itself is
 * proxy/native-attempt.ts.
 */

/** The vendor's public API (config key RouterNativeBaseUrl); `/messages` and `/messages/count_tokens` are appended. */
export const DEFAULT_NATIVE_BASE_URL = "https://api.anthropic.com/v1";

/** The slug native attempts carry in the ledger; never an upstream record, never cooled down. */
export const NATIVE_SLUG = "native";

/** A bare model ID of the host vendor's own family (the messages wire's vendor): `claude-...`. */
export function isNativeFamily(model: string): boolean {
  return /^claude-[A-Za-z0-9._-]+$/i.test(model);
}

/** The vendor as a target's upstream: a stand-in record, never stored, listed or offered to another request. */
export function nativeUpstream(baseUrl: string): Upstream {
  return {
    id: "native",
    slug: NATIVE_SLUG,
    label: "the agent's own vendor",
    wire: "messages_wire",
    base_url: baseUrl,
    has_key: false,
    models: [],
    enabled: true,
    auth: "api_key",
    model_wires: {},
    credential_ref: null,
    created_at: "",
    updated_at: "",
  };
}

/** The client's own vendor credential: only when the router key came in x-notify-router-key. */
export interface ClientCredential {
  header: "authorization" | "x-api-key";
  value: string;
}

/**
 * The credential a client keeps for its own vendor (Authentication 2): `Authorization` or `x-api-key`, when the
 * router key arrived in `x-notify-router-key` and the header is not the router key itself (Native rule 3: a client
 * that sends the router key as its bearer has no credential to forward).
 */
export function clientCredential(
  headers: IncomingHttpHeaders,
  keyInRouterHeader: boolean,
  isRouterKey: (value: string) => boolean,
): ClientCredential | undefined {
  if (!keyInRouterHeader) return undefined;
  const authorization = headers.authorization;
  if (typeof authorization === "string" && authorization.trim() !== "" && !isRouterKey(authorization)) {
    const bearer = /^bearer\s+(.+)$/i.exec(authorization.trim());
    if (!bearer || !isRouterKey((bearer[1] as string).trim())) return { header: "authorization", value: authorization };
  }
  const apiKey = headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey !== "" && !isRouterKey(apiKey))
    return { header: "x-api-key", value: apiKey };
  return undefined;
}

/**
 * The client's headers that travel to the vendor (Native rule 1): its credential, vendor headers (`anthropic-*`),
 * SDK headers (`x-stainless-*`), user-agent, app (`x-app`) and session headers (any `*session*` name), with
 * content-type and accept. Nothing else: never the router key, Host, cookies or hop-by-hop headers.
 */
export function nativeRequestHeaders(
  headers: IncomingHttpHeaders,
  credential: ClientCredential,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") continue;
    if (
      name === "content-type" ||
      name === "accept" ||
      name === "user-agent" ||
      name === "x-app" ||
      name.startsWith("anthropic-") ||
      name.startsWith("x-stainless-") ||
      (name.includes("session") && name !== "cookie")
    ) {
      out[name] = value;
    }
  }
  out[credential.header] = credential.value;
  return out;
}

/** The vendor's reply headers a client gets back with its body: type, retry hints, request ID, vendor headers. */
export function nativeReplyHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") continue;
    if (
      name === "content-type" ||
      name === "retry-after" ||
      name === "retry-after-ms" ||
      name === "request-id" ||
      name === "x-should-retry" ||
      name.startsWith("anthropic-")
    ) {
      out[name] = value;
    }
  }
  return out;
}

/**
 * Vendor answers after which a native request moves on to its fallbacks (Smart switching rule 6) when it has any:
 * the subscription or key refused, paid out, rate limited or overloaded, or the vendor failing. Any other answer
 * (a 400 about the request itself, 404, 413 ...) goes back to the client unchanged.
 */
export const NATIVE_FALLBACK_STATUSES: ReadonlySet<number> = new Set([401, 402, 403, 429, 500, 502, 503, 504, 529]);
