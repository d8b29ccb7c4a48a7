// Issue 36, item 4: MCP elicitation through Claude Code's Elicitation hook (docs/hooks.md, "MCP elicitation"). The
// hook, as Claude Code runs it, opens one question per field and the decision, each with the whole form as its
// context; an answer outside a field's schema is refused by the broker with the field's words; accept prints the
// typed content, decline and cancel print themselves, a schema Notify cannot ask faithfully prints nothing.
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, NO_FOLLOW_UPS, startCliBroker } from "../cli/cli-harness.js";
import { spawnHook } from "./hook-harness.js";

const FORM_OPEN = /waiting for the form (int_\S+) \((\d+) fields\)/;

let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker(NO_FOLLOW_UPS);
});
afterAll(async () => {
  await cli?.close();
});

/** Every field type MCP elicitation has, as a server writes its requested schema. */
const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2, maxLength: 40 },
    email: { type: "string", title: "Email", format: "email" },
    age: { type: "integer", title: "Age", minimum: 18, maximum: 120 },
    ratio: { type: "number", title: "Ratio", minimum: 0, maximum: 1, default: 0.5 },
    subscribe: { type: "boolean", title: "Subscribe", default: false },
    color: { type: "string", title: "Color", enum: ["red", "green"], enumNames: ["Red", "Green"] },
    size: {
      type: "string",
      title: "Size",
      oneOf: [
        { const: "s", title: "Small" },
        { const: "l", title: "Large" },
      ],
    },
  },
  required: ["name", "email", "age", "color"],
};

const elicitation = (session: string, schema: unknown = SCHEMA): Json => ({
  session_id: session,
  transcript_path: "/nonexistent/transcript.jsonl",
  cwd: "/tmp",
  hook_event_name: "Elicitation",
  mcp_server_name: "signup",
  message: "Sign up for the newsletter",
  mode: "form",
  requested_schema: schema,
});

async function openForm(session: string) {
  const hook = spawnHook(["claude-code", "Elicitation", ...cli.target], elicitation(session));
  const [, decisionId, fields] = await hook.stderrMatching(FORM_OPEN, 30_000);
  const { body } = await cli.api<Json[]>("GET", `/v1/interactions?pending=true&session=${session}&limit=50`);
  const open = body as unknown as Json[];
  expect(open).toHaveLength(Number(fields) + 1);
  const byField = new Map<string, Json>();
  for (const question of open) {
    const context = (await cli.api<Json>("GET", `/ui/api/items/${question.id}/context`)).body;
    expect(context.kind).toBe("form");
    expect(context.form).toBeTypeOf("string");
    expect((context.fields as Json[]).map((field) => field.name)).toEqual(Object.keys(SCHEMA.properties));
    byField.set((context.field as string | undefined) ?? "decision", question);
  }
  expect(byField.get("decision")?.id).toBe(decisionId);
  return { hook, byField };
}

/**
 * Answers as a surface would. The broker's POST limit (30 a second per token) is shared with the hook opening its
 * form (two POSTs a question), so on a loaded machine the two can meet in one second: a 429 is sent again after its
 * Retry-After, as a client does.
 */
async function answer(question: Json | undefined, value: { choice_id: string } | { text: string }, id: string) {
  for (;;) {
    const reply = await cli.api<Json>("POST", `/v1/interactions/${question?.id}/respond`, {
      response_id: id,
      request_digest: question?.request_digest,
      nonce: question?.nonce,
      ...value,
    });
    if (reply.status !== 429) return reply;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

describe("MCP elicitation through Claude Code's Elicitation hook (issue 36)", () => {
  it("a field's answer outside its schema is refused with the field's words; accept sends the typed content", async () => {
    const { hook, byField } = await openForm("s-elicit-accept");
    // Choice fields are choices; typed fields are text.
    expect(byField.get("subscribe")).toMatchObject({ kind: "single_choice" });
    expect(((byField.get("color")?.choices ?? []) as Json[]).map((choice) => choice.label)).toEqual(["Red", "Green"]);
    expect(byField.get("age")).toMatchObject({ kind: "text" });
    expect(((byField.get("decision")?.choices ?? []) as Json[]).map((choice) => choice.id)).toEqual([
      "accept",
      "decline",
      "cancel",
    ]);

    const refusals: [string, { text: string }, string][] = [
      ["age", { text: "17" }, "Age must be at least 18"],
      ["age", { text: "eighteen" }, "Age must be a whole number"],
      ["age", { text: "18.5" }, "Age must be a whole number"],
      ["email", { text: "not-an-address" }, "Email must be an email address"],
      ["name", { text: "A" }, "Name must be at least 2 characters"],
      ["ratio", { text: "2" }, "Ratio must be at most 1"],
    ];
    for (const [field, value, error] of refusals) {
      const refused = await answer(byField.get(field), value, `bad-${field}-${value.text}`);
      expect(refused.status, `${field} = ${value.text}`).toBe(400);
      expect(refused.body.error).toBe(error);
      // Refused, the question stays open for a valid answer.
      expect((await cli.api<Json>("GET", `/v1/interactions/${byField.get(field)?.id}`)).body.status).toBe("pending");
    }
    expect((await answer(byField.get("name"), { text: "Ada" }, "name")).status).toBe(200);
    expect((await answer(byField.get("email"), { text: "ada@example.com" }, "email")).status).toBe(200);
    expect((await answer(byField.get("age"), { text: " 36 " }, "age")).status).toBe(200);
    expect((await answer(byField.get("subscribe"), { choice_id: "yes" }, "subscribe")).status).toBe(200);
    expect((await answer(byField.get("color"), { choice_id: "option_2" }, "color")).status).toBe(200);
    // `ratio` and `size` stay unanswered: the default goes for ratio, nothing for size.
    expect((await answer(byField.get("decision"), { choice_id: "accept" }, "decision")).status).toBe(200);

    const { stdout, code } = await hook.done;
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "Elicitation",
        action: "accept",
        content: { name: "Ada", email: "ada@example.com", age: 36, ratio: 0.5, subscribe: true, color: "green" },
      },
    });
    // The unanswered optional field's question is withdrawn.
    expect((await cli.api<Json>("GET", `/v1/interactions/${byField.get("size")?.id}`)).body.status).not.toBe("pending");
  });

  it("accept before a required field is answered waits for it", async () => {
    const { hook, byField } = await openForm("s-elicit-wait");
    for (const [field, value] of [
      ["name", { text: "Bo" }],
      ["email", { text: "bo@example.com" }],
      ["color", { choice_id: "option_1" }],
    ] as const) {
      expect((await answer(byField.get(field), value, field)).status).toBe(200);
    }
    expect((await answer(byField.get("decision"), { choice_id: "accept" }, "decision")).status).toBe(200);
    // Still waiting for `age`.
    await expect(
      Promise.race([hook.done, new Promise((resolve) => setTimeout(resolve, 500, "waiting"))]),
    ).resolves.toBe("waiting");
    expect((await answer(byField.get("age"), { text: "40" }, "age")).status).toBe(200);
    const { stdout } = await hook.done;
    expect(JSON.parse(stdout).hookSpecificOutput.content).toEqual({
      name: "Bo",
      email: "bo@example.com",
      age: 40,
      ratio: 0.5,
      subscribe: false,
      color: "red",
    });
  });

  for (const action of ["decline", "cancel"] as const) {
    it(`${action} arrives as such, and the fields are withdrawn`, async () => {
      const { hook, byField } = await openForm(`s-elicit-${action}`);
      expect((await answer(byField.get("decision"), { choice_id: action }, action)).status).toBe(200);
      const { stdout } = await hook.done;
      expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: "Elicitation", action } });
      for (const [field, question] of byField) {
        if (field === "decision") continue;
        expect((await cli.api<Json>("GET", `/v1/interactions/${question.id}`)).body.status, field).not.toBe("pending");
      }
    });
  }

  it("a schema Notify cannot ask faithfully (a multi-select array) prints nothing: Claude Code asks itself", async () => {
    const hook = spawnHook(
      ["claude-code", "Elicitation", ...cli.target],
      elicitation("s-elicit-array", {
        type: "object",
        properties: { tags: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
      }),
    );
    const { stdout, code } = await hook.done;
    expect(code).toBe(0);
    expect(stdout).toBe("");
    const { body } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true&session=s-elicit-array");
    expect(body).toEqual([]);
  });
});
