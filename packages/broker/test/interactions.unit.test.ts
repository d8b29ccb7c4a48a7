import { requestDigest } from "@notify/contracts";
import { describe, expect, it } from "vitest";
import { type Json, type TestBroker, testBroker } from "./helpers.js";

const CHOICES = [
  { id: "yes", label: "Yes", detail: "Run the migration" },
  { id: "no", label: "No" },
];

async function open(broker: TestBroker, body: Record<string, unknown> = {}) {
  const reply = await broker.call("POST", "/v1/interactions/request", {
    kind: "single_choice",
    prompt: "Run the migration?",
    choices: CHOICES,
    ...body,
  });
  return reply;
}

function answerFor(interaction: Json, extra: Record<string, unknown> = {}) {
  return {
    response_id: "r-1",
    request_digest: interaction.request_digest,
    nonce: interaction.nonce,
    choice_id: "yes",
    ...extra,
  };
}

describe("POST /v1/interactions/request (docs/api.md, 'POST /v1/interactions/request')", () => {
  it("creates a pending interaction with every field, digest and nonce (201)", async () => {
    const broker = testBroker();
    const reply = await open(broker, {
      key: "migrate",
      agent: "codex",
      agent_instance: "codex-7",
      project: "notify",
      session_id: "s1",
      turn_id: "t1",
      native_request_id: "nr-1",
      ttl_seconds: 120,
    });
    expect(reply.status).toBe(201);
    const body = reply.body as Json;
    expect(body).toMatchObject({
      key: "migrate",
      agent: "codex",
      agent_instance: "codex-7",
      project: "notify",
      session_id: "s1",
      turn_id: "t1",
      native_request_id: "nr-1",
      kind: "single_choice",
      prompt: "Run the migration?",
      choices: CHOICES,
      text_max_length: 500,
      status: "pending",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
      expires_at: "2026-01-01T00:02:00.000Z",
    });
    expect(body.id).toMatch(/^int_[0-9a-f]{24}$/);
    expect(body.request_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(body.request_digest).toBe(
      requestDigest({ kind: "single_choice", prompt: "Run the migration?", choices: CHOICES, text_max_length: 500 }),
    );
    // 32 random bytes, base64url.
    expect(body.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body).not.toHaveProperty("response");
    expect(body).not.toHaveProperty("answered_at");
    expect((await broker.call("GET", `/v1/interactions/${body.id}`)).body).toEqual(body);
  });

  it("defaults: kind permission with allow/deny, agent unknown, ttl 600 s, text_max_length 500", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/interactions/request", { prompt: "Allow rm -rf build/?" });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      kind: "permission",
      agent: "unknown",
      choices: [
        { id: "allow", label: "Allow" },
        { id: "deny", label: "Deny" },
      ],
      text_max_length: 500,
      expires_at: "2026-01-01T00:10:00.000Z",
    });
  });

  it("text kind takes text_max_length and has no choices", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/interactions/request", {
      kind: "text",
      prompt: "Commit message?",
      text_max_length: 72,
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ kind: "text", choices: [], text_max_length: 72 });
  });

  it.each([
    ["prompt missing", { kind: "text" }, /prompt is required/],
    ["prompt 2001 chars", { kind: "text", prompt: "p".repeat(2001) }, /prompt must be 1-2000/],
    ["unknown kind", { kind: "multi", prompt: "p" }, /kind must be one of/],
    ["single_choice without choices", { kind: "single_choice", prompt: "p" }, /choices is required/],
    ["one choice", { kind: "single_choice", prompt: "p", choices: [{ id: "a", label: "A" }] }, /2-12 entries/],
    [
      "13 choices",
      {
        kind: "single_choice",
        prompt: "p",
        choices: Array.from({ length: 13 }, (_, i) => ({ id: `c${i}`, label: "L" })),
      },
      /2-12 entries/,
    ],
    [
      "duplicate choice ids",
      {
        kind: "single_choice",
        prompt: "p",
        choices: [
          { id: "a", label: "A" },
          { id: "a", label: "B" },
        ],
      },
      /duplicates/,
    ],
    [
      "bad choice id",
      {
        kind: "single_choice",
        prompt: "p",
        choices: [
          { id: "a b", label: "A" },
          { id: "c", label: "C" },
        ],
      },
      /choices\[0\]\.id/,
    ],
    [
      "choice label too long",
      {
        kind: "single_choice",
        prompt: "p",
        choices: [
          { id: "a", label: "x".repeat(201) },
          { id: "c", label: "C" },
        ],
      },
      /label must be 1-200/,
    ],
    [
      "choice detail too long",
      {
        kind: "permission",
        prompt: "p",
        choices: [
          { id: "a", label: "A", detail: "d".repeat(501) },
          { id: "c", label: "C" },
        ],
      },
      /detail must be 1-500/,
    ],
    [
      "extra choice field",
      {
        kind: "single_choice",
        prompt: "p",
        choices: [
          { id: "a", label: "A", icon: "x" },
          { id: "c", label: "C" },
        ],
      },
      /unknown field: icon/,
    ],
    ["choices on text", { kind: "text", prompt: "p", choices: CHOICES }, /not allowed for kind text/],
    ["text_max_length 0", { kind: "text", prompt: "p", text_max_length: 0 }, /text_max_length must be 1-2000/],
    ["text_max_length 2001", { kind: "text", prompt: "p", text_max_length: 2001 }, /text_max_length must be 1-2000/],
    ["ttl 29", { prompt: "p", ttl_seconds: 29 }, /ttl_seconds must be 30-3600/],
    ["ttl 3601", { prompt: "p", ttl_seconds: 3601 }, /ttl_seconds must be 30-3600/],
    ["ttl string", { prompt: "p", ttl_seconds: "60" }, /ttl_seconds must be an integer/],
    ["unknown field", { prompt: "p", urgency: 1 }, /unknown field: urgency/],
  ])("400 on %s, nothing stored", async (_name, body, pattern) => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/interactions/request", body);
    expect(reply.status).toBe(400);
    expect((reply.body as Json).error).toMatch(pattern);
    expect(broker.interactions.list({ limit: 500 })).toHaveLength(0);
  });

  it("accepts ttl 30 and 3600, 12 choices, text_max_length 1 and 2000", async () => {
    const broker = testBroker();
    expect((await broker.call("POST", "/v1/interactions/request", { prompt: "p", ttl_seconds: 30 })).status).toBe(201);
    expect((await broker.call("POST", "/v1/interactions/request", { prompt: "p", ttl_seconds: 3600 })).status).toBe(
      201,
    );
    const twelve = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, label: `L${i}` }));
    expect((await open(broker, { choices: twelve })).status).toBe(201);
    for (const n of [1, 2000]) {
      expect(
        (await broker.call("POST", "/v1/interactions/request", { kind: "text", prompt: "p", text_max_length: n }))
          .status,
      ).toBe(201);
    }
  });

  it("keyed reuse: same key and unchanged request returns the pending one with 200", async () => {
    const broker = testBroker();
    const first = (await open(broker, { key: "k" })).body as Json;
    broker.clock.advance(1000);
    const again = await open(broker, { key: "k", ttl_seconds: 900, agent: "other" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first);
  });

  it("keyed supersede: a changed request supersedes the pending one and creates a new one (201), waking waiters", async () => {
    const broker = testBroker();
    const first = (await open(broker, { key: "k" })).body as Json;
    const waiting = broker.waiters.wait(first.id, 10_000);
    const second = await open(broker, { key: "k", prompt: "Run the migration now?" });
    expect(second.status).toBe(201);
    const body = second.body as Json;
    expect(body.id).not.toBe(first.id);
    expect(body.request_digest).not.toBe(first.request_digest);
    expect(body.nonce).not.toBe(first.nonce);
    expect((await waiting).status).toBe("superseded");
    expect(broker.interactions.get(first.id).status).toBe("superseded");
    // The superseded one refuses answers (400), the new one takes them.
    expect((await broker.call("POST", `/v1/interactions/${first.id}/respond`, answerFor(first))).status).toBe(400);
    expect((await broker.call("POST", `/v1/interactions/${body.id}/respond`, answerFor(body))).status).toBe(200);
  });

  it("a key whose interaction is terminal opens a new one (201)", async () => {
    const broker = testBroker();
    const first = (await open(broker, { key: "k" })).body as Json;
    await broker.call("POST", `/v1/interactions/${first.id}/cancel`);
    const second = await open(broker, { key: "k" });
    expect(second.status).toBe(201);
    expect((second.body as Json).id).not.toBe(first.id);
  });
});

describe("GET /v1/interactions and GET /v1/interactions/{id}", () => {
  it("lists newest first with pending, status, agent, project, session filters and limit", async () => {
    const broker = testBroker();
    const a = (await open(broker, { agent: "codex", project: "alpha", session_id: "s1" })).body as Json;
    broker.clock.advance(10);
    const b = (await open(broker, { agent: "claude", project: "beta", session_id: "s2" })).body as Json;
    broker.clock.advance(10);
    const c = (await open(broker, { agent: "codex", project: "beta", session_id: "s1" })).body as Json;
    await broker.call("POST", `/v1/interactions/${b.id}/cancel`);
    const ids = async (query: string) =>
      ((await broker.call("GET", `/v1/interactions${query}`)).body as Json[]).map((i) => i.id);
    expect(await ids("")).toEqual([c.id, b.id, a.id]);
    expect(await ids("?pending=true")).toEqual([c.id, a.id]);
    expect(await ids("?pending=false")).toEqual([b.id]);
    expect(await ids("?status=cancelled")).toEqual([b.id]);
    expect(await ids("?agent=codex")).toEqual([c.id, a.id]);
    expect(await ids("?project=beta")).toEqual([c.id, b.id]);
    expect(await ids("?session=s1")).toEqual([c.id, a.id]);
    expect(await ids("?agent=codex&project=beta&session=s1")).toEqual([c.id]);
    expect(await ids("?limit=1")).toEqual([c.id]);
    expect((await broker.call("GET", "/v1/interactions?limit=501")).status).toBe(400);
    expect((await broker.call("GET", "/v1/interactions?status=open")).status).toBe(400);
  });

  it("a read sweeps an overdue pending interaction to expired", async () => {
    const broker = testBroker();
    const created = (await open(broker, { ttl_seconds: 30 })).body as Json;
    broker.clock.advance(29_999);
    expect(((await broker.call("GET", `/v1/interactions/${created.id}`)).body as Json).status).toBe("pending");
    broker.clock.advance(1);
    const read = (await broker.call("GET", `/v1/interactions/${created.id}`)).body as Json;
    expect(read.status).toBe("expired");
    expect(read.updated_at).toBe("2026-01-01T00:00:30.000Z");
    expect(((await broker.call("GET", "/v1/interactions?pending=true")).body as Json[]).length).toBe(0);
  });

  it("404 with the spec's string for an unknown id", async () => {
    const broker = testBroker();
    const reply = await broker.call("GET", "/v1/interactions/int_nope");
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: "interaction not found" });
  });
});

describe("POST /v1/interactions/{id}/respond: the ordered checks (docs/api.md, 'POST /v1/interactions/{id}/respond')", () => {
  it("accepts the first valid answer: answered, response set, 200", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    broker.clock.advance(2_000);
    const reply = await broker.call(
      "POST",
      `/v1/interactions/${created.id}/respond`,
      answerFor(created, { source: "desktop", device_id: "laptop" }),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: created.id,
      status: "answered",
      answered_at: "2026-01-01T00:00:02.000Z",
      updated_at: "2026-01-01T00:00:02.000Z",
      response: {
        response_id: "r-1",
        choice_id: "yes",
        source: "desktop",
        device_id: "laptop",
        created_at: "2026-01-01T00:00:02.000Z",
      },
    });
    expect((reply.body as Json).response).not.toHaveProperty("text");
    expect((await broker.call("GET", `/v1/interactions/${created.id}`)).body).toEqual(reply.body);
  });

  it("source defaults to api", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    const reply = await broker.call("POST", `/v1/interactions/${created.id}/respond`, answerFor(created));
    expect((reply.body as Json).response.source).toBe("api");
  });

  it("1: unknown id is 404 even with a broken body", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/interactions/int_nope/respond", {});
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: "interaction not found" });
  });

  it("2: a replay of the accepted response_id returns the original 200; any other answer is 409", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    const accepted = await broker.call("POST", `/v1/interactions/${created.id}/respond`, answerFor(created));
    broker.clock.advance(5_000);
    const replay = await broker.call("POST", `/v1/interactions/${created.id}/respond`, answerFor(created));
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(accepted.body);
    // A different answer, even one that would fail later checks (bad digest, bad nonce), is a conflict first.
    for (const body of [
      answerFor(created, { response_id: "r-2", choice_id: "no" }),
      answerFor(created, { response_id: "r-2", request_digest: "0".repeat(64), nonce: "wrong" }),
      { response_id: "r-3" },
    ]) {
      const conflict = await broker.call("POST", `/v1/interactions/${created.id}/respond`, body);
      expect(conflict.status).toBe(409);
      expect(typeof (conflict.body as Json).error).toBe("string");
    }
    expect(broker.interactions.get(created.id).response?.choice_id).toBe("yes");
  });

  it("3: expired, cancelled and superseded interactions refuse answers with 400", async () => {
    const broker = testBroker();
    const expired = (await open(broker, { ttl_seconds: 30 })).body as Json;
    const cancelled = (await open(broker)).body as Json;
    const superseded = (await open(broker, { key: "k" })).body as Json;
    await broker.call("POST", `/v1/interactions/${cancelled.id}/cancel`);
    await open(broker, { key: "k", prompt: "changed" });
    broker.clock.advance(30_000);
    for (const [interaction, status] of [
      [expired, "expired"],
      [cancelled, "cancelled"],
      [superseded, "superseded"],
    ] as const) {
      const reply = await broker.call("POST", `/v1/interactions/${interaction.id}/respond`, answerFor(interaction));
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: `interaction is ${status}` });
    }
  });

  it("3 before 4: a closed interaction is reported closed even with a wrong digest", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    await broker.call("POST", `/v1/interactions/${created.id}/cancel`);
    const reply = await broker.call(
      "POST",
      `/v1/interactions/${created.id}/respond`,
      answerFor(created, { request_digest: "f".repeat(64) }),
    );
    expect(reply.body).toEqual({ error: "interaction is cancelled" });
  });

  it("4: a stale digest is 400 and leaves the interaction pending", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    const reply = await broker.call(
      "POST",
      `/v1/interactions/${created.id}/respond`,
      answerFor(created, { request_digest: "0".repeat(64), nonce: "also-wrong" }),
    );
    expect(reply.status).toBe(400);
    expect((reply.body as Json).error).toMatch(/request_digest/);
    expect(broker.interactions.get(created.id).status).toBe("pending");
  });

  it("5: a wrong nonce is 400, checked before the answer shape", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    const wrong = `${created.nonce.slice(0, -1)}${created.nonce.endsWith("A") ? "B" : "A"}`;
    const reply = await broker.call(
      "POST",
      `/v1/interactions/${created.id}/respond`,
      answerFor(created, { nonce: wrong, choice_id: "maybe" }),
    );
    expect(reply.status).toBe(400);
    expect((reply.body as Json).error).toMatch(/nonce/);
    expect(broker.interactions.get(created.id).status).toBe("pending");
  });

  it("6: wrong shapes for the kind are 400", async () => {
    const broker = testBroker();
    const choice = (await open(broker)).body as Json;
    const text = (
      await broker.call("POST", "/v1/interactions/request", { kind: "text", prompt: "Why?", text_max_length: 5 })
    ).body as Json;
    const cases: [Json, Record<string, unknown>, RegExp][] = [
      [choice, { choice_id: "maybe" }, /unknown choice_id/],
      [choice, { choice_id: undefined, text: "yes" }, /takes choice_id/],
      [choice, { text: "yes" }, /exactly one/],
      [choice, { choice_id: undefined }, /exactly one/],
      [text, { choice_id: "yes" }, /takes text/],
      [text, { choice_id: undefined, text: "123456" }, /text must be 1-5/],
      [text, { choice_id: undefined, text: "" }, /text must be 1-5/],
    ];
    for (const [interaction, extra, pattern] of cases) {
      const reply = await broker.call(
        "POST",
        `/v1/interactions/${interaction.id}/respond`,
        answerFor(interaction, extra),
      );
      expect(reply.status).toBe(400);
      expect((reply.body as Json).error).toMatch(pattern);
    }
    const ok = await broker.call(
      "POST",
      `/v1/interactions/${text.id}/respond`,
      answerFor(text, { choice_id: undefined, text: "12345" }),
    );
    expect(ok.status).toBe(200);
    expect((ok.body as Json).response.text).toBe("12345");
    expect(broker.interactions.get(choice.id).status).toBe("pending");
  });

  it("structural problems are 400: missing fields, wrong types, unknown fields, bad source", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    for (const body of [
      { request_digest: created.request_digest, nonce: created.nonce, choice_id: "yes" },
      answerFor(created, { response_id: "r".repeat(129) }),
      answerFor(created, { nonce: 5 }),
      answerFor(created, { source: "bad source!" }),
      answerFor(created, { extra: true }),
      "[]",
    ]) {
      const reply = await broker.call("POST", `/v1/interactions/${created.id}/respond`, body);
      expect(reply.status).toBe(400);
    }
    expect(broker.interactions.get(created.id).status).toBe("pending");
  });

  it("the first valid answer wins: concurrent answers, exactly one accepted", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        broker.call(
          "POST",
          `/v1/interactions/${created.id}/respond`,
          answerFor(created, { response_id: `r-${index}`, choice_id: index % 2 ? "yes" : "no" }),
        ),
      ),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    expect(replies.filter((reply) => reply.status === 409)).toHaveLength(19);
  });
});

describe("cancel and publish", () => {
  it("cancel moves pending to cancelled, wakes waiters, and is idempotent on terminal states", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    const waiting = broker.waiters.wait(created.id, 10_000);
    const reply = await broker.call("POST", `/v1/interactions/${created.id}/cancel`);
    expect(reply.status).toBe(200);
    expect((reply.body as Json).status).toBe("cancelled");
    expect((await waiting).status).toBe("cancelled");
    const again = await broker.call("POST", `/v1/interactions/${created.id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(reply.body);

    const answered = (await open(broker)).body as Json;
    await broker.call("POST", `/v1/interactions/${answered.id}/respond`, answerFor(answered));
    expect(((await broker.call("POST", `/v1/interactions/${answered.id}/cancel`)).body as Json).status).toBe(
      "answered",
    );
    expect((await broker.call("POST", "/v1/interactions/int_nope/cancel")).status).toBe(404);
  });

  it("publish: 404 for an unknown id, 400 while no relay route exists", async () => {
    const broker = testBroker();
    const created = (await open(broker)).body as Json;
    expect((await broker.call("POST", "/v1/interactions/int_nope/publish")).body).toEqual({
      error: "interaction not found",
    });
    const reply = await broker.call("POST", `/v1/interactions/${created.id}/publish`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: "relay publishing is not configured" });
  });
});
