import { bearerCredential, secretMatches } from "@notify/contracts/guards";

/** Bearer check in constant time (spec 1, Authentication 1); a malformed header never matches. */
export function bearerMatches(header: string | undefined, expectedToken: string): boolean {
  return secretMatches(bearerCredential(header), expectedToken, true);
}
