import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type Anthropic from "@anthropic-ai/sdk";
import { APIError as AnthropicError } from "@anthropic-ai/sdk";
import { type MockWire, type ModelMock, startModelMock } from "@notify/test-kit";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Json, type RouterBroker, raw, startRouterBroker } from "./harness.js";

/**
 * Failover, cooldowns, committed streams, timeouts and client disconnects, end to end through a real broker with
 * short upstream timeouts (headers and inter-chunk silence 500 ms).
 */

const PROVIDER_MESSAGE = "Provider says: your account 4242 is over its quota (internal detail)";

let router: RouterBroker;
let openai: OpenAI;
let anthropic: Anthropic;
const mocks = {} as Record<MockWire, ModelMock>;
/** Slug of each mock's upstream. */
const SLUG: Record<MockWire, string> = { responses: "r", chat: "c", messages: "m" };

async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  router = await startRouterBroker({ routerTimeouts: { connectMs: 2_000, headersMs: 500, bodyMs: 500 } });
  for (const wire of ["responses", "chat", "messages"] as const) {
    mocks[wire] = await startModelMock(wire);
    await router.addUpstream({ slug: SLUG[wire], wire, base_url: mocks[wire].url, key: `key-${wire}` });
  }
  await router.addUpstream({ slug: "dead", wire: "chat", base_url: `http://127.0.0.1:${await closedPort()}/v1` });
  openai = router.openai();
  anthropic = router.anthropic();
});

afterAll(async () => {
  await router?.close();
  for (const mock of Object.values(mocks)) await mock.close();
});

const chat = (model: string) => openai.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });

async function rejection(promise: Promise<unknown>): Promise<Json> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

function hitCounts(): Record<MockWire, number> {
  return { responses: mocks.responses.hits.length, chat: mocks.chat.hits.length, messages: mocks.messages.hits.length };
}

describe("failover before any byte", () => {
  it("tries the next target on 429, cools the first, and skips it while it cools", async () => {
    await router.addRoute("pair429", "combo", ["c/m429", "m/m429"]);
    mocks.chat.script.push({
      kind: "status",
      status: 429,
      body: { error: { message: PROVIDER_MESSAGE, type: "requests", code: "rate_limit_exceeded" } },
    });
    const before = await router.ledgerSize();
    const hits = hitCounts();
    const completion = await chat("combo/pair429");
    expect(completion.choices[0]?.message.content).toBe(mocks.messages.text);
    expect(hitCounts()).toEqual({ ...hits, chat: hits.chat + 1, messages: hits.messages + 1 });

    const row = await router.nextLedgerRow(before);
    expect(row).toMatchObject({ route_kind: "combo", route_name: "pair429", upstream_slug: "m", outcome: "ok" });
    expect(row.attempts).toMatchObject([
      { ordinal: 1, upstream_slug: "c", status: 429, error_code: "rate_limited", bytes_streamed: false },
      { ordinal: 2, upstream_slug: "m", status: 200, error_code: null, bytes_streamed: true },
    ]);

    // c/m429 cools for 30 s: the next request goes straight to the second target.
    await chat("combo/pair429");
    expect(hitCounts()).toEqual({ ...hits, chat: hits.chat + 1, messages: hits.messages + 2 });
  });

  it("tries the next target on a 5xx and on a refused connection", async () => {
    await router.addRoute("chain5xx", "combo", ["c/m5xx", "dead/m5xx", "r/m5xx"]);
    mocks.chat.script.push({ kind: "status", status: 503 });
    const before = await router.ledgerSize();
    const completion = await chat("combo/chain5xx");
    expect(completion.choices[0]?.message.content).toBe(mocks.responses.text);
    const row = await router.nextLedgerRow(before);
    expect(row.attempts).toMatchObject([
      { upstream_slug: "c", status: 503, error_code: "upstream_error" },
      { upstream_slug: "dead", status: null, error_code: "connection_error" },
      { upstream_slug: "r", status: 200, error_code: null },
    ]);
    expect(row.outcome).toBe("ok");
  });

  it("returns any other 4xx at once, without trying another target and without cooldown", async () => {
    await router.addRoute("pair422", "combo", ["c/m422", "m/m422"]);
    mocks.chat.script.push({
      kind: "status",
      status: 422,
      body: { error: { message: PROVIDER_MESSAGE, type: "invalid_request_error", code: "bad_schema" } },
    });
    const hits = hitCounts();
    const before = await router.ledgerSize();
    const error = await rejection(chat("combo/pair422"));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(422);
    expect(error.error).toMatchObject({ code: "client_error" });
    expect(error.error.message).toContain("422 (bad_schema)");
    expect(JSON.stringify(error.error)).not.toContain("quota");
    expect(hitCounts()).toEqual({ ...hits, chat: hits.chat + 1 });
    const row = await router.nextLedgerRow(before);
    expect(row).toMatchObject({ status: 422, outcome: "client_error", error_code: "client_error" });
    expect(row.attempts).toHaveLength(1);

    // Not cooled: the same target is asked again.
    await chat("combo/pair422");
    expect(hitCounts()).toEqual({ ...hits, chat: hits.chat + 2 });
  });

  it("answers 429 rate_limited at once when every target cools after rate limits, honouring Retry-After", async () => {
    await router.addRoute("allrl", "combo", ["c/mrl", "r/mrl"]);
    mocks.chat.script.push({ kind: "status", status: 429, headers: { "retry-after": "7" } });
    mocks.responses.script.push({ kind: "status", status: 529 });
    const first = await rejection(chat("combo/allrl"));
    // Every target failed: the client gets the last failure.
    expect(first.status).toBe(529);
    expect(first.error).toMatchObject({ code: "rate_limited" });

    const hits = hitCounts();
    const before = await router.ledgerSize();
    for (const path of ["/chat/completions", "/responses", "/messages"]) {
      const reply = await raw(`${router.base}${path}`, {
        method: "POST",
        headers: { "x-notify-router-key": router.key, "content-type": "application/json" },
        body: JSON.stringify({ model: "combo/allrl", messages: [], input: "hi", max_tokens: 5 }),
      });
      expect(reply.status).toBe(429);
      // The soonest cooldown to end is the 7 s one the first target asked for.
      expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(6);
      expect(Number(reply.headers["retry-after"])).toBeLessThanOrEqual(7);
      if (path === "/messages") expect(reply.body).toMatchObject({ type: "error", error: { type: "rate_limited" } });
      else expect(reply.body).toMatchObject({ error: { code: "rate_limited", type: "rate_limit_error" } });
    }
    expect(hitCounts()).toEqual(hits);
    const row = await router.nextLedgerRow(before);
    expect(row).toMatchObject({ status: 429, error_code: "rate_limited", outcome: "failed_over_exhausted" });
    expect(row.attempts).toEqual([]);
  });

  it("answers 503 all_targets_unavailable when the soonest cooldown began with a 5xx or a connection error", async () => {
    await router.addRoute("flaky", "alias", ["c/mflaky"]);
    mocks.chat.script.push({ kind: "status", status: 500 });
    const first = await rejection(chat("flaky"));
    expect(first.status).toBe(500);
    expect(first.error).toMatchObject({ code: "upstream_error" });
    const hits = hitCounts();
    const error = await rejection(chat("flaky"));
    expect(error.status).toBe(503);
    expect(error.error).toMatchObject({ code: "all_targets_unavailable" });
    const retryAfter = Number(error.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(10);
    expect(retryAfter).toBeLessThanOrEqual(15);
    expect(hitCounts()).toEqual(hits);

    const refused = await rejection(chat("dead/other"));
    expect(refused.status).toBe(502);
    expect(refused.error).toMatchObject({ code: "connection_error" });
    const cooling = await rejection(chat("dead/other"));
    expect(cooling.status).toBe(503);
  });

  it("caps a Retry-After HTTP date at 10 minutes", async () => {
    const inTwoHours = new Date(Date.now() + 2 * 3_600_000).toUTCString();
    mocks.chat.script.push({ kind: "status", status: 429, headers: { "retry-after": inTwoHours } });
    await rejection(chat("c/mdate"));
    const error = await rejection(chat("c/mdate"));
    expect(error.status).toBe(429);
    expect(Number(error.headers.get("retry-after"))).toBeGreaterThan(590);
    expect(Number(error.headers.get("retry-after"))).toBeLessThanOrEqual(600);
  });
});

/** Streams through each inbound SDK's helper; the promise rejects when the stream ends in an error. */
const STREAMERS: Record<MockWire, (model: string, signal?: AbortSignal) => Promise<unknown>> = {
  responses: (model, signal) =>
    openai.responses.stream({ model, input: "hi" }, signal ? { signal } : undefined).finalResponse(),
  chat: (model, signal) =>
    openai.chat.completions
      .stream({ model, messages: [{ role: "user", content: "hi" }] }, signal ? { signal } : undefined)
      .finalChatCompletion(),
  messages: (model, signal) =>
    anthropic.messages
      .stream({ model, max_tokens: 50, messages: [{ role: "user", content: "hi" }] }, signal ? { signal } : undefined)
      .finalMessage(),
};

const STREAM_CASES = (["responses", "chat", "messages"] as const).flatMap((inbound) =>
  (["responses", "chat", "messages"] as const)
    .filter((upstream) => upstream === inbound || upstream === (inbound === "chat" ? "messages" : "chat"))
    .map((upstream) => ({ inbound, upstream, mode: upstream === inbound ? "passthrough" : "translated" })),
);

describe("a committed stream", () => {
  it.each(STREAM_CASES)(
    "$inbound client, $upstream upstream ($mode): a failure after the first bytes ends the stream with the wire's error event, no retry",
    async ({ inbound, upstream }) => {
      const other: MockWire = upstream === "chat" ? "responses" : "chat";
      const name = `commit-${inbound}-${upstream}`;
      await router.addRoute(name, "combo", [`${SLUG[upstream]}/mcommit`, `${SLUG[other]}/mcommit`]);
      mocks[upstream].script.push({ kind: "die-mid-stream" });
      const hits = hitCounts();
      const before = await router.ledgerSize();
      const error = await rejection(STREAMERS[inbound](`combo/${name}`));
      // Raised from the wire's error event, not from a malformed stream.
      expect(error instanceof OpenAI.APIError || error instanceof AnthropicError, String(error)).toBe(true);
      expect(String(error.message)).toContain("upstream");
      expect(hitCounts()).toEqual({ ...hits, [upstream]: hits[upstream] + 1 });
      const row = await router.nextLedgerRow(before);
      expect(row).toMatchObject({ outcome: "upstream_error", error_code: "upstream_error", status: 200 });
      expect(row.attempts).toMatchObject([{ upstream_slug: SLUG[upstream], bytes_streamed: true }]);
    },
  );

  it("the client sees the wire's own error event, not a quiet end", async () => {
    mocks.messages.script.push({ kind: "die-mid-stream" });
    const reply = await raw(`${router.base}/messages`, {
      method: "POST",
      headers: { "x-api-key": router.key, "content-type": "application/json" },
      body: JSON.stringify({
        model: "m/quiet",
        max_tokens: 5,
        stream: true,
        messages: [{ role: "user", content: "x" }],
      }),
    });
    expect(reply.status).toBe(200);
    expect(reply.text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"upstream_error"/);
    expect(reply.text).not.toContain("message_stop");
  });
});

describe("timeouts", () => {
  it("fails over when an upstream sends no response headers in time", async () => {
    await router.addRoute("slowpair", "combo", ["c/mslow", "m/mslow"]);
    mocks.chat.script.push({ kind: "hang" });
    const before = await router.ledgerSize();
    const started = Date.now();
    const completion = await chat("combo/slowpair");
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(completion.choices[0]?.message.content).toBe(mocks.messages.text);
    const row = await router.nextLedgerRow(before);
    expect(row.attempts).toMatchObject([
      { upstream_slug: "c", status: null, error_code: "timeout" },
      { upstream_slug: "m", status: 200 },
    ]);
  });

  it("fails over when a stream's headers come but no byte follows, as nothing reached the client", async () => {
    await router.addRoute("silentpair", "combo", ["c/msilent", "m/msilent"]);
    mocks.chat.script.push({ kind: "silent-stream" });
    const before = await router.ledgerSize();
    const completion = await openai.chat.completions
      .stream({ model: "combo/silentpair", messages: [{ role: "user", content: "hi" }] })
      .finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe(mocks.messages.text);
    const row = await router.nextLedgerRow(before);
    expect(row).toMatchObject({ outcome: "ok", upstream_slug: "m" });
    expect(row.attempts).toMatchObject([
      { upstream_slug: "c", status: 200, error_code: "timeout", bytes_streamed: false },
      { upstream_slug: "m", status: 200, error_code: null, bytes_streamed: true },
    ]);
  });

  it("answers 504 timeout when the only target is silent", async () => {
    mocks.responses.script.push({ kind: "hang" });
    const error = await rejection(chat("r/mhang"));
    expect(error.status).toBe(504);
    expect(error.error).toMatchObject({ code: "timeout" });
  });

  it("ends a committed stream whose upstream falls silent between chunks", async () => {
    mocks.messages.script.push({ kind: "stall-mid-stream" });
    const before = await router.ledgerSize();
    const error = await rejection(STREAMERS.responses("m/mstall"));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const row = await router.nextLedgerRow(before);
    expect(row).toMatchObject({ outcome: "upstream_error", error_code: "timeout" });
    expect(row.attempts).toMatchObject([{ error_code: "timeout", bytes_streamed: true }]);
  });
});

describe("client disconnect", () => {
  it("a client that hangs up while the upstream has not answered cancels the upstream request", async () => {
    mocks.chat.script.push({ kind: "hang" });
    const before = await router.ledgerSize();
    const controller = new AbortController();
    const aborted = mocks.chat.nextAbort();
    const failed = rejection(
      openai.chat.completions.create(
        { model: "c/mwaiting", messages: [{ role: "user", content: "hi" }] },
        { signal: controller.signal },
      ),
    );
    for (let tries = 0; tries < 100 && mocks.chat.hits.at(-1)?.body.model !== "mwaiting"; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    controller.abort();
    expect(await failed).toBeInstanceOf(OpenAI.APIUserAbortError);
    await aborted;
    const row = await router.nextLedgerRow(before);
    expect(row).toMatchObject({ outcome: "canceled", status: null });
    expect(row.attempts).toMatchObject([{ error_code: "canceled", status: null }]);
  });

  it.each(["responses", "chat", "messages"] as const)(
    "a %s client that aborts mid-stream cancels the upstream request and is recorded as canceled",
    async (inbound) => {
      const upstream: MockWire = inbound === "messages" ? "chat" : "messages";
      mocks[upstream].script.push({ kind: "stall-mid-stream" });
      const before = await router.ledgerSize();
      const controller = new AbortController();
      const aborted = mocks[upstream].nextAbort();
      const failed = rejection(STREAMERS[inbound](`${SLUG[upstream]}/mcancel`, controller.signal));
      // Wait until the upstream has started streaming, then hang up.
      for (let tries = 0; tries < 100 && mocks[upstream].hits.at(-1)?.body.model !== "mcancel"; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      const error = await failed;
      expect(error instanceof OpenAI.APIUserAbortError || error instanceof AnthropicError).toBe(true);
      await aborted;
      const row = await router.nextLedgerRow(before);
      expect(row).toMatchObject({ outcome: "canceled", status: null });
      expect(row.attempts).toMatchObject([{ error_code: "canceled" }]);
    },
  );
});
