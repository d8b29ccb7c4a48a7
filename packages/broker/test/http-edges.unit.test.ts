import { describe, expect, it } from "vitest";
import { type Json, TOKEN, testBroker } from "./helpers.js";

describe("health (docs/api.md, 'GET /v1/health')", () => {
  it("GET /health needs no token", async () => {
    const broker = testBroker();
    const reply = await broker.app.inject({ method: "GET", url: "/health" });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ status: "ok" });
  });

  it("GET /v1/health has every field", async () => {
    const broker = testBroker();
    broker.clock.advance(2_500);
    const reply = await broker.call("GET", "/v1/health");
    expect(reply.status).toBe(200);
    const body = reply.body as Json;
    expect(body).toEqual({
      status: "ok",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      pid: process.pid,
      uptimeSeconds: 2.5,
      activeCount: 0,
      apiVersion: "v1",
      serverTimeUtc: "2026-01-01T00:00:02.500Z",
    });
  });
});

describe("bearer auth (docs/api.md, 'Authentication')", () => {
  const routes: [string, string][] = [
    ["GET", "/v1/health"],
    ["GET", "/v1/notifications"],
    ["POST", "/v1/notifications"],
    ["GET", "/v1/notifications/ntf_x"],
    ["PATCH", "/v1/notifications/ntf_x"],
    ["POST", "/v1/notifications/ntf_x/dismiss"],
    ["POST", "/v1/interactions/request"],
    ["GET", "/v1/interactions"],
    ["GET", "/v1/interactions/int_x"],
    ["GET", "/v1/interactions/int_x/wait"],
    ["POST", "/v1/interactions/int_x/respond"],
    ["POST", "/v1/interactions/int_x/cancel"],
    ["POST", "/v1/interactions/int_x/publish"],
    ["GET", "/v1/no-such-route"],
  ];

  it.each(routes)(
    "%s %s: 401 {error: unauthorized} without, with a wrong, or with a malformed token",
    async (method, url) => {
      const broker = testBroker();
      for (const authorization of [
        undefined,
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(0, -1)}`,
        TOKEN,
        "Basic abc",
        "Bearer",
        `Bearer  ${TOKEN} extra`,
      ]) {
        const reply = await broker.app.inject({
          method: method as "GET",
          url,
          headers: authorization === undefined ? {} : { authorization },
          ...(method === "GET" ? {} : { payload: { title: "t", message: "m" } }),
        });
        expect(reply.statusCode, String(authorization)).toBe(401);
        expect(reply.json()).toEqual({ error: "unauthorized" });
      }
      expect(broker.notifications.list({ limit: 10 })).toHaveLength(0);
    },
  );

  it("accepts the scheme case-insensitively", async () => {
    const broker = testBroker();
    const reply = await broker.app.inject({
      method: "GET",
      url: "/v1/health",
      headers: { authorization: `bearer ${TOKEN}` },
    });
    expect(reply.statusCode).toBe(200);
  });
});

describe("rate limit (docs/api.md, 'Limits')", () => {
  it("limits POSTs per one-second window with 429, Retry-After: 1; the next window is open again", async () => {
    const broker = testBroker({ rateLimitPerSecond: 5 });
    const statuses: number[] = [];
    for (let index = 0; index < 7; index++) {
      const reply = await broker.call("POST", "/v1/notifications", { title: `t${index}`, message: "m" });
      statuses.push(reply.status);
      if (reply.status === 429) {
        expect(reply.body).toEqual({ error: "rate limit exceeded" });
        expect(reply.headers["retry-after"]).toBe("1");
      }
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
    expect(broker.notifications.list({ limit: 50 })).toHaveLength(5);
    broker.clock.advance(1000);
    expect((await broker.call("POST", "/v1/notifications", { title: "t", message: "m" })).status).toBe(201);
  });

  it("one counter covers notifications, interactions and events POSTs; GET and PATCH are never limited", async () => {
    const broker = testBroker({ rateLimitPerSecond: 3 });
    const created = (await broker.call("POST", "/v1/notifications", { title: "t", message: "m" })).body as Json;
    await broker.call("POST", "/v1/interactions/request", { prompt: "p" });
    await broker.call("POST", `/v1/notifications/${created.id}/dismiss`);
    expect((await broker.call("POST", "/v1/interactions/request", { prompt: "p" })).status).toBe(429);
    expect((await broker.call("POST", "/v1/notifications/x/dismiss")).status).toBe(429);
    expect((await broker.call("POST", "/v1/events", {})).status).toBe(429);
    for (let index = 0; index < 10; index++) {
      expect((await broker.call("GET", "/v1/notifications")).status).toBe(200);
      expect((await broker.call("GET", "/v1/interactions")).status).toBe(200);
      expect((await broker.call("PATCH", `/v1/notifications/${created.id}`, { status: "active" })).status).not.toBe(
        429,
      );
    }
  });

  it("an unauthenticated flood does not use up the token's budget", async () => {
    const broker = testBroker({ rateLimitPerSecond: 2 });
    for (let index = 0; index < 10; index++) {
      await broker.app.inject({ method: "POST", url: "/v1/notifications", payload: { title: "t", message: "m" } });
    }
    expect((await broker.call("POST", "/v1/notifications", { title: "t", message: "m" })).status).toBe(201);
  });
});

describe("body limit and malformed input (docs/api.md, 'Errors')", () => {
  it("413 with an empty body for a body over maxRequestBodyBytes, before auth and routing", async () => {
    const broker = testBroker({ maxRequestBodyBytes: 1024 });
    const big = JSON.stringify({ title: "t", message: "x".repeat(2000) });
    for (const [url, headers] of [
      ["/v1/notifications", { authorization: `Bearer ${TOKEN}` }],
      ["/v1/notifications", {}],
      ["/v1/nowhere", {}],
    ] as const) {
      const reply = await broker.app.inject({
        method: "POST",
        url,
        headers: { ...headers, "content-type": "application/json" },
        payload: big,
      });
      expect(reply.statusCode).toBe(413);
      expect(reply.body).toBe("");
    }
    expect(broker.notifications.list({ limit: 10 })).toHaveLength(0);
    const fits = JSON.stringify({ title: "t", message: "x".repeat(900) });
    expect((await broker.call("POST", "/v1/notifications", fits)).status).toBe(201);
  });

  it("malformed JSON is 400 and the broker keeps serving", async () => {
    const broker = testBroker();
    for (const payload of ['{"title": "t", ', "not json", '{"title":"t","message":"m"}}', "\u0000"]) {
      const reply = await broker.call("POST", "/v1/notifications", payload);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: "invalid JSON body" });
    }
    expect((await broker.call("POST", "/v1/notifications", { title: "t", message: "m" })).status).toBe(201);
  });

  it("refuses prototype-poisoning keys", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/notifications", '{"title":"t","message":"m","__proto__":{"x":1}}');
    expect(reply.status).toBe(400);
    expect(({} as Json).x).toBeUndefined();
  });

  it("parses JSON whatever the Content-Type (curl -d sends form encoding)", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/notifications", '{"title":"t","message":"m"}', {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(reply.status).toBe(201);
  });

  it("wrong JSON types at the top level are 400", async () => {
    const broker = testBroker();
    for (const payload of ["null", "42", '"text"', "[]", "true"]) {
      const reply = await broker.call("POST", "/v1/notifications", payload);
      expect(reply.status, payload).toBe(400);
      expect(typeof (reply.body as Json).error).toBe("string");
    }
  });

  it("unknown routes are 404 with an error body", async () => {
    const broker = testBroker();
    expect((await broker.call("GET", "/v1/nothing")).status).toBe(404);
    expect((await broker.app.inject({ method: "GET", url: "/nothing" })).json()).toEqual({ error: "not found" });
  });

  it("hostile headers do not crash or leak: huge, odd or repeated values", async () => {
    const broker = testBroker();
    const reply = await broker.app.inject({
      method: "POST",
      url: "/v1/notifications",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json; charset=utf-16",
        "x-forwarded-for": "1.2.3.4",
        host: "evil.example",
        "x-junk": "z".repeat(8000),
      },
      payload: JSON.stringify({ title: "t", message: "m" }),
    });
    expect(reply.statusCode).toBe(201);
    const bad = await broker.app.inject({
      method: "POST",
      url: "/v1/notifications",
      headers: { authorization: `Bearer ${TOKEN}`, "content-length": "abc" },
      payload: "",
    });
    expect(bad.statusCode).toBeLessThan(500);
  });
});
