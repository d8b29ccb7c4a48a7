import {
  anyEvent,
  type Json,
  mutated,
  requestCreated,
  requestResolved,
  requestUpdated,
  responseSubmitted,
  withOneValueReplaced,
} from "@notify/test-kit/arc-arbitraries";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatProblems, jsonPath, validateArcEvent } from "../src/validate.js";

const base = {
  arc_version: "0.2",
  event_id: "e1",
  occurred_at: "2026-01-01T00:00:00Z",
  sender: { id: "codex" },
};

function problems(value: unknown): { path: string; message: string }[] {
  const result = validateArcEvent(value);
  if (result.ok) throw new Error("expected the event to be invalid");
  return result.problems;
}

const paths = (value: unknown): string[] => problems(value).map((problem) => problem.path);

describe("validateArcEvent reports every problem with its JSON path", () => {
  it("two problems at once: $.request.key and $.sender.id", () => {
    const found = problems({
      ...base,
      event_type: "request.updated",
      sender: { id: "" },
      request: { kind: "information", message: "m" },
    });
    expect(found.map((problem) => problem.path).sort()).toEqual(["$.request.key", "$.sender.id"]);
    for (const problem of found) expect(problem.message.length).toBeGreaterThan(0);
    expect(formatProblems(found)).toMatch(
      /\$\.sender\.id: .+; \$\.request\.key: .+|\$\.request\.key: .+; \$\.sender\.id: .+/,
    );
  });

  it("unknown core fields are reported one by one at their own path (docs/arc.md, 'Validation': unknown core fields are rejected)", () => {
    expect(
      paths({
        ...base,
        extra: 1,
        event_type: "request.created",
        sender: { id: "codex", nickname: "c" },
        request: { kind: "information", message: "m", outcome: "answered" },
      }).sort(),
    ).toEqual(["$.extra", "$.request.outcome", "$.sender.nickname"]);
  });

  it("extension keys and x-notify contents are located with bracket paths", () => {
    expect(
      paths({
        ...base,
        event_type: "request.created",
        request: { kind: "information", message: "m" },
        extensions: { "X-Acme": {}, "x-notify": { notification_type: "Bad", colour: "red" } },
      }).sort(),
    ).toEqual([
      '$.extensions["X-Acme"]',
      '$.extensions["x-notify"].colour',
      '$.extensions["x-notify"].notification_type',
    ]);
  });

  it("deep paths use indexes: a bad choice id and a duplicate", () => {
    const found = problems({
      ...base,
      event_type: "request.created",
      request: {
        kind: "question",
        message: "Which?",
        response: {
          kind: "single_choice",
          choices: [
            { id: "a b", label: "A" },
            { id: "b", label: "B" },
            { id: "b", label: "B again" },
          ],
          expires_at: "2026-01-01T00:10:00Z",
        },
      },
    });
    expect(found.map((problem) => problem.path)).toEqual([
      "$.request.response.choices[0].id",
      "$.request.response.choices[2].id",
    ]);
    expect(found[1]?.message).toBe("choice ids must be unique");
  });

  it("an answer with both choice_id and text, or neither, is reported at $.response (exactly one is present)", () => {
    const answer = { response_id: "r1", digest: "0".repeat(64) };
    const submitted = (response: Json) => ({
      ...base,
      event_type: "response.submitted",
      request: { key: "k" },
      response,
    });
    const both = problems(submitted({ ...answer, choice_id: "allow", text: "yes" }));
    expect(both).toHaveLength(1);
    expect(both[0]?.path).toMatch(/^\$\.response\.(text|choice_id)$/);
    const neither = problems(submitted(answer));
    expect(neither).toHaveLength(1);
    expect(neither[0]?.path).toMatch(/^\$\.response\.(text|choice_id)$/);
  });

  it("a non-object body is one problem at $", () => {
    for (const value of [null, [], "event", 3, true, undefined]) expect(paths(value)).toEqual(["$"]);
  });

  it("an unknown event_type is one problem at $.event_type", () => {
    expect(paths({ ...base, event_type: "request.deleted", request: { key: "k" } })).toEqual(["$.event_type"]);
  });

  it("arc_version other than 0.2 is rejected (docs/arc.md, 'Versioning')", () => {
    for (const version of ["0.1", "0.2.0", "1.0", 0.2, null]) {
      expect(paths({ ...base, arc_version: version, event_type: "request.resolved", request: { key: "k" } })).toContain(
        "$.arc_version",
      );
    }
  });

  it("jsonPath quotes keys that are not identifiers", () => {
    expect(jsonPath([])).toBe("$");
    expect(jsonPath(["request", "response", "choices", 3, "id"])).toBe("$.request.response.choices[3].id");
    expect(jsonPath(["extensions", "x-notify", "a b", "é"])).toBe('$.extensions["x-notify"]["a b"]["é"]');
  });
});

describe("validator properties (fast-check)", () => {
  it.each([
    ["request.created", requestCreated()],
    ["request.updated", requestUpdated()],
    ["response.submitted", responseSubmitted()],
    ["request.resolved", requestResolved()],
  ])("every generated valid %s is accepted and returned unchanged", (_type, events) => {
    fc.assert(
      fc.property(events, (event) => {
        const result = validateArcEvent(event);
        if (!result.ok) throw new Error(formatProblems(result.problems));
        // Nothing is added (no defaults) or stripped: the consumer fingerprints exactly what the producer sent.
        expect(result.value).toEqual(event);
      }),
      { numRuns: 100 },
    );
  });

  it("every single-field mutation that breaks the schema is rejected, with located problems", () => {
    fc.assert(
      fc.property(mutated(anyEvent()), ({ mutation, value }) => {
        const result = validateArcEvent(value);
        expect(result.ok, mutation).toBe(false);
        if (!result.ok) {
          expect(result.problems.length).toBeGreaterThan(0);
          for (const problem of result.problems) {
            expect(problem.path).toMatch(/^\$/);
            expect(problem.message.length).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never throws, whatever the input (including non-JSON values)", () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
    });
    fc.assert(
      fc.property(anything, (value) => {
        const result = validateArcEvent(value);
        expect(typeof result.ok).toBe("boolean");
      }),
      { numRuns: 200 },
    );
  });

  it("never throws on a valid event with one subtree replaced by arbitrary JSON", () => {
    fc.assert(
      fc.property(anyEvent(), fc.jsonValue({ maxDepth: 2 }), fc.nat(), (event, replacement, pick) => {
        const copy = withOneValueReplaced(event, replacement, pick);
        const result = validateArcEvent(copy);
        expect(typeof result.ok).toBe("boolean");
      }),
      { numRuns: 200 },
    );
  });
});
