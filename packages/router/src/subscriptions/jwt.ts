/**
 * The claims of a JWT (the sign-in tool's access and identity tokens), read without checking the signature: the
 * router only needs to know when a token expires and which account it names; the backend checks the signature.
 */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1] as string, "base64url").toString("utf8")) as unknown;
    return claims !== null && typeof claims === "object" && !Array.isArray(claims)
      ? (claims as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The token's `exp` in milliseconds since the epoch, when it has one. */
export function jwtExpiryMs(token: string): number | undefined {
  const exp = jwtClaims(token)?.exp;
  return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : undefined;
}

/**
 * The ChatGPT account id a Codex token carries: the claim object `https://api.openai.com/auth` holds
 * `chatgpt_account_id` (openai/codex, codex-rs/login/src/token_data.rs, `parse_chatgpt_jwt_claims`).
 */
export function jwtChatgptAccountId(token: string): string | undefined {
  const auth = jwtClaims(token)?.["https://api.openai.com/auth"];
  if (auth === null || typeof auth !== "object") return undefined;
  const id = (auth as Record<string, unknown>).chatgpt_account_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}
