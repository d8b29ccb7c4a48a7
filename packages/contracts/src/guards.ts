import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Checks the broker and the router both make on loopback requests: one implementation, so the web API, the
 * bearer-protected API and the router cannot drift apart.
 */

/** True when a Host header names a loopback literal (127.0.0.1, localhost, [::1]) with any port. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (typeof host !== "string" || host.length === 0 || host.length > 300) return false;
  let hostname = host.trim().toLowerCase();
  if (hostname.startsWith("[")) {
    const end = hostname.indexOf("]");
    if (end < 0) return false;
    const rest = hostname.slice(end + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return false;
    return hostname.slice(1, end) === "::1";
  }
  const colon = hostname.lastIndexOf(":");
  if (colon >= 0) {
    if (!/^\d{1,5}$/.test(hostname.slice(colon + 1))) return false;
    hostname = hostname.slice(0, colon);
  }
  return hostname === "127.0.0.1" || hostname === "localhost";
}

/** The credential of an `Authorization: Bearer <credential>` header (scheme case-insensitive), if well formed. */
export function bearerCredential(header: string | string[] | undefined): string | undefined {
  if (typeof header !== "string") return undefined;
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1];
}

const sha256 = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

/** Digests of long-lived expected secrets (the bearer token, the router key), so each request hashes one side. */
const remembered = new Map<string, Buffer>();

/**
 * Constant-time comparison of a supplied secret with the expected one. Both sides are hashed to 32 bytes first, so
 * neither the contents nor the length of the expected value leaks through timing. `remember` keeps the expected
 * value's digest (for a value checked on every request, not for single-use values such as nonces).
 */
export function secretMatches(supplied: string | undefined, expected: string, remember = false): boolean {
  if (supplied === undefined) return false;
  let expectedDigest = remember ? remembered.get(expected) : undefined;
  if (!expectedDigest) {
    expectedDigest = sha256(expected);
    if (remember) {
      if (remembered.size >= 8) remembered.clear();
      remembered.set(expected, expectedDigest);
    }
  }
  return timingSafeEqual(sha256(supplied), expectedDigest);
}
