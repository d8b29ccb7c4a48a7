// Issue 31, item 9: the relay's hand-written answer check (checks 2-6, docs/relay.md "Answer checks") accepts
// exactly the bodies the contract's `RelayAnswer` accepts. It once took a 200-character interaction_id with a
// 300-character request_digest that the contract refuses; its bounds now come from the contract's constants.
import { RELAY_ANSWER_LIMITS } from "@notify/contracts/relay-limits";
import { RelayAnswer } from "@notify/contracts/relay-schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAnswer } from "../src/domain/answer-check.js";
import { RelayError } from "../src/domain/errors.js";

const DEVICE = "dev_0123456789abcdef01234567";
const { idMax, choiceIdMax, textMax } = RELAY_ANSWER_LIMITS;

/**
 * `length` characters of one kind. Both sides count code points, so an emoji (two UTF-16 units) is one; a lone
 * surrogate never reaches the check (the relay's JSON parser refuses it).
 */
const ofLength = (length: number, unit: string) => unit.repeat(length);
const unit = fc.constantFrom("x", "é", "🙂");
/** A string that fits `[min, max]`, or one of a length around the bounds (one under, at, one over), or `extra`. */
const text = (min: number, max: number, ...extra: number[]) =>
  fc
    .tuple(
      fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min, max }) },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            ...[min, max].flatMap((bound) => [bound - 1, bound, bound + 1]).filter((length) => length >= 0),
            ...extra,
          ),
        },
      ),
      unit,
    )
    .map(([length, piece]) => ofLength(length, piece));
/** A field's value: mostly a string near its bounds; sometimes absent or of the wrong type. */
const value = (min: number, max: number, ...extra: number[]) =>
  fc.oneof(
    { weight: 12, arbitrary: text(min, max, ...extra) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(0, 1, true, null, [], {}, ["x"]) },
  );

/**
 * Bodies over the contract's fields only. Two documented leniencies of the relay are left out (docs/relay.md,
 * "Answer checks"): unknown fields are dropped rather than refused, and a null `choice_id` or `text` counts as
 * absent. Which of the two is sent is drawn on its own, so "exactly one" holds in most bodies.
 */
const bodies = fc
  .record({
    contract_version: fc.oneof({ weight: 8, arbitrary: fc.constant("1") }, fc.constantFrom<unknown>("2", 1, undefined)),
    response_id: value(1, idMax),
    interaction_id: value(1, idMax, 200),
    request_digest: value(1, idMax, 64, 300),
    nonce: value(1, idMax),
    answer: fc.oneof(
      { weight: 4, arbitrary: fc.record({ choice_id: text(1, choiceIdMax) }) },
      { weight: 4, arbitrary: fc.record({ text: text(0, textMax) }) },
      { weight: 1, arbitrary: fc.record({ choice_id: value(1, choiceIdMax), text: value(0, textMax) }) },
      { weight: 1, arbitrary: fc.constant({}) },
    ),
    installation_id: value(1, idMax),
    device_id: fc.oneof({ weight: 8, arbitrary: fc.constant<unknown>(DEVICE) }, value(1, idMax)),
  })
  .map(({ answer, ...fields }) =>
    // JSON has no undefined: a field drawn as undefined is absent. A null choice_id or text is left out (above).
    Object.fromEntries(
      Object.entries({ ...fields, ...answer }).filter(
        ([name, field]) => field !== undefined && !(field === null && (name === "choice_id" || name === "text")),
      ),
    ),
  );

/** What checks 2-6 say, plus check 7's part that needs no store: an installation_id to look up. */
function relayAccepts(body: Record<string, unknown>): boolean {
  try {
    checkAnswer(body, DEVICE);
  } catch (error) {
    if (error instanceof RelayError) return false;
    throw error;
  }
  return typeof body.installation_id === "string" && body.installation_id.length > 0;
}

describe("the relay's answer check and the contract's RelayAnswer (issue 31, item 9)", () => {
  it("refuse the issue's body: a 200-character interaction_id with a 300-character request_digest", () => {
    const body = {
      contract_version: "1",
      response_id: "r-1",
      interaction_id: "i".repeat(200),
      request_digest: "d".repeat(300),
      nonce: "n",
      choice_id: "allow",
      installation_id: "ins_1",
      device_id: DEVICE,
    };
    expect(RelayAnswer.safeParse(body).success).toBe(false);
    expect(() => checkAnswer(body, DEVICE)).toThrow(/interaction_id must be 1-128 chars/);
  });

  it("agree on every generated body, and an accepted body is stored as the contract parses it", () => {
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(bodies, (body) => {
        const parsed = RelayAnswer.safeParse(body);
        // Check 6 is the relay's alone: the contract cannot know which device is authenticated.
        const accepted = parsed.success && body.device_id === DEVICE;
        expect(relayAccepts(body)).toBe(accepted);
        if (accepted) expect(checkAnswer(body, DEVICE)).toEqual(parsed.data);
        seen[accepted ? "accepted" : "refused"] += 1;
      }),
      { numRuns: 2000 },
    );
    // Both outcomes are common, so the comparison is not decided by one side alone (shrinking adds runs: >=).
    expect(seen.accepted).toBeGreaterThanOrEqual(100);
    expect(seen.refused).toBeGreaterThanOrEqual(100);
  });
});
