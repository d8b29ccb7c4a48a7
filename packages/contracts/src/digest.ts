import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { InteractionKind } from "./enums.js";

/** A choice as the person sees it. `detail` is left out of the digest input when absent. */
export interface DigestChoice {
  id: string;
  label: string;
  detail?: string | null | undefined;
}

/** The question as displayed: exactly the fields that bind an answer to what was shown. */
export interface DigestInput {
  kind: InteractionKind;
  prompt: string;
  choices: readonly DigestChoice[];
  text_max_length: number;
}

/**
 * The object that is canonicalized (RFC 8785) and hashed. Field list, "what is displayed"
 * (docs/api.md, "Request digest"):
 * `kind`, `prompt`, `choices` (each `{id, label}` plus `detail` when present, in display order; `[]` for text),
 * and `text_max_length`. Nothing else: not the id, key, agent, project, timestamps or nonce, so an unchanged
 * question re-asked under the same key keeps its digest (docs/api.md, "Request digest").
 */
export function digestDocument(input: DigestInput): Record<string, unknown> {
  return {
    kind: input.kind,
    prompt: input.prompt,
    choices: input.choices.map((choice) =>
      choice.detail === undefined || choice.detail === null
        ? { id: choice.id, label: choice.label }
        : { id: choice.id, label: choice.label, detail: choice.detail },
    ),
    text_max_length: input.text_max_length,
  };
}

/** SHA-256, lowercase hex, over the RFC 8785 canonical JSON (UTF-8) of `digestDocument(input)`. */
export function requestDigest(input: DigestInput): string {
  const canonical = canonicalize(digestDocument(input));
  if (canonical === undefined) throw new Error("request digest input is not serializable");
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

export const DIGEST_PATTERN = /^[0-9a-f]{64}$/;
