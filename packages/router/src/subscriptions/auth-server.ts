import { parseJson, readBounded } from "../proxy/body-plumbing.js";
import type { UpstreamClient } from "../upstreams/client.js";
import { connectionFailureCode } from "../upstreams/client.js";

/**
 * The sign-in tool's own auth server (the Codex CLI's ChatGPT sign-in). Facts, from the Codex sources
 * (openai/codex, codex-rs/login/src/auth/manager.rs and codex-rs/login/src/server.rs):
 *
 * - Token endpoint `https://auth.openai.com/oauth/token` (`REFRESH_TOKEN_URL`; the issuer's `/oauth/token`).
 * - Codex's public OAuth client id `app_EMoamEEZ73f0CkXaXp7hrann` (a PKCE client: no secret).
 * - Refresh: `POST` JSON `{client_id, grant_type: "refresh_token", refresh_token, scope: "openid profile email"}`;
 *   the answer carries `access_token`, `id_token` and (rotated, single use) `refresh_token`, each optional. Codex
 *   then writes them into auth.json with `last_refresh` = now.
 * - Key exchange (`obtain_api_key`): `POST` form `grant_type=urn:ietf:params:oauth:grant-type:token-exchange`,
 *   `client_id`, `requested_token=openai-api-key`, `subject_token=<id_token>`,
 *   `subject_token_type=urn:ietf:params:oauth:token-type:id_token`; the answer's `access_token` is an API key.
 */
export const CODEX_TOKEN_URL = "https://auth.openai.com/oauth/token";
export const CODEX_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";

const MAX_AUTH_REPLY = 256 * 1024;
const AUTH_TIMEOUT_MS = 30_000;

/** The auth server's answer: tokens, a refusal (the sign-in cannot be renewed), or a failure to reach it. */
export type AuthAnswer =
  | { kind: "ok"; body: Record<string, unknown> }
  | { kind: "refused"; status: number }
  | { kind: "unreachable"; code: "timeout" | "connection_error" | "upstream_error" };

async function post(
  client: UpstreamClient,
  url: string,
  contentType: string,
  body: string,
  userAgent: string,
): Promise<AuthAnswer> {
  let response: Awaited<ReturnType<UpstreamClient["send"]>>;
  try {
    response = await client.send(url, {
      method: "POST",
      headers: { "content-type": contentType, accept: "application/json", "user-agent": userAgent },
      body,
      signal: AbortSignal.timeout(AUTH_TIMEOUT_MS),
    });
  } catch (error) {
    return { kind: "unreachable", code: connectionFailureCode(error) };
  }
  let text = "";
  try {
    text = await readBounded(response.body, MAX_AUTH_REPLY);
  } catch {
    return { kind: "unreachable", code: "connection_error" };
  }
  // 4xx: the grant itself was refused (expired, revoked or reused refresh token; a stale identity token).
  if (response.statusCode >= 400 && response.statusCode < 500) return { kind: "refused", status: response.statusCode };
  if (response.statusCode !== 200) return { kind: "unreachable", code: "upstream_error" };
  const json = parseJson(text);
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return { kind: "unreachable", code: "upstream_error" };
  }
  return { kind: "ok", body: json as Record<string, unknown> };
}

export function refreshTokens(
  client: UpstreamClient,
  tokenUrl: string,
  refreshToken: string,
  userAgent: string,
): Promise<AuthAnswer> {
  const body = JSON.stringify({
    client_id: CODEX_CLIENT_ID,
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    scope: "openid profile email",
  });
  return post(client, tokenUrl, "application/json", body, userAgent);
}

export function exchangeIdToken(
  client: UpstreamClient,
  tokenUrl: string,
  idToken: string,
  userAgent: string,
): Promise<AuthAnswer> {
  const body = new URLSearchParams({
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    client_id: CODEX_CLIENT_ID,
    requested_token: "openai-api-key",
    subject_token: idToken,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
  }).toString();
  return post(client, tokenUrl, "application/x-www-form-urlencoded", body, userAgent);
}
