import * as nodeCrypto from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHash, randomBytes, randomUUID, SHORT_INPUT_BYTES, sha256 } from "../../src/cli/lazy-crypto.js";

const nodeSha256 = (input: Uint8Array | string): string => nodeCrypto.createHash("sha256").update(input).digest("hex");

// The hook bundle's node:crypto (issue 33, item 2): its keys and open-mark names must be the very ones the broker
// computes with Node's crypto, or a PostToolUse would not find the question a PermissionRequest opened.
describe("lazy-crypto: the hook bundle's SHA-256 is Node's", () => {
  it("FIPS 180-4's examples", () => {
    expect(sha256(Buffer.from("abc")).toString("hex")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(sha256(Buffer.from("")).toString("hex")).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(sha256(Buffer.from("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toString("hex")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("every length around the block and padding boundaries", () => {
    for (let length = 0; length <= 300; length++) {
      const input = nodeCrypto.randomBytes(length);
      expect(sha256(input).toString("hex"), `length ${length}`).toBe(nodeSha256(input));
    }
  });

  it("any text, through createHash as the bundled modules call it", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 100 }), (text) => {
        expect(createHash("sha256").update(text).digest("hex")).toBe(nodeSha256(text));
      }),
    );
  });

  it("any bytes, in pieces", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (first, second) => {
        const ours = createHash("sha256").update(first).update(second);
        expect(ours.digest("base64url")).toBe(
          nodeCrypto.createHash("sha256").update(first).update(second).digest("base64url"),
        );
      }),
    );
  });

  it("input past the short limit goes to Node's crypto, with the same digest", () => {
    for (const length of [SHORT_INPUT_BYTES, SHORT_INPUT_BYTES + 1, 1024 * 1024]) {
      const input = "é".repeat(length / 2);
      expect(createHash("sha256").update(input).digest("hex")).toBe(nodeSha256(input));
    }
  });

  it("other algorithms and functions are Node's", () => {
    expect(createHash("sha1").update("abc").digest("hex")).toBe("a9993e364706816aba3e25717850c26c9cd0d89d");
    expect(randomBytes(6)).toHaveLength(6);
    expect(randomUUID()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
