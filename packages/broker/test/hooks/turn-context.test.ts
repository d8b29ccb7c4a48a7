// Issue 35, item 4: a follow-up carries its turn (how long it took, the messages before the agent's last one) as the
// question's context (docs/api.md, "Item context"): posted by the Stop hook to POST /v1/contexts, bound by the
// question's event (`x-notify-context`), read by the page from GET /ui/api/items/:id/context. And the API's edges:
// a bad context is a 400 naming the field, an oversized body a 413, an event naming an unknown or used context
// stores nothing.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Json, tempDir } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, startCliBroker } from "../cli/cli-harness.js";
import { claude } from "./fixtures.js";
import { spawnHook } from "./hook-harness.js";

const FOLLOW_UP = /waiting up to \d+ s for a follow-up to interaction (int_\S+)/;
const TRANSCRIPTS = fileURLToPath(new URL("./fixtures/transcripts/", import.meta.url));
/** The last message Claude Code wrote in the fixture transcript (its Stop's last_assistant_message). */
const LAST = "Turn 1 done.\n\n- a\n- b\n\n```js\nx()\n```";

let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker({ followUp: { waitSeconds: 120 } });
});
afterAll(async () => {
  await cli?.close();
});

const ui = (path: string) =>
  fetch(`${cli.broker.url}/ui/api${path}`, { headers: { authorization: `Bearer ${cli.token}` } });

let eventCount = 0;
/** A request.created asking a text question, naming `contextId` in x-notify-context. */
function event(contextId: string, key = `ctx-key-${++eventCount}`): Json {
  return {
    arc_version: "0.2",
    event_id: `ctx-event-${++eventCount}`,
    event_type: "request.created",
    occurred_at: new Date().toISOString(),
    sender: { id: "ctx-test" },
    request: {
      key,
      kind: "completion",
      title: "Done",
      message: "Finished.",
      response: { kind: "text", expires_at: new Date(Date.now() + 600_000).toISOString() },
    },
    extensions: { "x-notify-context": { id: contextId } },
  };
}

describe("a follow-up's turn context (issue 35, item 4)", () => {
  it("the Stop hook reads the transcript and the question carries the turn; the page reads it by either id", async () => {
    const transcript = join(tempDir("turn-context-"), "session.jsonl");
    copyFileSync(join(TRANSCRIPTS, "claude-code-2.1.330.jsonl"), transcript);
    const stop = spawnHook(["claude-code", "Stop", ...cli.target], {
      ...claude.stop.input,
      session_id: "s-turn-context",
      transcript_path: transcript,
      last_assistant_message: LAST,
    });
    const id = (await stop.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
    const response = await ui(`/items/${id}/context`);
    expect(response.status).toBe(200);
    const context = (await response.json()) as Json;
    expect(context).toMatchObject({
      kind: "turn",
      messages: [{ role: "user", text: "say hello" }],
      truncated: false,
    });
    // From the prompt (2026-11-28T02:34:33.368Z in the fixture) to the Stop: positive, and whole milliseconds.
    expect(Number.isInteger(context.duration_ms) && context.duration_ms > 0).toBe(true);
    expect(context.bytes).toBe(Buffer.byteLength(JSON.stringify({ ...context, bytes: 0 })));
    const question = (await (await ui(`/interactions/${id}`)).json()) as Json;
    const notificationId = question.notification_id as string;
    expect(notificationId).toMatch(/\S/);
    // The page's item says it has one, so the page asks for it.
    expect(question.has_context).toBe(true);
    expect((await (await ui(`/items/${notificationId}/context`)).json()) as Json).toEqual(context);
    await cli.api("POST", `/v1/interactions/${id}/cancel`);
    expect((await stop.done).code).toBe(0);
  });

  it("no transcript: the follow-up asks all the same, without a context (404 context not found)", async () => {
    const stop = spawnHook(["claude-code", "Stop", ...cli.target], {
      ...claude.stop.input,
      session_id: "s-no-transcript",
      transcript_path: join(tempDir("turn-context-"), "missing.jsonl"),
    });
    const id = (await stop.stderrMatching(FOLLOW_UP, 30_000))[1] ?? "";
    const response = await ui(`/items/${id}/context`);
    expect(response.status).toBe(404);
    expect(((await (await ui(`/interactions/${id}`)).json()) as Json).has_context).toBeUndefined();
    expect(await response.json()).toEqual({ error: "context not found" });
    await cli.api("POST", `/v1/interactions/${id}/cancel`);
    await stop.done;
  });

  it("POST /v1/contexts: 201 with its id; each bad field is a 400 naming it; an oversized body is a 413", async () => {
    const created = await cli.api<Json>("POST", "/v1/contexts", {
      kind: "turn",
      duration_ms: 1500,
      messages: [{ role: "user", text: "hi" }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^ctx_[0-9a-f]{32}$/), truncated: false });
    const refusals: [Json, string][] = [
      [{ kind: "diary", messages: [] }, "$.kind: expected one of turn, form, diff, command, url, json"],
      [{ kind: "turn", messages: [], extra: 1 }, "$.extra: unknown field"],
      [{ kind: "turn", messages: "no" }, "$.messages: expected an array"],
      [
        { kind: "turn", messages: [{ role: "system", text: "x" }] },
        '$.messages[0].role: expected "user" or "assistant"',
      ],
      [{ kind: "turn", messages: [{ role: "user", text: "" }] }, "$.messages[0].text: expected a non-empty string"],
      [{ kind: "turn", messages: [], duration_ms: -1 }, "$.duration_ms: expected an integer from 0 to 604800000"],
      [
        { kind: "turn", messages: Array.from({ length: 9 }, () => ({ role: "user", text: "x" })) },
        "$.messages: at most 8 messages",
      ],
    ];
    for (const [body, error] of refusals) {
      const refused = await cli.api<Json>("POST", "/v1/contexts", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toBe(error);
    }
    const huge = await fetch(`${cli.broker.url}/v1/contexts`, {
      method: "POST",
      headers: { authorization: `Bearer ${cli.token}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "turn", messages: [{ role: "user", text: "x".repeat(400 * 1024) }] }),
    });
    expect(huge.status).toBe(413);
    // Without the token: 401, as every /v1 route.
    expect((await fetch(`${cli.broker.url}/v1/contexts`, { method: "POST", body: "{}" })).status).toBe(401);
  });

  it("an event naming an unknown or already bound context is refused whole: no notification, no question", async () => {
    const unknown = await cli.api<Json>("POST", "/v1/events", event(`ctx_${"0".repeat(32)}`, "ctx-unknown"));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/x-notify-context\.id: no such context/);
    const { body: stored } = await cli.api<Json[]>("GET", "/v1/interactions?pending=true");
    expect(stored.filter((row) => row.key === "ctx-unknown")).toEqual([]);

    const { body: posted } = await cli.api<Json>("POST", "/v1/contexts", { kind: "turn", messages: [] });
    const first = await cli.api<Json>("POST", "/v1/events", event(posted.id));
    expect(first.status).toBe(201);
    const again = await cli.api<Json>("POST", "/v1/events", event(posted.id, "ctx-reused"));
    expect(again.status).toBe(400);
    const { body: after } = await cli.api<Json[]>("GET", "/v1/notifications?unresolved=true");
    expect(after.filter((row) => row.key === "ctx-reused")).toEqual([]);
    // A malformed id is the schema's refusal.
    const malformed = await cli.api<Json>("POST", "/v1/events", event("ctx_nope"));
    expect(malformed.status).toBe(400);
  });
});
