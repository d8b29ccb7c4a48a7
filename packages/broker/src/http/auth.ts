import { bearerCredential, secretMatches } from "@notify/contracts/guards";

/** Bearer check in constant time (docs/api.md, "Authentication"); a malformed header never matches. */
export function bearerMatches(header: string | undefined, expectedToken: string): boolean {
  return secretMatches(bearerCredential(header), expectedToken, true);
}
