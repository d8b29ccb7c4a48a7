// Issue 36, item 4: the form context an MCP elicitation's questions carry, and the check every field's answer passes
// before the broker takes it (docs/api.md, "Item context").
import { describe, expect, it } from "vitest";
import { checkFieldAnswer, type FormField, fieldHint, fieldInitialValue, fieldInputType } from "../src/form-context.js";
import { checkItemContext, contextSummary } from "../src/item-context.js";

const field = (patch: Partial<FormField>): FormField => ({
  name: "f",
  title: "F",
  type: "string",
  required: true,
  ...patch,
});

const form = (patch: Record<string, unknown> = {}) => ({
  kind: "form",
  form: "f1",
  server: "signup",
  mode: "form",
  message: "Sign up",
  fields: [
    { name: "age", title: "Age", type: "integer", required: true, minimum: 18, maximum: 120 },
    { name: "color", title: "Color", type: "enum", required: false, options: [{ value: "r", label: "Red" }] },
  ],
  ...patch,
});

describe("the form context (issue 36)", () => {
  it("a valid form is taken, with its size; the summary names the fields and the server", () => {
    const checked = checkItemContext(form({ field: "age" }));
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.value).toMatchObject({ kind: "form", field: "age", truncated: false });
    expect(checked.value.bytes).toBeGreaterThan(100);
    expect(contextSummary(checked.value)).toBe("2 fields for signup");
    const url = checkItemContext(form({ mode: "url", url: "https://example.com/auth", fields: [] }));
    expect(url.ok && contextSummary(url.value)).toBe("https://example.com/auth");
  });

  it.each([
    [{ extra: 1 }, "$.extra: unknown field"],
    [{ field: "nope" }, "$.field: expected the name of one of the fields"],
    [{ mode: "url" }, "$.url: required for mode url"],
    [{ mode: "popup" }, "$.mode: expected one of form, url"],
    [{ server: "" }, "$.server: expected a non-empty string"],
    [{ fields: [{ name: "a", title: "A", type: "array", required: true }] }, "$.fields[0].type: expected one of"],
    [
      { fields: [{ name: "a", title: "A", type: "string", required: true, options: [] }] },
      "$.fields[0].options: only for an enum field",
    ],
    [
      { fields: [{ name: "a", title: "A", type: "enum", required: true }] },
      "$.fields[0].options: expected 1-100 options",
    ],
    [
      { fields: [{ name: "a", title: "A", type: "integer", required: true, default: 1.5 }] },
      "$.fields[0].default: A must be a whole number",
    ],
    [
      { fields: [{ name: "a", title: "A", type: "number", required: true, minimum: Number.NaN }] },
      "$.fields[0].minimum: expected a finite number",
    ],
    [{ fields: [field({ name: "a" }), field({ name: "a" })] }, "$.fields[1].name: duplicate name"],
    [{ fields: Array.from({ length: 21 }, (_, i) => field({ name: `f${i}` })) }, "$.fields: at most 20 fields"],
  ])("refuses %j with %s", (patch, error) => {
    const checked = checkItemContext(form(patch));
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.startsWith(error)).toBe(true);
  });

  it("a field's answer reads as its type within its bounds, or names the field and what it takes", () => {
    const age = field({ title: "Age", type: "integer", minimum: 18, maximum: 120 });
    expect(checkFieldAnswer(age, { text: " 36 " })).toEqual({ ok: true, value: 36 });
    expect(checkFieldAnswer(age, { text: "1e2" })).toEqual({ ok: true, value: 100 });
    expect(checkFieldAnswer(age, { text: "17" })).toEqual({ ok: false, error: "Age must be at least 18" });
    expect(checkFieldAnswer(age, { text: "121" })).toEqual({ ok: false, error: "Age must be at most 120" });
    expect(checkFieldAnswer(age, { text: "0x20" })).toEqual({ ok: false, error: "Age must be a whole number" });
    expect(checkFieldAnswer(age, { text: "Infinity" })).toEqual({ ok: false, error: "Age must be a whole number" });
    expect(checkFieldAnswer(age, { choice_id: "yes" })).toEqual({ ok: false, error: "Age: unknown choice" });
    const ratio = field({ title: "Ratio", type: "number", maximum: 1 });
    expect(checkFieldAnswer(ratio, { text: ".25" })).toEqual({ ok: true, value: 0.25 });
    const agree = field({ title: "Agree", type: "boolean" });
    expect(checkFieldAnswer(agree, { choice_id: "no" })).toEqual({ ok: true, value: false });
    expect(checkFieldAnswer(agree, { text: "Yes" })).toEqual({ ok: true, value: true });
    // Only its own choices: an inherited name is no choice.
    expect(checkFieldAnswer(agree, { choice_id: "constructor" }).ok).toBe(false);
    expect(checkFieldAnswer(agree, { text: "maybe" })).toEqual({ ok: false, error: "Agree must be yes or no" });
    const color = field({
      title: "Color",
      type: "enum",
      options: [
        { value: "r", label: "Red" },
        { value: "g", label: "Green" },
      ],
    });
    expect(checkFieldAnswer(color, { choice_id: "option_2" })).toEqual({ ok: true, value: "g" });
    expect(checkFieldAnswer(color, { choice_id: "option_3" }).ok).toBe(false);
    expect(checkFieldAnswer(color, { text: "red" })).toEqual({ ok: true, value: "r" });
    expect(checkFieldAnswer(color, { text: "blue" })).toEqual({ ok: false, error: "Color must be one of: Red, Green" });
    const name = field({ title: "Name", min_length: 2, max_length: 3 });
    expect(checkFieldAnswer(name, { text: " Al" })).toEqual({ ok: true, value: " Al" });
    expect(checkFieldAnswer(name, { text: "🙂🙂🙂" })).toEqual({ ok: true, value: "🙂🙂🙂" });
    expect(checkFieldAnswer(name, { text: "Alex" })).toEqual({ ok: false, error: "Name must be at most 3 characters" });
    const formats: [NonNullable<FormField["format"]>, string, string][] = [
      ["email", "a@b.co", "a@b"],
      ["uri", "https://example.com/x", "example.com"],
      ["date", "2026-11-28", "28/11/2026"],
      ["date-time", "2026-11-28T06:59:00Z", "2026-11-28 06:59"],
    ];
    for (const [format, good, bad] of formats) {
      const typed = field({ title: "When", format });
      expect(checkFieldAnswer(typed, { text: good }).ok, `${format} ${good}`).toBe(true);
      expect(checkFieldAnswer(typed, { text: bad }).ok, `${format} ${bad}`).toBe(false);
    }
    expect(fieldHint(age)).toBe("a whole number from 18 to 120");
    // What the cards' inputs start with, and their types.
    expect(fieldInitialValue(field({ type: "boolean", default: false }))).toBe("no");
    expect(fieldInitialValue({ ...color, default: "g" })).toBe("option_2");
    expect(fieldInitialValue(field({ type: "number", default: 0.5 }))).toBe("0.5");
    expect(fieldInitialValue(age)).toBe("");
    expect([age, ratio, name, field({ format: "email" }), field({ format: "uri" })].map(fieldInputType)).toEqual([
      "number",
      "number",
      "text",
      "email",
      "url",
    ]);
    expect(fieldHint(field({ format: "email", max_length: 80 }))).toBe("an email address of at most 80 characters");
  });
});
