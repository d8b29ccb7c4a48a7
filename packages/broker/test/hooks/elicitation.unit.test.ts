// Issue 36, item 4: reading Claude Code's Elicitation input (docs/hooks.md, "MCP elicitation") without I/O.
import { describe, expect, it } from "vitest";
import { elicitationOf, elicitationOutput, formQuestions } from "../../src/hooks/elicitation.js";
import { parseHookInput } from "../../src/hooks/hook-input.js";
import { planHook } from "../../src/hooks/mapping.js";

const input = (schema: unknown, patch: Record<string, unknown> = {}) => ({
  hook_event_name: "Elicitation",
  session_id: "s1",
  mcp_server_name: "signup",
  message: "Sign up",
  mode: "form",
  requested_schema: schema,
  ...patch,
});

describe("Claude Code's Elicitation input (issue 36)", () => {
  it("reads every field type with titles, bounds, formats and defaults; a default that does not fit is left out", () => {
    const read = elicitationOf(
      input({
        type: "object",
        properties: {
          name: { type: "string", description: "Your name", minLength: 1, maxLength: 9, default: "Ada" },
          mail: { type: "string", format: "email" },
          n: { type: "integer", minimum: 1, maximum: 5, default: 9 },
          on: { type: "boolean", default: true },
          size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l" }] },
          color: { type: "string", enum: ["r", "g"], enumNames: ["Red"] },
        },
        required: ["mail"],
      }),
    );
    expect(read?.fields).toEqual([
      {
        name: "name",
        title: "name",
        description: "Your name",
        type: "string",
        required: false,
        min_length: 1,
        max_length: 9,
        default: "Ada",
      },
      { name: "mail", title: "mail", type: "string", required: true, format: "email" },
      { name: "n", title: "n", type: "integer", required: false, minimum: 1, maximum: 5 },
      { name: "on", title: "on", type: "boolean", required: false, default: true },
      {
        name: "size",
        title: "size",
        type: "enum",
        required: false,
        options: [
          { value: "s", label: "Small" },
          { value: "l", label: "l" },
        ],
      },
      {
        name: "color",
        title: "color",
        type: "enum",
        required: false,
        options: [
          { value: "r", label: "Red" },
          { value: "g", label: "g" },
        ],
      },
    ]);
  });

  it.each([
    ["a multi-select array", { type: "object", properties: { t: { type: "array", items: { enum: ["a"] } } } }],
    ["a nested object", { type: "object", properties: { o: { type: "object" } } }],
    ["a field named __proto__", JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')],
    ["an enum with a value twice", { type: "object", properties: { e: { type: "string", enum: ["a", "a"] } } }],
    ["an empty enum", { type: "object", properties: { e: { type: "string", enum: [] } } }],
    ["an unknown format", { type: "object", properties: { s: { type: "string", format: "ipv4" } } }],
    ["a non-object schema", { type: "array" }],
    [
      "21 fields",
      {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, { type: "string" }])),
      },
    ],
  ])("%s is not asked: Claude Code asks itself", (_what, schema) => {
    expect(elicitationOf(input(schema))).toBeUndefined();
    const plan = planHook("claude-code", "Elicitation", parseHookInput(JSON.stringify(input(schema))) ?? {});
    expect(plan.form).toBeUndefined();
  });

  it("a form plans a question per field, then the decision, all keyed under the session and one form id", () => {
    const plan = planHook(
      "claude-code",
      "Elicitation",
      parseHookInput(
        JSON.stringify(
          input({
            type: "object",
            properties: { age: { type: "integer", minimum: 18 }, ok: { type: "boolean" } },
            required: ["age"],
          }),
        ),
      ) ?? {},
    );
    const form = plan.form;
    expect(form?.questions.map((question) => question.response.kind)).toEqual([
      "text",
      "single_choice",
      "single_choice",
    ]);
    expect(form?.questions[0]?.message.split("\n")[0]).toBe("age (required; a whole number of at least 18)");
    const [first, second, decision] = form?.keys ?? [];
    expect(first).toBe(`${decision}:field:1`);
    expect(second).toBe(`${decision}:field:2`);
    expect(decision).toMatch(/^claude-code:tool:[0-9a-f]{32}$/);
    const forms = new Set(form?.questions.map((question) => question.context.form));
    expect(forms.size).toBe(1);
    expect(form?.questions.map((question) => question.context.field)).toEqual(["age", "ok", undefined]);
    // Codex has no Elicitation hook: nothing planned for it.
    expect(
      planHook("codex", "Elicitation", parseHookInput(JSON.stringify(input({ type: "object" }))) ?? {}).form,
    ).toBeUndefined();
  });

  it("url mode asks the decision only, with the URL; the output carries content only on accept", () => {
    const read = elicitationOf(input(undefined, { mode: "url", url: "https://auth.example/x", elicitation_id: "e1" }));
    expect(read).toMatchObject({ mode: "url", url: "https://auth.example/x", id: "e1", fields: [] });
    const questions = formQuestions(read as NonNullable<typeof read>, "f", "Claude Code", "");
    expect(questions).toHaveLength(1);
    expect(questions[0]?.message).toContain("Open: https://auth.example/x");
    expect(JSON.parse(elicitationOutput("decline", { a: 1 }))).toEqual({
      hookSpecificOutput: { hookEventName: "Elicitation", action: "decline" },
    });
    expect(JSON.parse(elicitationOutput("accept", { a: 1 })).hookSpecificOutput.content).toEqual({ a: 1 });
  });
});
