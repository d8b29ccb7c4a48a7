import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { type MockWire, type ModelMock, startModelMock } from "@notify/test-kit";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import { type Json, type RawReply, type RouterBroker, raw, startRouterBroker } from "./harness.js";

/** The router's edges: off switch, Origin/Host/key checks, error shapes, count_tokens, the model list, body limit. */

const PROVIDER_MESSAGE = "Upstream internal detail: shard 7 of cluster eu-2 is down";
const PATHS: { path: string; wire: MockWire; body: object }[] = [
  { path: "/responses", wire: "responses", body: { model: "c/x", input: "hi" } },
  { path: "/chat/completions", wire: "chat", body: { model: "c/x", messages: [{ role: "user", content: "hi" }] } },
  {
    path: "/messages",
    wire: "messages",
    body: { model: "c/x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] },
  },
];

/** The inbound wire's own error shape (docs/router.md, "Errors"). */
function expectWireError(reply: RawReply, wire: MockWire | "models", status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers["content-type"]).toContain("application/json");
  if (wire === "messages") {
    expect(reply.body).toEqual({ type: "error", error: { type: code, message: expect.any(String) } });
  } else {
    expect(reply.body).toEqual({ error: { code, type: expect.any(String), message: expect.any(String) } });
  }
}

const post = (router: RouterBroker, path: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(`${router.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-notify-router-key": router.key, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

let router: RouterBroker;
const mocks = {} as Record<MockWire, ModelMock>;

beforeAll(async () => {
  router = await startRouterBroker();
  for (const wire of ["responses", "chat", "messages"] as const) {
    mocks[wire] = await startModelMock(wire);
    await router.addUpstream({
      slug: wire.slice(0, 1),
      wire,
      base_url: mocks[wire].url,
      key: `upstream-key-${wire}`,
      models: [`${wire}-model`, "shared-model"],
    });
  }
});

afterAll(async () => {
  await router?.close();
  for (const mock of Object.values(mocks)) await mock.close();
});

describe("the off switch", () => {
  it("answers 404 router_disabled in each wire's shape and contacts no provider", async () => {
    const off = await startRouterBroker({ enable: false });
    try {
      expect(off.key).toBe("");
      const mock = await startModelMock("chat");
      await off.addUpstream({ slug: "c", wire: "chat", base_url: mock.url });
      for (const { path, wire, body } of PATHS) {
        expectWireError(await post(off, path, body), wire, 404, "router_disabled");
      }
      expectWireError(await post(off, "/messages/count_tokens", PATHS[2]?.body), "messages", 404, "router_disabled");
      expectWireError(await raw(`${off.base}/models`), "models", 404, "router_disabled");
      const sdk = await new OpenAI({ baseURL: off.base, apiKey: "whatever", maxRetries: 0 }).chat.completions
        .create({ model: "c/x", messages: [{ role: "user", content: "hi" }] })
        .catch((error: unknown) => error);
      expect(sdk).toBeInstanceOf(OpenAI.NotFoundError);

      // Switched on, then off again: the key stays, the router answers 404 once more.
      expect((await off.ui("PUT", "/router/settings", { enabled: true })).status).toBe(200);
      const key = String(readConfigFile(off.dataDir).RouterKey);
      expect((await post({ ...off, key }, "/chat/completions", PATHS[1]?.body)).status).toBe(200);
      expect((await off.ui("PUT", "/router/settings", { enabled: false })).status).toBe(200);
      expectWireError(await post({ ...off, key }, "/chat/completions", PATHS[1]?.body), "chat", 404, "router_disabled");
      expect(mock.hits).toHaveLength(1);
      await mock.close();
    } finally {
      await off.close();
    }
  });
});

describe("authentication", () => {
  it("accepts the key as x-notify-router-key, Authorization: Bearer or x-api-key", async () => {
    const body = PATHS[1]?.body;
    for (const headers of [
      { "x-notify-router-key": router.key },
      { authorization: `Bearer ${router.key}` },
      { "x-api-key": router.key },
    ]) {
      const reply = await raw(`${router.base}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      expect(reply.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it("keeps the client's own credential beside x-notify-router-key away from routed upstreams", async () => {
    await post(router, "/messages", PATHS[2]?.body, {
      authorization: "Bearer client-own-vendor-credential",
      "x-api-key": "client-own-vendor-key",
    });
    const hit = mocks.chat.hits.at(-1);
    expect(hit?.headers.authorization).toBe("Bearer upstream-key-chat");
    expect(JSON.stringify(hit?.headers)).not.toContain("client-own");
    expect(JSON.stringify(hit?.headers)).not.toContain(router.key);
  });

  it("a changed upstream key is used from the next request on (the opened key is not kept past a change)", async () => {
    const chatPath = PATHS[1] as (typeof PATHS)[number];
    await post(router, chatPath.path, chatPath.body);
    expect(mocks.chat.hits.at(-1)?.headers.authorization).toBe("Bearer upstream-key-chat");
    try {
      expect((await router.ui("PATCH", "/router/upstreams/c", { key: "rotated-key-chat" })).status).toBe(200);
      await post(router, chatPath.path, chatPath.body);
      expect(mocks.chat.hits.at(-1)?.headers.authorization).toBe("Bearer rotated-key-chat");
    } finally {
      expect((await router.ui("PATCH", "/router/upstreams/c", { key: "upstream-key-chat" })).status).toBe(200);
    }
    await post(router, chatPath.path, chatPath.body);
    expect(mocks.chat.hits.at(-1)?.headers.authorization).toBe("Bearer upstream-key-chat");
  });

  it("refuses a wrong or missing key with 401 in each wire's shape", async () => {
    const hits = mocks.chat.hits.length;
    for (const { path, wire, body } of PATHS) {
      expectWireError(
        await post(router, path, body, { "x-notify-router-key": "nrk_wrong" }),
        wire,
        401,
        "unauthorized",
      );
      const bare = await raw(`${router.base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expectWireError(bare, wire, 401, "unauthorized");
    }
    // The broker's own /v1 token is not a router key, and the router key opens nothing else.
    const token = String(readConfigFile(router.dataDir).authToken);
    expectWireError(
      await post(router, "/chat/completions", PATHS[1]?.body, { "x-notify-router-key": token }),
      "chat",
      401,
      "unauthorized",
    );
    expect(
      (await raw(`${router.broker.url}/v1/health`, { headers: { authorization: `Bearer ${router.key}` } })).status,
    ).toBe(401);
    const sdk = await new Anthropic({
      baseURL: `${router.broker.url}/router`,
      apiKey: "nrk_wrong",
      maxRetries: 0,
    }).messages
      .create({ model: "c/x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error);
    expect(sdk).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(mocks.chat.hits.length).toBe(hits);
  });

  it("refuses a browser (Origin) with 403 and a non-loopback Host with 403, even with the key", async () => {
    const hits = mocks.chat.hits.length;
    for (const { path, wire, body } of PATHS) {
      expectWireError(await post(router, path, body, { origin: "https://evil.example" }), wire, 403, "forbidden");
      expectWireError(
        await post(router, path, body, { host: `evil.example:${router.broker.port}` }),
        wire,
        403,
        "host_not_loopback",
      );
    }
    expect(mocks.chat.hits.length).toBe(hits);
  });
});

describe("errors", () => {
  it("name no provider message, only its short code, in each wire's shape", async () => {
    for (const { path, wire, body } of PATHS) {
      mocks.chat.script.push({
        kind: "status",
        status: 500,
        body: { error: { message: PROVIDER_MESSAGE, type: "server_error", code: "shard_down" } },
      });
      // A distinct model per wire: the target cools for 15 s after a 5xx.
      const reply = await post(router, path, { ...body, model: `c/error-${wire}` });
      expectWireError(reply, wire, 500, "upstream_error");
      expect(reply.text).toContain("HTTP 500 (shard_down)");
      expect(reply.text).not.toContain("shard 7");
    }
    await router.broker.logger.flush();
    const logs = join(router.dataDir, "logs");
    const log = readdirSync(logs)
      .map((name) => readFileSync(join(logs, name), "utf8"))
      .join("\n");
    expect(log).toContain("shard_down");
    expect(log).not.toContain("shard 7");
  });

  it("unknown_model 404, missing_model 400, invalid JSON 400, in each wire's shape", async () => {
    for (const { path, wire, body } of PATHS) {
      expectWireError(await post(router, path, { ...body, model: "no-such-model" }), wire, 404, "unknown_model");
      const { model: _model, ...withoutModel } = body as Record<string, unknown>;
      expectWireError(await post(router, path, withoutModel), wire, 400, "missing_model");
      expectWireError(await post(router, path, "{not json"), wire, 400, "invalid_request");
      expectWireError(await post(router, path, { ...body, model: "shared-model" }), wire, 400, "ambiguous_model");
    }
    expectWireError(await post(router, "/no/such/endpoint", {}), "models", 404, "not_supported");
  });

  it("refuses previous_response_id on a translated hop and passes it on a responses-wire hop", async () => {
    const openai = router.openai();
    const hits = mocks.chat.hits.length;
    const error = await openai.responses
      .create({ model: "c/x", input: "next", previous_response_id: "resp_earlier" })
      .catch((failure: unknown) => failure as Json);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ code: "unsupported_previous_response_id" });
    expect(mocks.chat.hits.length).toBe(hits);
    const ledger = (await router.activity(1))[0];
    expect(ledger).toMatchObject({
      status: 400,
      outcome: "client_error",
      error_code: "unsupported_previous_response_id",
    });

    await openai.responses.create({ model: "r/x", input: "next", previous_response_id: "resp_earlier" });
    expect(mocks.responses.hits.at(-1)?.body.previous_response_id).toBe("resp_earlier");
  });
});

describe("upstream requests", () => {
  it("follow no redirect: the key stays with its host", async () => {
    const hits = mocks.messages.hits.length;
    mocks.chat.script.push({
      kind: "status",
      status: 307,
      headers: { location: `${mocks.messages.url}/messages` },
      body: {},
    });
    const reply = await post(router, "/chat/completions", { ...PATHS[1]?.body, model: "c/redirected" });
    expectWireError(reply, "chat", 502, "upstream_error");
    expect(mocks.messages.hits.length).toBe(hits);
  });

  it("note dropped built-in tools in the ledger, and send only the function tools", async () => {
    const before = await router.ledgerSize();
    await router.openai().responses.create({
      model: "c/tools",
      input: "hi",
      tools: [{ type: "web_search" }, { type: "function", name: "lookup", parameters: {}, strict: false }],
    });
    expect(mocks.chat.hits.at(-1)?.body.tools).toEqual([
      { type: "function", function: { name: "lookup", parameters: {} } },
    ]);
    expect((await router.nextLedgerRow(before)).notes).toEqual(["tools_dropped"]);
  });
});

describe("count_tokens", () => {
  it("is forwarded to a messages-wire upstream and answers 404 for any other", async () => {
    const anthropic = router.anthropic();
    const counted = await anthropic.messages.countTokens({
      model: "m/messages-model",
      messages: [{ role: "user", content: "count me" }],
    });
    expect(counted.input_tokens).toBe(42);
    const hit = mocks.messages.hits.at(-1);
    expect(hit?.path).toBe("/messages/count_tokens");
    expect(hit?.body.model).toBe("messages-model");
    expect(hit?.headers["x-api-key"]).toBe("upstream-key-messages");

    const hits = mocks.chat.hits.length;
    const error = await anthropic.messages
      .countTokens({ model: "c/chat-model", messages: [{ role: "user", content: "count me" }] })
      .catch((failure: unknown) => failure as Json);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.error).toMatchObject({ type: "error", error: { type: "not_supported" } });
    expect(mocks.chat.hits.length).toBe(hits);
  });
});

describe("GET /models", () => {
  it("lists every provider/model of an enabled upstream, every alias and combo/<name>", async () => {
    await router.addRoute("fast", "alias", ["c/chat-model"]);
    await router.addRoute("pair", "combo", ["c/chat-model", "m/messages-model"]);
    const hidden = await router.ui("POST", "/router/routes", {
      name: "hidden",
      kind: "alias",
      targets: ["c/x"],
      enabled: false,
    });
    expect(hidden.status).toBe(201);
    await router.addUpstream({ slug: "off", wire: "chat", base_url: mocks.chat.url, models: ["never-listed"] });
    expect((await router.ui("PATCH", "/router/upstreams/off", { enabled: false })).status).toBe(200);
    const ids: string[] = [];
    for await (const model of router.openai().models.list()) ids.push(model.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        "r/responses-model",
        "r/shared-model",
        "c/chat-model",
        "m/messages-model",
        "fast",
        "combo/pair",
      ]),
    );
    expect(ids).not.toContain("hidden");
    expect(ids).not.toContain("off/never-listed");
  });
});

describe("body limit", () => {
  it("takes bodies past the broker's 64 KiB up to RouterMaxRequestBodyBytes (32 MiB by default)", async () => {
    const prompt = "x".repeat(1024 * 1024);
    const reply = await post(router, "/chat/completions", {
      model: "c/big",
      messages: [{ role: "user", content: prompt }],
    });
    expect(reply.status).toBe(200);
    expect(mocks.chat.hits.at(-1)?.bytes).toBeGreaterThan(1024 * 1024);

    const status = await router.ui("GET", "/router/status");
    expect(status.body.max_request_body_bytes).toBe(32 * 1024 * 1024);
    const over = await raw(`${router.base}/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-notify-router-key": router.key,
        "content-length": String(32 * 1024 * 1024 + 1),
      },
    });
    expectWireError(over, "messages", 413, "payload_too_large");
  });

  it("cuts a chunked body as soon as it passes the limit", async () => {
    expect((await router.ui("PUT", "/router/settings", { max_request_body_bytes: 256 * 1024 })).status).toBe(200);
    try {
      const reply = await raw(`${router.base}/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-notify-router-key": router.key,
          "transfer-encoding": "chunked",
        },
        body: JSON.stringify({ model: "c/x", messages: [{ role: "user", content: "y".repeat(512 * 1024) }] }),
      });
      expectWireError(reply, "chat", 413, "payload_too_large");
    } finally {
      await router.ui("PUT", "/router/settings", { max_request_body_bytes: 32 * 1024 * 1024 });
    }
  });
});

describe("the router's lane and the framework routes", () => {
  it("answer every check, error and proxied request alike (the lane serves sockets, the routes app.inject)", async () => {
    const chat = PATHS[1]?.body as object;
    const cases: { path: string; headers: Record<string, string>; body: string }[] = [
      { path: "/chat/completions", headers: {}, body: JSON.stringify(chat) },
      { path: "/messages", headers: {}, body: JSON.stringify(PATHS[2]?.body) },
      { path: "/chat/completions", headers: { "x-notify-router-key": "wrong" }, body: JSON.stringify(chat) },
      { path: "/responses", headers: { origin: "http://localhost:3000" }, body: JSON.stringify(PATHS[0]?.body) },
      { path: "/messages", headers: { host: "example.com" }, body: JSON.stringify(PATHS[2]?.body) },
      { path: "/chat/completions", headers: {}, body: "{not json" },
      { path: "/messages", headers: {}, body: "" },
      { path: "/responses", headers: {}, body: "[1, 2]" },
      { path: "/chat/completions?x=1", headers: {}, body: JSON.stringify({ ...chat, model: "nobody/x" }) },
      { path: "/messages/count_tokens", headers: {}, body: JSON.stringify(PATHS[2]?.body) },
    ];
    for (const { path, headers, body } of cases) {
      const all = { "content-type": "application/json", "x-notify-router-key": router.key, ...headers };
      const socket = await raw(`${router.base}${path}`, { method: "POST", headers: all, body });
      const injected = await router.broker.app.inject({
        method: "POST",
        url: `/router/v1${path}`,
        headers: { host: new URL(router.base).host, ...all },
        payload: body,
      });
      const label = `${path} ${JSON.stringify(headers)} ${body.slice(0, 20)}`;
      expect(socket.status, label).toBe(injected.statusCode);
      expect(socket.headers["content-type"], label).toBe(injected.headers["content-type"]);
      const injectedBody = JSON.parse(injected.body);
      // Generated ids differ per request (the router's, and the mock's own, numbered per request); everything else
      // is the same.
      const withoutIds = (value: Json): Json =>
        JSON.parse(JSON.stringify(value).replace(/"(chatcmpl|msg)[-_][^"]*"/g, '"ID"'));
      expect(withoutIds(socket.body), label).toEqual(withoutIds(injectedBody));
    }
  });
});
