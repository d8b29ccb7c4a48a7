import { readdirSync, readFileSync } from "node:fs";
import { anyEvent, type Json, mutated } from "@notify/test-kit/arc-arbitraries";
import AjvModule from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contractSchemas } from "../src/json-schema.js";
import { validateArcEvent } from "../src/validate.js";

// ajv is CommonJS: its default import is the class at run time, typed as the module object.
const Ajv2020 = AjvModule as unknown as typeof AjvModule.default;

const SCHEMA_DIR = new URL("../schemas/", import.meta.url);
const generated = contractSchemas();

/**
 * Formats are annotations here: every `date-time` in the emitted schemas also carries zod's RFC 3339 `pattern`, and
 * that pattern is what both sides enforce. `strict` makes ajv refuse any keyword it does not know.
 */
const ajv = new Ajv2020({ strict: true, allErrors: true, formats: { "date-time": true } });
const ARC_FILES = {
  "request.created": "arc-0.2-request.created.schema.json",
  "request.updated": "arc-0.2-request.updated.schema.json",
  "response.submitted": "arc-0.2-response.submitted.schema.json",
  "request.resolved": "arc-0.2-request.resolved.schema.json",
} as const;
const compiled = Object.fromEntries(
  Object.values(ARC_FILES).map((file) => [file, ajv.compile(generated[file] as object)]),
);

/** An event conforms to the JSON Schemas when one of the four per-type schemas accepts it. */
function schemasAccept(value: unknown): boolean {
  return Object.values(compiled).some((validate) => validate(value) === true);
}

describe("checked-in JSON Schemas (packages/contracts/schemas)", () => {
  it("are exactly what contractSchemas() generates, file for file (run `npm run schemas` after a change)", () => {
    const onDisk = readdirSync(SCHEMA_DIR)
      .filter((name) => name.endsWith(".schema.json"))
      .sort();
    expect(onDisk).toEqual(Object.keys(generated).sort());
    for (const [name, schema] of Object.entries(generated)) {
      // Compared as JSON values: biome may reflow the files, which changes bytes but not meaning.
      const stored = JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), "utf8"));
      expect(stored, name).toEqual(JSON.parse(JSON.stringify(schema)));
    }
  });

  it("every schema compiles under ajv 2020-12 strict mode and names itself", () => {
    for (const [name, schema] of Object.entries(generated)) {
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.$id).toBe(`https://notify.local/schemas/${name}`);
      expect(() => new Ajv2020({ strict: true, formats: { "date-time": true } }).compile(schema)).not.toThrow();
    }
  });

  it("each ARC schema pins its event_type and arc_version 0.2 (docs/arc.md, 'Versioning')", () => {
    for (const [type, file] of Object.entries(ARC_FILES)) {
      const properties = (generated[file] as { properties: Record<string, Json> }).properties;
      expect(properties.event_type?.const).toBe(type);
      expect(properties.arc_version?.const).toBe("0.2");
    }
  });
});

describe("JSON Schemas agree with the zod validator", () => {
  it("valid events: both accept (every type, optional fields, boundary lengths, unicode)", () => {
    fc.assert(
      fc.property(anyEvent(), (event) => {
        expect(validateArcEvent(event).ok).toBe(true);
        const file = ARC_FILES[event.event_type as keyof typeof ARC_FILES];
        const validate = compiled[file] as (value: unknown) => boolean;
        expect(validate(event), JSON.stringify((validate as { errors?: unknown }).errors)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("schema-expressible single-field mutations: both reject; choice-id uniqueness: the validator only", () => {
    fc.assert(
      fc.property(mutated(anyEvent()), ({ mutation, expressible, value }) => {
        expect(validateArcEvent(value).ok, mutation).toBe(false);
        // Choice ids must be unique (docs/arc.md, "Questions"), which JSON Schema cannot say about one property
        // of array items (uniqueItems compares whole items). The schemas accept such an event; the validator and
        // therefore the broker reject it. Everything else the schemas reject as well.
        expect(schemasAccept(value), mutation).toBe(!expressible);
      }),
      { numRuns: 300 },
    );
  });

  it("arbitrary JSON: the schemas and the validator decide alike", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(schemasAccept(value)).toBe(validateArcEvent(value).ok);
      }),
      { numRuns: 200 },
    );
  });

  it("both count lengths in Unicode code points: a surrogate pair is one character", () => {
    // request.key is 1-100 characters. 100 astral characters are 200 UTF-16 code units and still fit; 101 do not.
    const event = (key: string) => ({
      arc_version: "0.2",
      event_id: "e1",
      event_type: "request.resolved",
      occurred_at: "2026-01-01T00:00:00Z",
      sender: { id: "codex" },
      request: { key },
    });
    const resolvedSchema = compiled[ARC_FILES["request.resolved"]] as (value: unknown) => boolean;
    expect(resolvedSchema(event("😀".repeat(100)))).toBe(true);
    expect(validateArcEvent(event("😀".repeat(100))).ok).toBe(true);
    expect(resolvedSchema(event("😀".repeat(101)))).toBe(false);
    const result = validateArcEvent(event("😀".repeat(101)));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((problem) => problem.path)).toEqual(["$.request.key"]);
  });

  it("documented difference: duplicate choice ids pass the schema and fail the validator", () => {
    const event = {
      arc_version: "0.2",
      event_id: "e1",
      event_type: "request.created",
      occurred_at: "2026-01-01T00:00:00Z",
      sender: { id: "codex" },
      request: {
        kind: "permission",
        message: "Allow?",
        response: {
          kind: "permission",
          choices: [
            { id: "allow", label: "Allow" },
            { id: "allow", label: "Allow again" },
          ],
          expires_at: "2026-01-01T00:10:00Z",
        },
      },
    };
    expect(schemasAccept(event)).toBe(true);
    const result = validateArcEvent(event);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.problems).toEqual([
        { path: "$.request.response.choices[1].id", message: "choice ids must be unique" },
      ]);
  });
});
