import { readFileSync } from "node:fs";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import { type DigestInput, digestDocument, requestDigest } from "../src/digest.js";

interface Vector {
  name: string;
  input: DigestInput;
  canonical: string;
  digest: string;
}

// Vectors were produced independently (Python's json + hashlib), so they check this code rather than echo it.
const vectors = (
  JSON.parse(readFileSync(new URL("../test-vectors/request-digest.json", import.meta.url), "utf8")) as {
    vectors: Vector[];
  }
).vectors;

describe("request digest (DESIGN: SHA-256 over RFC 8785 canonical JSON of the question as displayed)", () => {
  it.each(vectors.map((vector) => [vector.name, vector] as const))("vector: %s", (_name, vector) => {
    expect(canonicalize(digestDocument(vector.input))).toBe(vector.canonical);
    expect(requestDigest(vector.input)).toBe(vector.digest);
  });

  it("is independent of property order and of fields outside the list", () => {
    const base: DigestInput = {
      kind: "single_choice",
      prompt: "p",
      choices: [
        { id: "a", label: "A" },
        { id: "b", label: "B", detail: "d" },
      ],
      text_max_length: 500,
    };
    const shuffled = {
      text_max_length: 500,
      choices: [
        { label: "A", id: "a" },
        { detail: "d", label: "B", id: "b" },
      ],
      prompt: "p",
      kind: "single_choice",
      id: "int_ignored",
      nonce: "ignored",
    } as DigestInput;
    expect(requestDigest(shuffled)).toBe(requestDigest(base));
  });

  it("changes with every displayed field, including choice order and a null vs absent detail", () => {
    const base: DigestInput = {
      kind: "single_choice",
      prompt: "p",
      choices: [
        { id: "a", label: "A" },
        { id: "b", label: "B" },
      ],
      text_max_length: 500,
    };
    const digest = requestDigest(base);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const variants: DigestInput[] = [
      { ...base, kind: "permission" },
      { ...base, prompt: "p2" },
      { ...base, text_max_length: 499 },
      { ...base, choices: [base.choices[1] as never, base.choices[0] as never] },
      { ...base, choices: [{ id: "a", label: "A", detail: "x" }, base.choices[1] as never] },
      { ...base, choices: [{ id: "a", label: "a" }, base.choices[1] as never] },
    ];
    for (const variant of variants) expect(requestDigest(variant)).not.toBe(digest);
    expect(requestDigest({ ...base, choices: [{ id: "a", label: "A", detail: null }, base.choices[1] as never] })).toBe(
      digest,
    );
  });
});
