import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Bearer check in constant time: both sides are hashed to 32 bytes first, so neither the contents nor the length
 * of the expected token leaks through timing.
 */
export function bearerMatches(header: string | undefined, expectedToken: string): boolean {
  if (typeof header !== "string") return false;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  const supplied = match?.[1] ?? "";
  const a = createHash("sha256").update(supplied).digest();
  const b = createHash("sha256").update(expectedToken).digest();
  return timingSafeEqual(a, b) && match !== null;
}
