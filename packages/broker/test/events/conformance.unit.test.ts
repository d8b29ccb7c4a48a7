/**
 * ARC 0.2 conformance of POST /v1/events. Each test cites the rule it checks in docs/arc.md (the ARC rules and the
 * documented decisions) or docs/api.md (the endpoint).
 */
import { requestDigest } from "@notify/contracts";
import { describe, expect, it } from "vitest";
import { type Json, type Reply, type TestBroker, testBroker } from "../helpers.js";

const NOW = "2026-01-01T00:00:00.000Z";
const IN_10_MIN = "2026-01-01T00:10:00Z";
const CHOICES = [
  { id: "allow", label: "Allow" },
  { id: "deny", label: "Deny", detail: "Stop the agent" },
];

let counter = 0;
const nextEventId = (): string => `evt-${++counter}`;

function event(type: string, request: Json, extra: Json = {}): Json {
  return {
    arc_version: "0.2",
    event_id: nextEventId(),
    event_type: type,
    occurred_at: NOW,
    sender: { id: "codex" },
    request,
    ...extra,
  };
}

const created = (request: Json = {}, extra: Json = {}): Json =>
  event("request.created", { kind: "information", message: "Build finished", ...request }, extra);
const updated = (key: string, request: Json = {}, extra: Json = {}): Json =>
  event("request.updated", { key, kind: "information", message: "Still building", ...request }, extra);
const resolved = (key: string, request: Json = {}, extra: Json = {}): Json =>
  event("request.resolved", { key, ...request }, extra);
const submitted = (key: string, response: Json, extra: Json = {}): Json =>
  event("response.submitted", { key }, { response, ...extra });

const permission = (extra: Json = {}): Json => ({
  kind: "permission",
  choices: CHOICES,
  expires_at: IN_10_MIN,
  ...extra,
});
const textSpec = (extra: Json = {}): Json => ({ kind: "text", text_max_length: 10, expires_at: IN_10_MIN, ...extra });

/** An answerable request.created (a permission question by default). */
function ask(key: string | undefined, spec: Json = permission(), request: Json = {}): Json {
  return created({
    ...(key === undefined ? {} : { key }),
    kind: "permission",
    message: "Allow rm -rf build/?",
    response: spec,
    ...request,
  });
}

/**
 * A well-formed answer to `interaction` (digest and nonce from the interaction object,
 * docs/arc.md, "Answers (`response.submitted`)").
 */
function answer(interaction: Json, extra: Json = {}): Json {
  return {
    response_id: "r-1",
    digest: interaction.request_digest,
    nonce: interaction.nonce,
    choice_id: "allow",
    ...extra,
  };
}

const post = (broker: TestBroker, body: unknown): Promise<Reply> => broker.call("POST", "/v1/events", body);

async function listed(broker: TestBroker): Promise<{ notifications: Json[]; interactions: Json[] }> {
  const notifications = (await broker.call("GET", "/v1/notifications")).body as Json[];
  const interactions = (await broker.call("GET", "/v1/interactions")).body as Json[];
  return { notifications, interactions };
}

async function expectNothingStored(broker: TestBroker): Promise<void> {
  expect(await listed(broker)).toEqual({ notifications: [], interactions: [] });
}

/** docs/api.md, "POST /v1/events": the body is always `{notification, interaction}`. */
function body(reply: Reply): { notification: Json; interaction: Json } {
  expect(Object.keys(reply.body as Json).sort()).toEqual(["interaction", "notification"]);
  return reply.body as { notification: Json; interaction: Json };
}

function expectError(reply: Reply, status: number, message?: string | RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(Object.keys(reply.body as Json)).toEqual(["error"]);
  const error = (reply.body as Json).error;
  expect(typeof error).toBe("string");
  if (typeof message === "string") expect(error).toBe(message);
  else if (message) expect(error).toMatch(message);
}

async function interactionOf(broker: TestBroker, id: string): Promise<Json> {
  return (await broker.call("GET", `/v1/interactions/${id}`)).body as Json;
}

async function notificationOf(broker: TestBroker, id: string): Promise<Json> {
  return (await broker.call("GET", `/v1/notifications/${id}`)).body as Json;
}

describe("the four event types and their per-type shapes (docs/arc.md, 'Event types'; docs/arc.md, 'Validation')", () => {
  it("a full lifecycle uses all four types: created 201, updated 200, response.submitted 200, resolved 200", async () => {
    const broker = testBroker();
    const open = await post(broker, created({ key: "build" }));
    expect(open.status).toBe(201);
    const asked = await post(
      broker,
      updated("build", { kind: "permission", message: "Deploy?", response: permission() }),
    );
    expect(asked.status).toBe(200);
    const { interaction } = body(asked);
    expect((await post(broker, submitted("build", answer(interaction)))).status).toBe(200);
    expect((await post(broker, resolved("build", { outcome: "answered" }))).status).toBe(200);
  });

  // docs/arc.md, "Validation": request.created and request.updated carry no outcome and no top-level response.
  it.each([
    ["created", () => created({ key: "k", outcome: "answered" }), "$.request.outcome"],
    [
      "created",
      () => created({ key: "k" }, { response: answer({ request_digest: "0".repeat(64), nonce: "n" }) }),
      "$.response",
    ],
    ["updated", () => updated("k", { outcome: "not_needed" }), "$.request.outcome"],
    [
      "updated",
      () => updated("k", {}, { response: answer({ request_digest: "0".repeat(64), nonce: "n" }) }),
      "$.response",
    ],
  ])("request.%s carrying a forbidden field is 400 (%#)", async (_type, make, path) => {
    const broker = testBroker();
    const reply = await post(broker, make());
    expectError(reply, 400);
    expect((reply.body as Json).error).toContain(path);
    await expectNothingStored(broker);
  });

  // docs/arc.md, "Validation": request.resolved: request contains key and optionally outcome only. It holds no kind,
  // title, message, priority or response. No top-level response."
  it.each([
    ["kind", { kind: "information" }],
    ["title", { title: "Done" }],
    ["message", { message: "Done" }],
    ["priority", { priority: "low" }],
    ["response", { response: permission() }],
  ])("request.resolved whose request holds %s is 400", async (field, extra) => {
    const broker = testBroker();
    await post(broker, created({ key: "k" }));
    const reply = await post(broker, resolved("k", extra));
    expectError(reply, 400);
    expect((reply.body as Json).error).toContain(`$.request.${field}`);
    expect((await listed(broker)).notifications[0].status).toBe("active");
  });

  it("request.resolved with a top-level response is 400; with key and outcome it is accepted (docs/arc.md, 'Validation')", async () => {
    const broker = testBroker();
    await post(broker, created({ key: "k" }));
    const forbidden = await post(
      broker,
      resolved("k", {}, { response: answer({ request_digest: "0".repeat(64), nonce: "n" }) }),
    );
    expectError(forbidden, 400);
    expect((forbidden.body as Json).error).toContain("$.response");
    const ok = await post(broker, resolved("k", { outcome: "not_needed" }));
    expect(ok.status).toBe(200);
  });

  // docs/arc.md, "Validation": response.submitted: request holds only key; top-level response is required.
  it("response.submitted whose request holds more than key is 400", async () => {
    const broker = testBroker();
    const asked = body(await post(broker, ask("k")));
    const reply = await post(
      broker,
      event("response.submitted", { key: "k", kind: "permission" }, { response: answer(asked.interaction) }),
    );
    expectError(reply, 400);
    expect((reply.body as Json).error).toContain("$.request.kind");
    expect((await interactionOf(broker, asked.interaction.id)).status).toBe("pending");
  });

  it("response.submitted without a top-level response is 400", async () => {
    const broker = testBroker();
    body(await post(broker, ask("k")));
    const reply = await post(broker, event("response.submitted", { key: "k" }));
    expectError(reply, 400);
    expect((reply.body as Json).error).toContain("$.response");
  });

  // docs/arc.md, "Validation": key is required on updated, resolved, response.submitted; optional on created.
  it.each([
    ["request.updated", { kind: "information", message: "m" }, {}],
    ["request.resolved", {}, {}],
    ["response.submitted", {}, { response: { response_id: "r", digest: "0".repeat(64), choice_id: "allow" } }],
  ])("%s without request.key is 400", async (type, request, extra) => {
    const broker = testBroker();
    const reply = await post(broker, event(type, request, extra));
    expectError(reply, 400);
    expect((reply.body as Json).error).toContain("$.request.key");
  });

  // docs/arc.md, "Validation": kind and message are required on created and updated.
  it.each([
    ["request.created", "kind"],
    ["request.created", "message"],
    ["request.updated", "kind"],
    ["request.updated", "message"],
  ])("%s without request.%s is 400", async (type, field) => {
    const broker = testBroker();
    await post(broker, created({ key: "k" }));
    const request: Json = { key: "k", kind: "information", message: "m" };
    delete request[field];
    const reply = await post(broker, event(type, request));
    expectError(reply, 400);
    expect((reply.body as Json).error).toContain(`$.request.${field}`);
  });

  // docs/arc.md, "Answers (`response.submitted`)": exactly one of choice_id and text is present.
  it.each([
    ["both", { choice_id: "allow", text: "yes" }],
    ["neither", {}],
  ])("an answer with %s of choice_id and text is an invalid envelope (400)", async (_case, fields) => {
    const broker = testBroker();
    const asked = body(await post(broker, ask("k")));
    const { choice_id: _omit, ...rest } = answer(asked.interaction);
    const reply = await post(broker, submitted("k", { ...rest, ...fields }));
    expectError(reply, 400);
    expect((reply.body as Json).error).toMatch(/\$\.response\.(choice_id|text)/);
    expect((await interactionOf(broker, asked.interaction.id)).status).toBe("pending");
  });
});

describe("envelope validation (docs/arc.md, 'Validation'; docs/api.md, 'POST /v1/events' 400)", () => {
  // docs/arc.md, "Validation": unknown core fields are rejected.
  it.each([
    ["top level", (e: Json) => ({ ...e, priority: "high" }), "$.priority"],
    ["sender", (e: Json) => ({ ...e, sender: { id: "codex", email: "c@example.com" } }), "$.sender.email"],
    ["context", (e: Json) => ({ ...e, context: { project: "notify", branch: "main" } }), "$.context.branch"],
    ["request", (e: Json) => ({ ...e, request: { ...e.request, tags: ["a"] } }), "$.request.tags"],
    [
      "request.response",
      (e: Json) => ({ ...e, request: { ...e.request, response: permission({ default: "deny" }) } }),
      "$.request.response.default",
    ],
    [
      "a choice",
      (e: Json) => ({
        ...e,
        request: { ...e.request, response: permission({ choices: [{ id: "a", label: "A", icon: "x" }, CHOICES[1]] }) },
      }),
      "$.request.response.choices[0].icon",
    ],
  ])("an unknown core field in %s is 400", async (_where, mutate, path) => {
    const broker = testBroker();
    const reply = await post(broker, mutate(created({ key: "k", kind: "permission" })));
    expectError(reply, 400);
    expect((reply.body as Json).error).toContain(`${path}: unknown field`);
    await expectNothingStored(broker);
  });

  it("an unknown field in the answer (top-level response) is 400", async () => {
    const broker = testBroker();
    const asked = body(await post(broker, ask("k")));
    const reply = await post(broker, submitted("k", answer(asked.interaction, { comment: "ok" })));
    expectError(reply, 400);
    expect((reply.body as Json).error).toContain("$.response.comment: unknown field");
    expect((await interactionOf(broker, asked.interaction.id)).status).toBe("pending");
  });

  // docs/arc.md, "Versioning" and docs/arc.md, "Statuses": arc_version other than 0.2, including 0.1, is rejected.
  it.each([["0.1"], ["0.2.0"], ["1.0"], [0.2]])("arc_version %j is 400", async (version) => {
    const broker = testBroker();
    const reply = await post(broker, { ...created({ key: "k" }), arc_version: version });
    expectError(reply, 400, /\$\.arc_version/);
    await expectNothingStored(broker);
  });

  it("a missing arc_version is 400", async () => {
    const broker = testBroker();
    const { arc_version: _omit, ...rest } = created();
    expectError(await post(broker, rest), 400, /\$\.arc_version/);
  });

  // docs/arc.md, "Validation": event_type is one of the four; event_id 1-512; occurred_at RFC 3339.
  it.each([
    ["event_type", "request.deleted"],
    ["event_id", ""],
    ["event_id", "e".repeat(513)],
    ["occurred_at", "2026-01-01 00:00:00"],
    ["occurred_at", "2026-01-01T00:00:00"],
    ["occurred_at", "2026-02-30T00:00:00Z"],
  ])("%s %j is 400", async (field, value) => {
    const broker = testBroker();
    expectError(await post(broker, { ...created(), [field]: value }), 400, new RegExp(`\\$\\.${field}`));
    await expectNothingStored(broker);
  });

  it("event_id of exactly 512 characters and an occurred_at with an offset and nanoseconds are accepted", async () => {
    const broker = testBroker();
    const reply = await post(broker, {
      ...created(),
      event_id: "e".repeat(512),
      occurred_at: "2026-01-01T05:30:00.123456789+05:30",
    });
    expect(reply.status).toBe(201);
  });

  // docs/arc.md, "Validation": extension keys `x-<vendor>` matching ^x-[a-z0-9][a-z0-9.-]{0,63}$.
  it.each([["acme"], ["X-Acme"], ["x-"], ["x-.acme"], ["x-acme_co"], [`x-${"a".repeat(65)}`]])(
    "extension key %j is 400",
    async (key) => {
      const broker = testBroker();
      const reply = await post(broker, created({}, { extensions: { [key]: { any: "thing" } } }));
      expectError(reply, 400, /\$\.extensions/);
      await expectNothingStored(broker);
    },
  );

  // docs/arc.md, "Validation": unknown fields inside x-notify are rejected.
  it("an unknown field inside x-notify is 400, and so is a notification_type off its pattern", async () => {
    const broker = testBroker();
    const unknown = await post(
      broker,
      created({}, { extensions: { "x-notify": { notification_type: "info", sound: "ping" } } }),
    );
    expectError(unknown, 400);
    expect((unknown.body as Json).error).toContain('$.extensions["x-notify"].sound: unknown field');
    const pattern = await post(
      broker,
      created({}, { extensions: { "x-notify": { notification_type: "Deploy-Gate" } } }),
    );
    expectError(pattern, 400);
    expect((pattern.body as Json).error).toContain('$.extensions["x-notify"].notification_type');
    await expectNothingStored(broker);
  });

  // docs/api.md, "Errors": every problem is listed, each at its JSON path.
  it("every problem is reported with its JSON path in one 400", async () => {
    const broker = testBroker();
    const reply = await post(broker, {
      ...updated("k"),
      sender: { id: "" },
      request: { kind: "information", message: "m" },
    });
    expectError(reply, 400);
    const error = (reply.body as Json).error as string;
    expect(error).toContain("$.request.key: ");
    expect(error).toContain("$.sender.id: ");
  });

  // docs/api.md, "Errors": "Malformed JSON never crashes the broker."
  it.each([
    ["an array", []],
    ["a string", "event"],
    ["null", "null"],
    ["a number", "42"],
    ["invalid JSON", "{not json"],
  ])("a body that is %s is 400", async (_what, payload) => {
    const broker = testBroker();
    const reply = await post(broker, typeof payload === "string" ? payload : JSON.stringify(payload));
    expectError(reply, 400);
  });

  it("an empty body is 400", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/events", undefined);
    expectError(reply, 400, /^\$: /);
  });

  // docs/api.md, "Authentication".
  it("without the bearer token it is 401 and nothing is stored", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/events", created(), { authorization: "Bearer wrong" });
    expectError(reply, 401, "unauthorized");
    await expectNothingStored(broker);
  });
});

describe("an answerable event with an invalid question is rejected before anything is stored (docs/api.md, 'POST /v1/events' 400)", () => {
  // docs/arc.md: the message of an answerable request is the prompt (docs/api.md, "Limits": prompt 1-2000 chars).
  it("message over 2000 characters", async () => {
    const broker = testBroker();
    const reply = await post(broker, ask("k", permission(), { message: "m".repeat(2001) }));
    expectError(reply, 400, /\$\.request\.message/);
    await expectNothingStored(broker);
  });

  it("the 2000-character bound counts characters as the contract does (code points, not UTF-16 units)", async () => {
    const broker = testBroker();
    const fits = await post(broker, ask("k", permission(), { message: "😀".repeat(2000) }));
    expect(fits.status).toBe(201);
    expect(body(fits).interaction.prompt).toBe("😀".repeat(2000));
    expectError(
      await post(broker, ask("k2", permission(), { message: "😀".repeat(2001) })),
      400,
      /\$\.request\.message/,
    );
  });

  it("a non-answerable message may use the full 4000 characters (docs/arc.md, 'Limits': request.message 1-4000)", async () => {
    const broker = testBroker();
    expect((await post(broker, created({ message: "m".repeat(4000) }))).status).toBe(201);
  });

  // docs/arc.md: expires_at must be in the future.
  it.each([["2025-12-31T23:59:59Z"], ["2026-01-01T00:00:00Z"], ["2026-01-01T01:00:00+02:00"]])(
    "expires_at %s is not in the future",
    async (expiresAt) => {
      const broker = testBroker();
      const reply = await post(broker, ask("k", permission({ expires_at: expiresAt })));
      expectError(reply, 400, /\$\.request\.response\.expires_at/);
      await expectNothingStored(broker);
    },
  );

  it.each([
    ["1 choice", permission({ choices: [CHOICES[0]] })],
    ["13 choices", permission({ choices: Array.from({ length: 13 }, (_, i) => ({ id: `c${i}`, label: `C${i}` })) })],
    ["duplicate choice ids", permission({ choices: [CHOICES[0], { id: "allow", label: "Allow too" }] })],
    ["a choice id off its pattern", permission({ choices: [{ id: "a b", label: "A" }, CHOICES[1]] })],
    ["permission without choices", { kind: "permission", expires_at: IN_10_MIN }],
    ["text with choices", textSpec({ choices: CHOICES })],
    ["text_max_length 0", textSpec({ text_max_length: 0 })],
    ["text_max_length 2001", textSpec({ text_max_length: 2001 })],
    ["no expires_at", { kind: "permission", choices: CHOICES }],
    ["an unknown answer kind", { kind: "multi_choice", choices: CHOICES, expires_at: IN_10_MIN }],
  ])("%s", async (_case, spec) => {
    const broker = testBroker();
    const reply = await post(broker, ask("k", spec));
    expectError(reply, 400, /\$\.request\.response/);
    await expectNothingStored(broker);
  });

  it("an invalid question on request.updated leaves the condition and its open question untouched", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("k")));
    const reply = await post(
      broker,
      updated("k", { kind: "permission", message: "x", response: permission({ choices: [CHOICES[0]] }) }),
    );
    expectError(reply, 400);
    const expired = await post(
      broker,
      updated("k", { kind: "permission", message: "x", response: permission({ expires_at: NOW }) }),
    );
    expectError(expired, 400);
    const after = await listed(broker);
    expect(after.notifications).toEqual([first.notification]);
    expect(after.interactions).toEqual([first.interaction]);
  });
});

describe("ARC condition lifecycle (docs/arc.md, 'Condition lifecycle')", () => {
  // Row: none | created without request.key | active | identity from sender.id and event_id; a replay returns the
  // original result, even after resolution.
  it("row 1: created without a key opens a condition (201) identified by sender.id + event_id", async () => {
    const broker = testBroker();
    const first = created({ message: "Tests passed" });
    const reply = await post(broker, first);
    expect(reply.status).toBe(201);
    const { notification, interaction } = body(reply);
    expect(notification.status).toBe("active");
    expect(notification).not.toHaveProperty("key");
    expect(interaction).toBeNull();
    // A second keyless event is a second condition.
    const second = body(await post(broker, created({ message: "Tests passed" })));
    expect(second.notification.id).not.toBe(notification.id);
    // The same event_id from another sender is another event.
    const other = await post(broker, { ...first, sender: { id: "claude-code" } });
    expect(other.status).toBe(201);
    expect(body(other).notification.id).not.toBe(notification.id);
    expect((await listed(broker)).notifications).toHaveLength(3);
  });

  it("row 1: a replay (same sender and event_id) returns the original records with 200 and stores nothing new", async () => {
    const broker = testBroker();
    const first = ask(undefined);
    const original = body(await post(broker, first));
    broker.clock.advance(5_000);
    // occurred_at is not part of the event's identity (docs/arc.md, fingerprint).
    const replay = await post(broker, { ...first, occurred_at: "2026-01-01T00:00:05Z" });
    expect(replay.status).toBe(200);
    expect(body(replay)).toEqual(original);
    expect(await listed(broker)).toEqual({
      notifications: [original.notification],
      interactions: [original.interaction],
    });
  });

  it("row 1: a replay after resolution still returns the original records, as they are now (200)", async () => {
    const broker = testBroker();
    const first = ask(undefined);
    const original = body(await post(broker, first));
    // A keyless condition is closed by its answer (through /respond, since ARC answers address a key).
    const respond = await broker.call("POST", `/v1/interactions/${original.interaction.id}/respond`, {
      response_id: "r-1",
      request_digest: original.interaction.request_digest,
      nonce: original.interaction.nonce,
      choice_id: "allow",
    });
    expect(respond.status).toBe(200);
    const replay = await post(broker, first);
    expect(replay.status).toBe(200);
    const again = body(replay);
    expect(again.notification.id).toBe(original.notification.id);
    expect(again.notification.status).toBe("resolved");
    expect(again.interaction.id).toBe(original.interaction.id);
    expect(again.interaction.status).toBe("answered");
    expect((await listed(broker)).notifications).toHaveLength(1);
  });

  // docs/arc.md: an event_id reused by the same sender for a different event is a producer error.
  it("an event_id reused by the same sender for a different event is 409 and changes nothing", async () => {
    const broker = testBroker();
    const first = created({ key: "k", message: "one" });
    const original = body(await post(broker, first));
    const reused = await post(broker, { ...first, request: { ...first.request, message: "two" } });
    expectError(reused, 409, /event_id/);
    expect((await listed(broker)).notifications).toEqual([original.notification]);
  });

  // Row: none or terminal | created with request.key | active (new condition).
  it("row 2: created with a key and no condition opens a new one (201)", async () => {
    const broker = testBroker();
    const reply = await post(broker, created({ key: "deploy" }));
    expect(reply.status).toBe(201);
    expect(body(reply).notification).toMatchObject({ key: "deploy", status: "active" });
  });

  it("row 2 and Events 4: created with the key of a resolved condition opens a new lifecycle (201, new id)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    await post(broker, resolved("deploy"));
    const again = await post(broker, ask("deploy"));
    expect(again.status).toBe(201);
    const second = body(again);
    expect(second.notification.id).not.toBe(first.notification.id);
    expect(second.notification.status).toBe("active");
    expect(second.interaction.id).not.toBe(first.interaction.id);
    expect(second.interaction.status).toBe("pending");
    expect((await notificationOf(broker, first.notification.id)).status).toBe("resolved");
  });

  it("row 2: a dismissed condition is not active; created with its key opens a new condition whose question is its own", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    expect((await broker.call("POST", `/v1/notifications/${first.notification.id}/dismiss`)).status).toBe(200);
    const again = await post(broker, ask("deploy"));
    expect(again.status).toBe(201);
    const second = body(again);
    expect(second.notification.id).not.toBe(first.notification.id);
    // The dismissed condition's question is not reused: it is superseded and the new condition asks its own.
    expect(second.interaction.id).not.toBe(first.interaction.id);
    expect((await interactionOf(broker, first.interaction.id)).status).toBe("superseded");
    // The question must belong to the new condition: answering it closes the new notification.
    const accepted = await post(broker, submitted("deploy", answer(second.interaction)));
    expect(accepted.status).toBe(200);
    expect(body(accepted).notification).toMatchObject({ id: second.notification.id, status: "resolved" });
  });

  // Row: active | created with the same key | active | updated in place.
  it("row 3: created with the key of an active condition updates it in place (200, same notification id)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, created({ key: "build", message: "Building" })));
    broker.clock.advance(1_000);
    const reply = await post(broker, created({ key: "build", kind: "failure", message: "Build failed", title: "CI" }));
    expect(reply.status).toBe(200);
    const { notification } = body(reply);
    expect(notification).toMatchObject({
      id: first.notification.id,
      key: "build",
      type: "error",
      priority: "high",
      title: "CI",
      message: "Build failed",
      status: "active",
      createdAt: NOW,
      updatedAt: "2026-01-01T00:00:01.000Z",
    });
    expect((await listed(broker)).notifications).toEqual([notification]);
  });

  it("row 3: re-created in place with the same question keeps the open question; a changed one supersedes it", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const same = body(await post(broker, ask("deploy")));
    expect(same.interaction).toEqual(first.interaction);
    const changed = await post(broker, ask("deploy", permission(), { message: "Allow rm -rf dist/?" }));
    expect(changed.status).toBe(200);
    const next = body(changed);
    expect(next.notification.id).toBe(first.notification.id);
    expect(next.interaction.id).not.toBe(first.interaction.id);
    expect((await interactionOf(broker, first.interaction.id)).status).toBe("superseded");
  });

  // Row: active | updated | key matches an active condition | active | a changed question supersedes.
  it("row 4: updated replaces the visible state in place (200, same id)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, created({ key: "build", message: "Building" })));
    broker.clock.advance(2_000);
    const reply = await post(
      broker,
      updated("build", { kind: "blocked", message: "Waiting for a runner", priority: "low" }),
    );
    expect(reply.status).toBe(200);
    const { notification, interaction } = body(reply);
    expect(notification).toMatchObject({
      id: first.notification.id,
      type: "blocked",
      priority: "low",
      message: "Waiting for a runner",
      updatedAt: "2026-01-01T00:00:02.000Z",
    });
    expect(interaction).toBeNull();
  });

  it("row 4: an update that changes what is asked supersedes the open question (new interaction, old superseded)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const waiting = broker.call("GET", `/v1/interactions/${first.interaction.id}/wait?timeout=30`);
    const reply = await post(
      broker,
      updated("deploy", {
        kind: "question",
        message: "Which target?",
        response: {
          kind: "single_choice",
          choices: [
            { id: "staging", label: "Staging" },
            { id: "prod", label: "Production" },
          ],
          expires_at: IN_10_MIN,
        },
      }),
    );
    expect(reply.status).toBe(200);
    const next = body(reply);
    expect(next.notification.id).toBe(first.notification.id);
    expect(next.interaction).toMatchObject({
      kind: "single_choice",
      prompt: "Which target?",
      status: "pending",
      key: "deploy",
    });
    expect(next.interaction.id).not.toBe(first.interaction.id);
    expect(next.interaction.request_digest).not.toBe(first.interaction.request_digest);
    // The producer waiting on the old question hears that it was superseded.
    expect(((await waiting).body as Json).status).toBe("superseded");
    // An answer bound to the old question no longer fits the new one (rule 4).
    expectError(await post(broker, submitted("deploy", answer(first.interaction))), 400, /request_digest/);
  });

  it("row 4: an update that leaves the question unchanged keeps it (same interaction, still pending)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const reply = await post(
      broker,
      updated("deploy", {
        kind: "permission",
        message: "Allow rm -rf build/?",
        title: "New title",
        priority: "critical",
        response: permission(),
      }),
    );
    expect(reply.status).toBe(200);
    const next = body(reply);
    expect(next.interaction).toEqual(first.interaction);
    expect(next.notification).toMatchObject({ id: first.notification.id, title: "New title", priority: "critical" });
  });

  // docs/arc.md: an update that drops the question withdraws it as superseded.
  it("row 4: an update without a response withdraws the open question as superseded; interaction is null", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const reply = await post(broker, updated("deploy", { kind: "information", message: "Deployed without asking" }));
    expect(reply.status).toBe(200);
    expect(body(reply).interaction).toBeNull();
    expect((await interactionOf(broker, first.interaction.id)).status).toBe("superseded");
  });

  it("row 4: an update that adds a question to an active condition opens it (200)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, created({ key: "deploy" })));
    const reply = await post(
      broker,
      updated("deploy", { kind: "permission", message: "Deploy?", response: permission() }),
    );
    expect(reply.status).toBe(200);
    const next = body(reply);
    expect(next.notification.id).toBe(first.notification.id);
    expect(next.interaction).toMatchObject({ status: "pending", key: "deploy", prompt: "Deploy?" });
  });

  // Row: none | updated | no active condition | none | 404; never creates.
  it("row 5: updated without an active condition is 404 and creates nothing", async () => {
    const broker = testBroker();
    expectError(await post(broker, updated("ghost")), 404, "notification not found");
    expectError(
      await post(broker, updated("ghost", { kind: "permission", message: "Deploy?", response: permission() })),
      404,
      "notification not found",
    );
    await expectNothingStored(broker);
  });

  it("row 5: updated after the condition was resolved is 404 and does not reopen it", async () => {
    const broker = testBroker();
    const first = body(await post(broker, created({ key: "build" })));
    await post(broker, resolved("build"));
    expectError(await post(broker, updated("build")), 404);
    expect((await listed(broker)).notifications).toEqual([
      expect.objectContaining({ id: first.notification.id, status: "resolved" }),
    ]);
  });

  it("row 5: a rejected update is not remembered; the same event succeeds once the condition exists", async () => {
    const broker = testBroker();
    const early = updated("build");
    expectError(await post(broker, early), 404);
    await post(broker, created({ key: "build" }));
    expect((await post(broker, early)).status).toBe(200);
  });

  // Row: active | response.submitted | rules 1-6 pass | closed as answered | the notification half is resolved.
  it("row 6: an accepted answer closes the question as answered and resolves the notification (200)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const waiting = broker.call("GET", `/v1/interactions/${first.interaction.id}/wait?timeout=30`);
    broker.clock.advance(3_000);
    const reply = await post(
      broker,
      submitted("deploy", answer(first.interaction, { device_id: "phone-1", source: "relay" })),
    );
    expect(reply.status).toBe(200);
    const { notification, interaction } = body(reply);
    const at = "2026-01-01T00:00:03.000Z";
    expect(interaction).toMatchObject({
      id: first.interaction.id,
      status: "answered",
      answered_at: at,
      response: { response_id: "r-1", choice_id: "allow", source: "relay", device_id: "phone-1", created_at: at },
    });
    expect(notification).toMatchObject({ id: first.notification.id, status: "resolved", resolvedAt: at });
    expect((await waiting).body).toEqual(interaction);
  });

  // Row: active | resolved | resolved | any open question under the key is withdrawn (docs/arc.md: cancelled).
  it("row 7: resolved closes the condition and withdraws the open question with status cancelled", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const waiting = broker.call("GET", `/v1/interactions/${first.interaction.id}/wait?timeout=30`);
    broker.clock.advance(1_000);
    const reply = await post(broker, resolved("deploy", { outcome: "not_needed" }));
    expect(reply.status).toBe(200);
    const { notification, interaction } = body(reply);
    expect(notification).toMatchObject({
      id: first.notification.id,
      status: "resolved",
      resolvedAt: "2026-01-01T00:00:01.000Z",
    });
    expect(interaction).toMatchObject({ id: first.interaction.id, status: "cancelled" });
    expect(interaction).not.toHaveProperty("response");
    expect(((await waiting).body as Json).status).toBe("cancelled");
  });

  it("row 7: resolving a condition without a question returns interaction null", async () => {
    const broker = testBroker();
    await post(broker, created({ key: "build" }));
    const reply = await post(broker, resolved("build"));
    expect(reply.status).toBe(200);
    expect(body(reply)).toMatchObject({ notification: { status: "resolved" }, interaction: null });
  });

  it("row 7: resolving after the question was answered leaves the answer as it is", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    await post(broker, submitted("deploy", answer(first.interaction)));
    const reply = await post(broker, resolved("deploy", { outcome: "answered" }));
    expect(reply.status).toBe(200);
    expect(body(reply).interaction).toMatchObject({ id: first.interaction.id, status: "answered" });
  });

  it("row 7: a dismissed condition can still be resolved by its producer", async () => {
    const broker = testBroker();
    const first = body(await post(broker, created({ key: "build" })));
    await broker.call("POST", `/v1/notifications/${first.notification.id}/dismiss`);
    const reply = await post(broker, resolved("build"));
    expect(reply.status).toBe(200);
    expect(body(reply).notification).toMatchObject({ id: first.notification.id, status: "resolved" });
  });

  // Row: resolved | resolved | latest matching condition already resolved | resolved | idempotent.
  it("row 8: resolving an already resolved condition is idempotent (200, unchanged)", async () => {
    const broker = testBroker();
    await post(broker, ask("deploy"));
    const first = body(await post(broker, resolved("deploy")));
    broker.clock.advance(10_000);
    const again = await post(broker, resolved("deploy", { outcome: "cancelled" }));
    expect(again.status).toBe(200);
    expect(body(again)).toEqual(first);
  });

  // docs/arc.md, "Statuses": 404 for a missing target of a resolution.
  it("resolved with no condition under the key is 404 and creates nothing", async () => {
    const broker = testBroker();
    expectError(await post(broker, resolved("ghost")), 404, "notification not found");
    await expectNothingStored(broker);
  });

  it("resolved acts on the latest condition under the key, not an earlier lifecycle", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    await post(broker, submitted("deploy", answer(first.interaction)));
    const second = body(await post(broker, created({ key: "deploy", message: "Deploying" })));
    const reply = body(await post(broker, resolved("deploy")));
    expect(reply.notification.id).toBe(second.notification.id);
    // The second lifecycle has no question; the first one's answered question is not reported as its own.
    expect(reply.interaction).toBeNull();
  });
});

describe("response.submitted: the answer check order (docs/arc.md, 'Answers (`response.submitted`)', checks 1-6, first failing rule answers)", () => {
  // Every test breaks the rule it names AND every later rule, so only the order decides the answer.
  const wrong = { digest: "f".repeat(64), nonce: "not-the-nonce", choice_id: "maybe" };

  it("rule 1: no such condition is 404 (even with a wrong digest, nonce and choice)", async () => {
    const broker = testBroker();
    const reply = await post(broker, submitted("ghost", { response_id: "r-1", ...wrong }));
    expectError(reply, 404, "interaction not found");
    await expectNothingStored(broker);
  });

  it("rule 1: a condition without a question is 404 for an answer", async () => {
    const broker = testBroker();
    await post(broker, created({ key: "build" }));
    expectError(await post(broker, submitted("build", { response_id: "r-1", ...wrong })), 404);
  });

  it("rule 2: already answered is 409 for another response_id (even with wrong digest, nonce, choice)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    expect((await post(broker, submitted("deploy", answer(first.interaction)))).status).toBe(200);
    expectError(
      await post(broker, submitted("deploy", { response_id: "r-2", ...wrong })),
      409,
      "interaction already answered with a different response",
    );
    // A correct but different second answer is refused just the same (first valid answer wins).
    expectError(
      await post(broker, submitted("deploy", answer(first.interaction, { response_id: "r-3", choice_id: "deny" }))),
      409,
    );
    expect((await interactionOf(broker, first.interaction.id)).response.choice_id).toBe("allow");
  });

  it("rule 2: the same response_id replays the original acceptance (200), whatever else it carries", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const accepted = body(await post(broker, submitted("deploy", answer(first.interaction))));
    broker.clock.advance(1_000);
    const replay = await post(broker, submitted("deploy", { response_id: "r-1", ...wrong }));
    expect(replay.status).toBe(200);
    expect(body(replay)).toEqual(accepted);
  });

  it.each([
    [
      "cancelled",
      async (broker: TestBroker, interaction: Json) => broker.call("POST", `/v1/interactions/${interaction.id}/cancel`),
    ],
    ["expired", async (broker: TestBroker) => broker.clock.advance(11 * 60_000)],
    [
      "superseded",
      async (broker: TestBroker) =>
        post(broker, updated("deploy", { kind: "information", message: "No longer asking" })),
    ],
  ])("rule 3: a %s question is not open: 400 (even with a wrong digest, nonce and choice)", async (status, close) => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    await close(broker, first.interaction);
    const reply = await post(broker, submitted("deploy", { response_id: "r-1", ...wrong }));
    expectError(reply, 400, `interaction is ${status}`);
    expect((await interactionOf(broker, first.interaction.id)).status).toBe(status);
  });

  it("rule 3: after resolution the withdrawn question refuses answers (400 interaction is cancelled)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    await post(broker, resolved("deploy"));
    expectError(await post(broker, submitted("deploy", answer(first.interaction))), 400, "interaction is cancelled");
  });

  it("rule 4: a digest that differs from the current request digest is 400 (even with a wrong nonce and choice)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const reply = await post(broker, submitted("deploy", { response_id: "r-1", ...wrong }));
    expectError(reply, 400, "request_digest does not match the current request");
    expect((await interactionOf(broker, first.interaction.id)).status).toBe("pending");
  });

  it("rule 5: a nonce that is not echoed is 400 (even with a wrong choice)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const reply = await post(
      broker,
      submitted("deploy", answer(first.interaction, { nonce: wrong.nonce, choice_id: "maybe" })),
    );
    expectError(reply, 400, "nonce does not match");
    expect((await interactionOf(broker, first.interaction.id)).status).toBe("pending");
  });

  // docs/arc.md: this consumer always issues a nonce, so an answer without one fails rule 5.
  it("rule 5: an answer without a nonce is 400 (nonce required: this consumer always issues one)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const { nonce: _omit, ...withoutNonce } = answer(first.interaction);
    expectError(await post(broker, submitted("deploy", withoutNonce)), 400, "nonce does not match");
  });

  it.each([
    ["an unknown choice_id", permission(), { choice_id: "maybe" }, "unknown choice_id"],
    [
      "text for a choice question",
      permission(),
      { choice_id: undefined, text: "yes" },
      "a permission interaction takes choice_id, not text",
    ],
    [
      "choice_id for a text question",
      textSpec(),
      { choice_id: "allow" },
      "a text interaction takes text, not choice_id",
    ],
    [
      "text over text_max_length",
      textSpec(),
      { choice_id: undefined, text: "x".repeat(11) },
      "text must be 1-10 characters",
    ],
  ])("rule 6: %s is 400 (wrong shape for the kind)", async (_case, spec, fields, message) => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy", spec)));
    const response = answer(first.interaction, fields);
    if (response.choice_id === undefined) delete response.choice_id;
    expectError(await post(broker, submitted("deploy", response)), 400, message);
    expect((await interactionOf(broker, first.interaction.id)).status).toBe("pending");
  });

  it("all six rules pass: a text answer within text_max_length is accepted", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("notes", textSpec())));
    const { choice_id: _omit, ...rest } = answer(first.interaction);
    const reply = await post(broker, submitted("notes", { ...rest, text: "x".repeat(10) }));
    expect(reply.status).toBe(200);
    expect(body(reply).interaction).toMatchObject({ status: "answered", response: { text: "x".repeat(10) } });
  });

  it("every later answer is refused once one is accepted, including one from another device (docs/arc.md, 'Answers (`response.submitted`)')", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    await post(broker, submitted("deploy", answer(first.interaction, { device_id: "laptop" })));
    expectError(
      await post(
        broker,
        submitted("deploy", answer(first.interaction, { response_id: "phone-tap", device_id: "phone" })),
      ),
      409,
    );
  });

  it("a rejected answer is not remembered as an event: the same event succeeds once it fits", async () => {
    const broker = testBroker();
    const early = submitted("deploy", { response_id: "r-1", digest: "0".repeat(64), nonce: "n", choice_id: "allow" });
    expectError(await post(broker, early), 404);
    await post(broker, created({ key: "deploy" }));
    expectError(await post(broker, early), 404);
  });
});

describe("response.submitted is the same acceptance path as POST /v1/interactions/{id}/respond (docs/arc.md, 'Answers (`response.submitted`)')", () => {
  it("an answer accepted by /respond is replayed by response.submitted with the same response_id, and refused with another", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const respond = await broker.call("POST", `/v1/interactions/${first.interaction.id}/respond`, {
      response_id: "tap-1",
      request_digest: first.interaction.request_digest,
      nonce: first.interaction.nonce,
      choice_id: "deny",
      source: "desktop",
    });
    expect(respond.status).toBe(200);
    // The HTTP path resolves the ARC notification too.
    expect((await notificationOf(broker, first.notification.id)).status).toBe("resolved");
    const replay = await post(broker, submitted("deploy", answer(first.interaction, { response_id: "tap-1" })));
    expect(replay.status).toBe(200);
    expect(body(replay).interaction).toEqual(respond.body);
    expect(body(replay).notification).toMatchObject({ id: first.notification.id, status: "resolved" });
    expectError(await post(broker, submitted("deploy", answer(first.interaction, { response_id: "tap-2" }))), 409);
  });

  it("an answer accepted by response.submitted is replayed by /respond and refused with another response_id", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const accepted = body(await post(broker, submitted("deploy", answer(first.interaction))));
    const respond = (responseId: string) =>
      broker.call("POST", `/v1/interactions/${first.interaction.id}/respond`, {
        response_id: responseId,
        request_digest: first.interaction.request_digest,
        nonce: first.interaction.nonce,
        choice_id: "allow",
      });
    const replay = await respond("r-1");
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(accepted.interaction);
    expectError(await respond("r-2"), 409);
  });

  // docs/arc.md: source defaults to sender.id when it fits the source pattern, else "arc".
  it("source defaults to sender.id when it fits ^[A-Za-z0-9_-]{1,64}$, otherwise to arc", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("a")));
    const plain = body(
      await post(broker, submitted("a", answer(first.interaction), { sender: { id: "phone-bridge" } })),
    );
    expect(plain.interaction.response.source).toBe("phone-bridge");
    const second = body(await post(broker, ask("b")));
    const dotted = body(
      await post(broker, submitted("b", answer(second.interaction), { sender: { id: "acme.bridge/1" } })),
    );
    expect(dotted.interaction.response.source).toBe("arc");
    expect(dotted.interaction.response).not.toHaveProperty("device_id");
  });

  it("the same response.submitted event retried is an immutable replay (200, current state)", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const event = submitted("deploy", answer(first.interaction));
    const accepted = body(await post(broker, event));
    const replay = await post(broker, event);
    expect(replay.status).toBe(200);
    expect(body(replay)).toEqual(accepted);
  });
});

describe("statuses and the response body (docs/api.md, 'POST /v1/events')", () => {
  it("201 for a new request, 200 for update / answer / resolution / in-place refresh / replay, and always both fields", async () => {
    const broker = testBroker();
    const statuses: number[] = [];
    const run = async (value: Json) => {
      const reply = await post(broker, value);
      statuses.push(reply.status);
      return body(reply);
    };
    const first = created({ key: "k" });
    await run(first);
    await run(first);
    await run(created({ key: "k" }));
    const asked = await run(updated("k", { kind: "permission", message: "Go?", response: permission() }));
    await run(submitted("k", answer(asked.interaction)));
    await run(resolved("k"));
    expect(statuses).toEqual([201, 200, 200, 200, 200, 200]);
  });

  it("interaction is null unless the event is answerable", async () => {
    const broker = testBroker();
    expect(body(await post(broker, created({ key: "plain" }))).interaction).toBeNull();
    expect(body(await post(broker, updated("plain"))).interaction).toBeNull();
    expect(body(await post(broker, created())).interaction).toBeNull();
    const asked = body(await post(broker, ask("q")));
    expect(asked.interaction).toMatchObject({ status: "pending", nonce: expect.any(String) });
  });
});

describe("projection into the local notification (docs/arc.md, 'Kind to type and priority')", () => {
  it.each([
    ["information", "info", "normal", "Information"],
    ["question", "input_required", "high", "Question"],
    ["permission", "permission_required", "high", "Permission needed"],
    ["blocked", "blocked", "high", "Blocked"],
    ["failure", "error", "high", "Failure"],
    ["completion", "completed", "normal", "Completed"],
  ])("kind %s → type %s, default priority %s, default title '%s from …'", async (kind, type, priority, label) => {
    const broker = testBroker();
    const named = body(await post(broker, created({ kind }, { sender: { id: "codex", name: "Codex CLI" } })));
    expect(named.notification).toMatchObject({ type, priority, title: `${label} from Codex CLI` });
    // Without sender.name the title names sender.id (docs/arc.md).
    const unnamed = body(await post(broker, created({ kind })));
    expect(unnamed.notification.title).toBe(`${label} from codex`);
  });

  it("an explicit priority and title win over the kind's defaults", async () => {
    const broker = testBroker();
    const { notification } = body(
      await post(broker, created({ kind: "failure", priority: "low", title: "Flaky test" })),
    );
    expect(notification).toMatchObject({ type: "error", priority: "low", title: "Flaky test" });
  });

  it("x-notify.notification_type selects the local type ID; the priority still follows the kind", async () => {
    const broker = testBroker();
    const { notification } = body(
      await post(
        broker,
        created({ kind: "question" }, { extensions: { "x-notify": { notification_type: "deploy_gate" } } }),
      ),
    );
    expect(notification).toMatchObject({ type: "deploy_gate", priority: "high" });
  });

  it("projects sender, context, kind, title, message, priority and key; correlation hints go to metadata.arc", async () => {
    const broker = testBroker();
    const reply = await post(
      broker,
      created(
        {
          key: "deploy-42",
          kind: "blocked",
          title: "Deploy blocked",
          message: "Waiting for approval",
          priority: "critical",
        },
        {
          event_id: "evt-projection",
          sender: { id: "codex", name: "Codex CLI", version: "1.2.3", instance_id: "codex-7" },
          context: {
            session_id: "s-1",
            correlation_id: "c-1",
            project: "notify",
            cwd: "/home/dev/notify",
            pid: 4242,
            turn_id: "t-1",
            native_request_id: "nr-1",
          },
        },
      ),
    );
    expect(reply.status).toBe(201);
    const { notification } = body(reply);
    expect(notification).toEqual({
      id: expect.stringMatching(/^ntf_[0-9a-f]{24}$/),
      key: "deploy-42",
      agent: "codex",
      agentInstance: "codex-7",
      project: "notify",
      type: "blocked",
      priority: "critical",
      title: "Deploy blocked",
      message: "Waiting for approval",
      cwd: "/home/dev/notify",
      pid: 4242,
      status: "active",
      createdAt: NOW,
      updatedAt: NOW,
      metadata: {
        arc: {
          event_id: "evt-projection",
          kind: "blocked",
          sender_name: "Codex CLI",
          sender_version: "1.2.3",
          session_id: "s-1",
          correlation_id: "c-1",
          turn_id: "t-1",
          native_request_id: "nr-1",
        },
      },
    });
    expect(await notificationOf(broker, notification.id)).toEqual(notification);
  });

  it("a minimal event projects only what it carries: metadata.arc holds event_id and kind", async () => {
    const broker = testBroker();
    const { notification } = body(await post(broker, created({}, { event_id: "evt-min" })));
    expect(notification).toEqual({
      id: expect.any(String),
      agent: "codex",
      type: "info",
      priority: "normal",
      title: "Information from codex",
      message: "Build finished",
      status: "active",
      createdAt: NOW,
      updatedAt: NOW,
      metadata: { arc: { event_id: "evt-min", kind: "information" } },
    });
  });

  it("context.project is trimmed alike on the notification and its question, so list filters find both", async () => {
    const broker = testBroker();
    const reply = body(await post(broker, { ...ask("k"), context: { project: "  notify  " } }));
    expect(reply.notification.project).toBe("notify");
    expect(reply.interaction.project).toBe("notify");
    expect((await broker.call("GET", "/v1/interactions?project=notify")).body).toEqual([reply.interaction]);
    expect((await broker.call("GET", "/v1/notifications?project=notify")).body).toEqual([reply.notification]);
  });

  // docs/arc.md, "Fields": other valid x-<vendor> extensions are ignored and not copied into notification metadata.
  it("other vendors' extensions are accepted, ignored and never copied into metadata", async () => {
    const broker = testBroker();
    const reply = await post(
      broker,
      created(
        {},
        {
          event_id: "evt-ext",
          extensions: {
            "x-acme": { secret: "s3cr3t", nested: [1, { deep: true }] },
            "x-other.vendor-2": "plain",
            "x-notify": {},
          },
        },
      ),
    );
    expect(reply.status).toBe(201);
    const { notification } = body(reply);
    expect(notification.metadata).toEqual({ arc: { event_id: "evt-ext", kind: "information" } });
    expect(reply.text).not.toContain("s3cr3t");
    expect(JSON.stringify(await listed(broker))).not.toContain("s3cr3t");
  });

  it("the question projects the message as prompt, the choices, the expiry and the sender/context hints", async () => {
    const broker = testBroker();
    const reply = await post(
      broker,
      ask("deploy", permission(), {
        message: "Allow deploy to prod?",
      }),
    );
    const { interaction } = body(reply);
    const withContext = body(
      await post(broker, {
        ...ask("ctx", { kind: "text", expires_at: "2026-01-01T02:00:00+01:00" }),
        sender: { id: "codex", instance_id: "codex-7" },
        context: {
          project: "notify",
          session_id: "s-1",
          turn_id: "t-1",
          native_request_id: "nr-1",
          correlation_id: "c-1",
        },
      }),
    );
    expect(interaction).toEqual({
      id: expect.stringMatching(/^int_[0-9a-f]{24}$/),
      key: "deploy",
      agent: "codex",
      kind: "permission",
      prompt: "Allow deploy to prod?",
      choices: CHOICES,
      text_max_length: 500,
      status: "pending",
      request_digest: requestDigest({
        kind: "permission",
        prompt: "Allow deploy to prod?",
        choices: CHOICES,
        text_max_length: 500,
      }),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      created_at: NOW,
      updated_at: NOW,
      expires_at: "2026-01-01T00:10:00.000Z",
    });
    expect(withContext.interaction).toMatchObject({
      key: "ctx",
      agent: "codex",
      agent_instance: "codex-7",
      project: "notify",
      session_id: "s-1",
      turn_id: "t-1",
      native_request_id: "nr-1",
      kind: "text",
      choices: [],
      // text_max_length defaults to 500 (docs/arc.md, "Questions").
      text_max_length: 500,
      // The offset is honoured: 02:00+01:00 is 01:00Z.
      expires_at: "2026-01-01T01:00:00.000Z",
    });
  });
});

describe("rate limit (docs/api.md, 'Limits': it applies to POST /v1/events)", () => {
  it("rate limit applies to POST /v1/events (docs/api.md, 'Limits'): 429 with Retry-After: 1, nothing stored", async () => {
    const broker = testBroker({ rateLimitPerSecond: 2 });
    expect((await post(broker, created({ key: "a" }))).status).toBe(201);
    expect((await post(broker, created({ key: "b" }))).status).toBe(201);
    const limited = await post(broker, created({ key: "c" }));
    expectError(limited, 429, "rate limit exceeded");
    expect(limited.headers["retry-after"]).toBe("1");
    expect((await listed(broker)).notifications.map((n) => n.key)).toEqual(["b", "a"]);
    broker.clock.advance(1_000);
    expect((await post(broker, created({ key: "c" }))).status).toBe(201);
  });
});

describe("an update that moves only the deadline (docs/arc.md, Open question)", () => {
  it("keeps the question (same id, nonce and digest) and takes the new expires_at", async () => {
    const broker = testBroker();
    const first = body(await post(broker, ask("deploy")));
    const later = "2026-01-01T00:30:00Z";
    const reply = await post(
      broker,
      updated("deploy", {
        kind: "permission",
        message: first.notification.message,
        response: permission({ expires_at: later }),
      }),
    );
    expect(reply.status).toBe(200);
    const { interaction } = body(reply);
    expect(interaction.id).toBe(first.interaction.id);
    expect(interaction.nonce).toBe(first.interaction.nonce);
    expect(interaction.request_digest).toBe(first.interaction.request_digest);
    expect(interaction.expires_at).toBe("2026-01-01T00:30:00.000Z");
    // Past the old deadline the question is still open; past the new one it expires.
    broker.clock.advance(20 * 60_000);
    expect((await interactionOf(broker, interaction.id)).status).toBe("pending");
    broker.clock.advance(11 * 60_000);
    expect((await interactionOf(broker, interaction.id)).status).toBe("expired");
  });
});
