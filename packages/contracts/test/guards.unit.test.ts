import { describe, expect, it } from "vitest";
import { bearerCredential, isLoopbackHost, secretMatches } from "../src/guards.js";
import { randomHex } from "../src/ids.js";

describe("shared request guards (docs/api.md, 'Authentication' and Web interface routes; docs/router.md, 'Authentication')", () => {
  it("accepts only loopback literals as Host, with any port", () => {
    for (const host of ["127.0.0.1", "127.0.0.1:47821", "localhost", "LOCALHOST:80", "[::1]", "[::1]:47821"]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of [
      undefined,
      "",
      "evil.example",
      "127.0.0.1.evil.example",
      "10.0.0.1:47821",
      "localhost.evil:80",
      "[::2]:1",
      "[::1]x",
      "127.0.0.1:http",
      "::1",
    ]) {
      expect(isLoopbackHost(host), String(host)).toBe(false);
    }
  });

  it("reads a Bearer credential, scheme case-insensitive, and nothing else", () => {
    expect(bearerCredential("Bearer abc")).toBe("abc");
    expect(bearerCredential("bearer  abc ")).toBe("abc");
    for (const header of [undefined, "abc", "Basic abc", "Bearer", "Bearer a b", ["Bearer abc"]]) {
      expect(bearerCredential(header as string | undefined)).toBeUndefined();
    }
  });

  it("compares secrets exactly, remembered or not", () => {
    for (const remember of [false, true]) {
      expect(secretMatches("token-1", "token-1", remember)).toBe(true);
      expect(secretMatches("token-2", "token-1", remember)).toBe(false);
      expect(secretMatches("token-1x", "token-1", remember)).toBe(false);
      expect(secretMatches("", "token-1", remember)).toBe(false);
      expect(secretMatches(undefined, "token-1", remember)).toBe(false);
    }
    // The remembered digests are bounded; old ones are dropped, not wrongly matched.
    for (let index = 0; index < 20; index++) expect(secretMatches(`k${index}`, `k${index}`, true)).toBe(true);
    expect(secretMatches("k0", "k1", true)).toBe(false);
  });

  it("draws distinct ids from its pool across refills", () => {
    const seen = new Set(Array.from({ length: 1000 }, () => randomHex(12)));
    expect(seen.size).toBe(1000);
    for (const id of seen) expect(id).toMatch(/^[0-9a-f]{24}$/);
  });
});
