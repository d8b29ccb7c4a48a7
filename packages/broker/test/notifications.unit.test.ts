import { describe, expect, it } from "vitest";
import { type Json, testBroker } from "./helpers.js";

const create = (extra: Record<string, unknown> = {}) => ({ title: "Build finished", message: "All green", ...extra });

describe("POST /v1/notifications (docs/api.md, 'POST /v1/notifications')", () => {
  it("creates with defaults: agent unknown, type info, priority normal, status active", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/notifications", create());
    expect(reply.status).toBe(201);
    const body = reply.body as Json;
    expect(body).toMatchObject({
      title: "Build finished",
      message: "All green",
      agent: "unknown",
      type: "info",
      priority: "normal",
      status: "active",
    });
    expect(body.id).toMatch(/^ntf_[0-9a-f]{24}$/);
    expect(body.createdAt).toBe("2026-01-01T00:00:00.000Z");
    expect(body.updatedAt).toBe(body.createdAt);
    // Absent optional fields are omitted.
    for (const field of ["key", "agentInstance", "project", "cwd", "pid", "resolvedAt", "metadata"]) {
      expect(body).not.toHaveProperty(field);
    }
  });

  it("stores every field and returns it from GET by id", async () => {
    const broker = testBroker();
    const full = create({
      type: "permission_required",
      priority: "critical",
      agent: "codex",
      agentInstance: "codex-1",
      project: "notify",
      key: "build-1",
      cwd: "/home/me/notify",
      pid: 4242,
      metadata: { branch: "main", attempt: 2, nested: { ok: true } },
    });
    const created = (await broker.call("POST", "/v1/notifications", full)).body as Json;
    const fetched = await broker.call("GET", `/v1/notifications/${created.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created);
    expect(created).toMatchObject(full);
  });

  it("accepts built-in and user-defined type IDs, rejects malformed ones", async () => {
    const broker = testBroker();
    for (const type of ["info", "input_required", "permission_required", "blocked", "error", "completed", "deploy_2"]) {
      expect((await broker.call("POST", "/v1/notifications", create({ type }))).status).toBe(201);
    }
    for (const type of ["Deploy", "2fast", "with-hyphen", "", "a".repeat(65), 7]) {
      const reply = await broker.call("POST", "/v1/notifications", create({ type }));
      expect(reply.status, String(type)).toBe(400);
      expect((reply.body as Json).error).toMatch(/type/);
    }
    expect((await broker.call("POST", "/v1/notifications", create({ type: "a".repeat(64) }))).status).toBe(201);
  });

  it("takes the default priority from an enabled custom type definition (Type IDs rule 4)", async () => {
    const broker = testBroker({
      notificationTypes: [
        { id: "deploy", label: "Deploy", enabled: true, defaultPriority: "high" },
        { id: "quiet", label: "Quiet", enabled: false, defaultPriority: "critical" },
        { id: "input_required", label: "Input", enabled: true, defaultPriority: "critical" },
      ],
    });
    const priorityOf = async (extra: Record<string, unknown>) =>
      ((await broker.call("POST", "/v1/notifications", create(extra))).body as Json).priority;
    expect(await priorityOf({ type: "deploy" })).toBe("high");
    expect(await priorityOf({ type: "deploy", priority: "low" })).toBe("low");
    expect(await priorityOf({ type: "quiet" })).toBe("normal");
    expect(await priorityOf({ type: "input_required" })).toBe("critical");
    expect(await priorityOf({ type: "unknown_type" })).toBe("normal");
  });

  it.each([
    ["title missing", { message: "m" }, /title is required/],
    ["message missing", { title: "t" }, /message is required/],
    ["empty title", create({ title: "" }), /title must be 1-200/],
    ["title 201 chars", create({ title: "x".repeat(201) }), /title must be 1-200/],
    ["message 4001 chars", create({ message: "x".repeat(4001) }), /message must be 1-4000/],
    ["agent 101 chars", create({ agent: "a".repeat(101) }), /agent must be 1-100/],
    ["agentInstance 101 chars", create({ agentInstance: "a".repeat(101) }), /agentInstance/],
    ["project 201 chars", create({ project: "p".repeat(201) }), /project must be 1-200/],
    ["key 101 chars", create({ key: "k".repeat(101) }), /key must be 1-100/],
    ["empty key", create({ key: "" }), /key must be 1-100/],
    ["cwd 1025 chars", create({ cwd: "c".repeat(1025) }), /cwd must be 1-1024/],
    ["negative pid", create({ pid: -1 }), /pid must be >= 0/],
    ["fractional pid", create({ pid: 1.5 }), /pid must be an integer/],
    ["string pid", create({ pid: "12" }), /pid must be an integer/],
    ["bad priority", create({ priority: "urgent" }), /priority must be one of low, normal, high, critical/],
    ["title wrong type", create({ title: 12 }), /title must be a string/],
    ["metadata array", create({ metadata: [1] }), /metadata must be an object/],
    ["metadata over 8192 bytes", create({ metadata: { blob: "x".repeat(8200) } }), /metadata must serialize/],
    ["unknown field", create({ colour: "red" }), /unknown field: colour/],
    ["array body", [1, 2], /must be a JSON object/],
  ])("400 on %s", async (_name, body, pattern) => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/notifications", body);
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body as Json)).toEqual(["error"]);
    expect((reply.body as Json).error).toMatch(pattern);
    expect(broker.notifications.list({ limit: 500 })).toHaveLength(0);
  });

  it("accepts limits at their edges: 200/4000 chars, 8192-byte metadata, pid 0", async () => {
    const broker = testBroker();
    const metadata = { blob: "x".repeat(8192 - '{"blob":""}'.length) };
    expect(JSON.stringify(metadata)).toHaveLength(8192);
    const reply = await broker.call(
      "POST",
      "/v1/notifications",
      create({ title: "t".repeat(200), message: "m".repeat(4000), metadata, pid: 0 }),
    );
    expect(reply.status).toBe(201);
  });

  it("counts characters as code points (an emoji is one) and refuses lone surrogates", async () => {
    const broker = testBroker();
    expect((await broker.call("POST", "/v1/notifications", create({ title: "🚀".repeat(200) }))).status).toBe(201);
    expect((await broker.call("POST", "/v1/notifications", create({ title: "🚀".repeat(201) }))).status).toBe(400);
    const lone = await broker.call("POST", "/v1/notifications", '{"title":"bad \\ud800 half","message":"m"}');
    expect(lone.status).toBe(400);
    expect((lone.body as Json).error).toMatch(/title must be valid Unicode/);
  });

  it("counts metadata size in UTF-8 bytes", async () => {
    const broker = testBroker();
    // 3000 x "é" is 6000 bytes of UTF-8 plus quotes; 4100 is over 8192 bytes though only ~4100 characters.
    expect((await broker.call("POST", "/v1/notifications", create({ metadata: { s: "é".repeat(3000) } }))).status).toBe(
      201,
    );
    expect((await broker.call("POST", "/v1/notifications", create({ metadata: { s: "é".repeat(4100) } }))).status).toBe(
      400,
    );
  });

  it("dedups by key on an active notification: same id, refreshed updatedAt, new content (201)", async () => {
    const broker = testBroker();
    const first = (await broker.call("POST", "/v1/notifications", create({ key: "ci", priority: "low" }))).body as Json;
    broker.clock.advance(5_000);
    const second = await broker.call(
      "POST",
      "/v1/notifications",
      create({ key: "ci", title: "Build failed", priority: "high" }),
    );
    expect(second.status).toBe(201);
    const body = second.body as Json;
    expect(body.id).toBe(first.id);
    expect(body.createdAt).toBe(first.createdAt);
    expect(body.updatedAt).toBe("2026-01-01T00:00:05.000Z");
    expect(body.title).toBe("Build failed");
    expect(body.priority).toBe("high");
    expect(broker.notifications.list({ limit: 500 })).toHaveLength(1);
  });

  it("a key whose notification is resolved or dismissed starts a new notification", async () => {
    const broker = testBroker();
    const first = (await broker.call("POST", "/v1/notifications", create({ key: "k" }))).body as Json;
    await broker.call("PATCH", `/v1/notifications/${first.id}`, { status: "resolved" });
    const second = (await broker.call("POST", "/v1/notifications", create({ key: "k" }))).body as Json;
    expect(second.id).not.toBe(first.id);
    await broker.call("POST", `/v1/notifications/${second.id}/dismiss`);
    const third = (await broker.call("POST", "/v1/notifications", create({ key: "k" }))).body as Json;
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
  });
});

describe("GET /v1/notifications (docs/api.md, 'GET /v1/notifications')", () => {
  async function seeded() {
    const broker = testBroker();
    const rows = [
      { title: "a", type: "info", agent: "codex", project: "alpha" },
      { title: "b", type: "error", agent: "claude", project: "beta" },
      { title: "c", type: "error", agent: "codex", project: "beta" },
      { title: "d", type: "input_required", agent: "claude", project: "alpha" },
    ];
    const ids: string[] = [];
    for (const row of rows) {
      broker.clock.advance(1000);
      ids.push(((await broker.call("POST", "/v1/notifications", create(row))).body as Json).id);
    }
    await broker.call("PATCH", `/v1/notifications/${ids[1]}`, { status: "resolved" });
    await broker.call("POST", `/v1/notifications/${ids[2]}/dismiss`);
    return { broker, ids };
  }
  const titles = (reply: { body: unknown }) => (reply.body as Json[]).map((n) => n.title);

  it("lists newest first", async () => {
    const { broker } = await seeded();
    const reply = await broker.call("GET", "/v1/notifications");
    expect(reply.status).toBe(200);
    expect(titles(reply)).toEqual(["d", "c", "b", "a"]);
  });

  it("filters by unresolved, status, type (normalized), project and agent (trimmed)", async () => {
    const { broker } = await seeded();
    expect(titles(await broker.call("GET", "/v1/notifications?unresolved=true"))).toEqual(["d", "a"]);
    expect(titles(await broker.call("GET", "/v1/notifications?unresolved=false"))).toEqual(["d", "c", "b", "a"]);
    expect(titles(await broker.call("GET", "/v1/notifications?status=resolved"))).toEqual(["b"]);
    expect(titles(await broker.call("GET", "/v1/notifications?status=dismissed"))).toEqual(["c"]);
    expect(titles(await broker.call("GET", "/v1/notifications?type=error"))).toEqual(["c", "b"]);
    expect(titles(await broker.call("GET", "/v1/notifications?type=Input-Required"))).toEqual(["d"]);
    expect(titles(await broker.call("GET", "/v1/notifications?project=%20alpha%20"))).toEqual(["d", "a"]);
    expect(titles(await broker.call("GET", "/v1/notifications?agent=codex"))).toEqual(["c", "a"]);
    expect(titles(await broker.call("GET", "/v1/notifications?agent=codex&type=error&project=beta"))).toEqual(["c"]);
    expect(titles(await broker.call("GET", "/v1/notifications?project=gamma"))).toEqual([]);
  });

  it("limit defaults to 100, accepts 1-500, rejects anything else", async () => {
    const broker = testBroker();
    for (let index = 0; index < 105; index++)
      broker.notifications.create({ title: `n${index}`, message: "m", type: "info", agent: "a" });
    expect((await broker.call("GET", "/v1/notifications")).body as Json[]).toHaveLength(100);
    expect((await broker.call("GET", "/v1/notifications?limit=500")).body as Json[]).toHaveLength(105);
    const one = (await broker.call("GET", "/v1/notifications?limit=1")).body as Json[];
    expect(one.map((n) => n.title)).toEqual(["n104"]);
    for (const limit of ["0", "501", "-1", "abc", "2.5"]) {
      const reply = await broker.call("GET", `/v1/notifications?limit=${limit}`);
      expect(reply.status, limit).toBe(400);
      expect((reply.body as Json).error).toMatch(/limit/);
    }
  });

  it("rejects an unknown status filter and a non-boolean unresolved", async () => {
    const broker = testBroker();
    expect((await broker.call("GET", "/v1/notifications?status=open")).status).toBe(400);
    expect((await broker.call("GET", "/v1/notifications?unresolved=maybe")).status).toBe(400);
  });

  it("GET by id is 404 with the spec's string for an unknown id", async () => {
    const broker = testBroker();
    const reply = await broker.call("GET", "/v1/notifications/ntf_000000000000000000000000");
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: "notification not found" });
  });
});

describe("PATCH /v1/notifications/{id} and dismiss (docs/api.md, 'Notification status transitions (as implemented)')", () => {
  async function active() {
    const broker = testBroker();
    const created = (await broker.call("POST", "/v1/notifications", create({ key: "k" }))).body as Json;
    return { broker, id: created.id as string };
  }

  it.each([
    ["active", "dismissed", 200],
    ["active", "resolved", 200],
    ["active", "active", 400],
    ["dismissed", "active", 200],
    ["resolved", "active", 200],
    ["dismissed", "resolved", 400],
    ["dismissed", "dismissed", 400],
    ["resolved", "dismissed", 400],
    ["resolved", "resolved", 400],
  ])("%s -> %s gives %i", async (from, to, status) => {
    const { broker, id } = await active();
    if (from !== "active") await broker.call("PATCH", `/v1/notifications/${id}`, { status: from });
    broker.clock.advance(1000);
    const reply = await broker.call("PATCH", `/v1/notifications/${id}`, { status: to });
    expect(reply.status).toBe(status);
    const stored = broker.notifications.get(id);
    if (status === 200) {
      expect(reply.body).toEqual(stored);
      expect(stored.status).toBe(to);
      expect(stored.updatedAt).toBe("2026-01-01T00:00:01.000Z");
    } else {
      expect((reply.body as Json).error).toMatch(/cannot change status/);
      expect(stored.status).toBe(from);
    }
  });

  it("sets resolvedAt on resolve and clears it on reopen", async () => {
    const { broker, id } = await active();
    const resolved = (await broker.call("PATCH", `/v1/notifications/${id}`, { status: "resolved" })).body as Json;
    expect(resolved.resolvedAt).toBe("2026-01-01T00:00:00.000Z");
    const reopened = (await broker.call("PATCH", `/v1/notifications/${id}`, { status: "active" })).body as Json;
    expect(reopened).not.toHaveProperty("resolvedAt");
    const dismissed = (await broker.call("PATCH", `/v1/notifications/${id}`, { status: "dismissed" })).body as Json;
    expect(dismissed).not.toHaveProperty("resolvedAt");
  });

  it("dismiss endpoint sets dismissed and follows the same table", async () => {
    const { broker, id } = await active();
    const reply = await broker.call("POST", `/v1/notifications/${id}/dismiss`);
    expect(reply.status).toBe(200);
    expect((reply.body as Json).status).toBe("dismissed");
    expect((await broker.call("POST", `/v1/notifications/${id}/dismiss`)).status).toBe(400);
    expect((await broker.call("POST", "/v1/notifications/ntf_nope/dismiss")).body).toEqual({
      error: "notification not found",
    });
  });

  it("400 on a missing or invalid status, 404 on an unknown id", async () => {
    const { broker, id } = await active();
    expect((await broker.call("PATCH", `/v1/notifications/${id}`, {})).body).toEqual({ error: "status is required" });
    expect((await broker.call("PATCH", `/v1/notifications/${id}`)).status).toBe(400);
    expect((await broker.call("PATCH", `/v1/notifications/${id}`, { status: "closed" })).status).toBe(400);
    expect((await broker.call("PATCH", `/v1/notifications/${id}`, { status: "resolved", extra: 1 })).status).toBe(400);
    const missing = await broker.call("PATCH", "/v1/notifications/ntf_nope", { status: "resolved" });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "notification not found" });
  });

  it("refuses to reopen while another active notification holds the same key", async () => {
    const { broker, id } = await active();
    await broker.call("PATCH", `/v1/notifications/${id}`, { status: "resolved" });
    await broker.call("POST", "/v1/notifications", create({ key: "k" }));
    const reply = await broker.call("PATCH", `/v1/notifications/${id}`, { status: "active" });
    expect(reply.status).toBe(400);
    expect(broker.notifications.get(id).status).toBe("resolved");
  });

  it("activeCount in /v1/health follows the transitions", async () => {
    const { broker, id } = await active();
    await broker.call("POST", "/v1/notifications", create());
    expect(((await broker.call("GET", "/v1/health")).body as Json).activeCount).toBe(2);
    await broker.call("PATCH", `/v1/notifications/${id}`, { status: "resolved" });
    expect(((await broker.call("GET", "/v1/health")).body as Json).activeCount).toBe(1);
  });
});
