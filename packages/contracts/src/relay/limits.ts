/**
 * The bounds of the relay answer body (docs/relay.md, "The answer body"), in characters. Zod-free, so
 * `RelayAnswer` (schemas.ts) and notify-relay's hand-written answer check (which must not load zod: docs/relay.md,
 * "Answer checks") read the same numbers and cannot drift apart.
 */
export const RELAY_ANSWER_LIMITS = {
  /** Each of these is 1 to this many characters. */
  idMax: 128,
  /** `choice_id`: 1 to this many characters. */
  choiceIdMax: 64,
  /** `text`: 0 to this many characters (the interaction's own `text_max_length` is the broker's to enforce). */
  textMax: 2000,
} as const;

/** The answer fields bounded by `RELAY_ANSWER_LIMITS.idMax`. */
export const RELAY_ANSWER_ID_FIELDS = [
  "response_id",
  "interaction_id",
  "request_digest",
  "nonce",
  "installation_id",
  "device_id",
] as const;

/**
 * A string's length as the bounds count it: Unicode code points, as `RelayAnswer`'s zod checks do (a surrogate
 * pair is one character, so 2,000 emoji fit in `text`). Only a string longer in UTF-16 units than `max` is counted.
 */
export function exceedsChars(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = text.length;
  for (let index = 0; index < text.length - 1 && count > max; index++) {
    const unit = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      count--;
      index++;
    }
  }
  return count > max;
}
