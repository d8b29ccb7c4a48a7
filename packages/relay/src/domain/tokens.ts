import { hash, randomBytes } from "node:crypto";

/**
 * Bearer tokens and pairing codes. Only their SHA-256 digests are stored: a leaked database grants nothing. Lookups go
 * by digest, so the comparison an attacker could time is between digests of their guess, never the secret itself.
 */
export type TokenKind = "installation" | "device" | "enrollment";

const PREFIX: Record<TokenKind, string> = { installation: "nri_", device: "nrd_", enrollment: "nre_" };

/** 256 random bits, prefixed by kind so an operator can tell tokens apart (and secret scanners can find them). */
export function newToken(kind: TokenKind): string {
  return PREFIX[kind] + randomBytes(32).toString("base64url");
}

/** SHA-256 in hex, in one call: no Hash object per request (a third of createHash's CPU; issue 33). */
export function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** Crockford base32 without I, L, O, U: nothing to misread when typed from a screen. */
const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const PAIRING_CODE_LENGTH = 10;

/** 50 random bits: with the claim rate limits, guessing a live code inside its lifetime is hopeless. */
export function newPairingCode(): string {
  const bytes = randomBytes(PAIRING_CODE_LENGTH);
  let code = "";
  for (const byte of bytes) code += CODE_ALPHABET[byte & 31];
  return code;
}

/** Codes are compared case-insensitively and without separators a person may type. */
export function normalizePairingCode(code: string): string | undefined {
  const clean = code.replace(/[\s-]/g, "").toUpperCase();
  if (clean.length !== PAIRING_CODE_LENGTH) return undefined;
  for (const char of clean) if (!CODE_ALPHABET.includes(char)) return undefined;
  return clean;
}
