import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { type ModelMock, startModelMock } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterBroker, raw, startRouterBroker } from "./harness.js";

/**
 * The agent's own native models (docs/router.md, "The agent's own native models"): with the router key in
 * x-notify-router-key, a native-family model no route claims goes to the vendor with the client's own credential. The
 * "vendor" is a loopback mock (RouterNativeBaseUrl) that records what it received; no real vendor host is ever
 * contacted.
 */

const CREDENTIAL = "sk-vendor-CANARY-7f3a9c1e";
const MODEL = "claude-native-9";

describe("native models through a real broker", () => {
  let router: RouterBroker;
  let vendor: ModelMock;
  let routed: ModelMock;
  let fallback: ModelMock;

  beforeAll(async () => {
    vendor = await startModelMock("messages");
    routed = await startModelMock("chat");
    fallback = await startModelMock("chat");
    router = await startRouterBroker({ config: { RouterNativeBaseUrl: vendor.url } });
    await router.addUpstream({ slug: "routed", wire: "chat", base_url: routed.url, key: "sk-routed-key", models: [] });
    await router.addUpstream({ slug: "fallback", wire: "chat", base_url: fallback.url, models: ["fb-model"] });
  });
  afterAll(async () => {
    await router.close();
    await vendor.close();
    await routed.close();
    await fallback.close();
  });

  const settings = async (change: Record<string, unknown>) => {
    const reply = await router.ui("PUT", "/router/settings", change);
    expect(reply.status, reply.text).toBe(200);
  };
  const setRoutedModels = async (models: string[]) => {
    const reply = await router.ui("PATCH", "/router/upstreams/routed", { models });
    expect(reply.status, reply.text).toBe(200);
  };
  // Odd spacing and key order: byte-for-byte forwarding keeps them.
  const body = (model = MODEL, extra = "") =>
    `{ "max_tokens":64,  "model": "${model}",\n "messages":[{"role":"user","content":"hi \\u00e9"}]${extra} }`;
  const nativeHeaders = (more: Record<string, string> = {}) => ({
    "content-type": "application/json",
    "x-notify-router-key": router.key,
    "x-api-key": CREDENTIAL,
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "some-beta-2026",
    "x-stainless-lang": "js",
    "user-agent": "agent-cli/1.2.3",
    "x-app": "cli",
    "x-claude-code-session-id": "sess-42",
    cookie: "c=1",
    "x-unrelated": "nope",
    ...more,
  });
  const send = (path: string, text: string, headers: Record<string, string>) =>
    raw(`${router.base}${path}`, { method: "POST", headers, body: text });

  it("forwards body bytes, query string and the client's own headers to the vendor's /messages", async () => {
    const text = body();
    const reply = await send("/messages?beta=true", text, nativeHeaders());
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.content[0].text).toContain("Hello");
    const hit = vendor.hits.at(-1);
    expect(hit?.path).toBe("/messages?beta=true");
    expect(hit?.raw.equals(Buffer.from(text))).toBe(true);
    const headers = hit?.headers ?? {};
    expect(headers["x-api-key"]).toBe(CREDENTIAL);
    expect(headers["anthropic-version"]).toBe("2023-06-01");
    expect(headers["anthropic-beta"]).toBe("some-beta-2026");
    expect(headers["x-stainless-lang"]).toBe("js");
    expect(headers["user-agent"]).toBe("agent-cli/1.2.3");
    expect(headers["x-app"]).toBe("cli");
    expect(headers["x-claude-code-session-id"]).toBe("sess-42");
    expect(headers["x-notify-router-key"]).toBeUndefined();
    expect(headers.cookie).toBeUndefined();
    expect(headers["x-unrelated"]).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
    const row = await router.nextLedgerRow(0);
    expect(row).toMatchObject({ route_kind: "native", upstream_slug: "native", upstream_model: MODEL, outcome: "ok" });
    expect(row.tokens.input).toBeGreaterThan(0);
  });

  it("forwards a bearer credential as it came, and count_tokens to the vendor's count_tokens", async () => {
    const headers: Record<string, string> = { ...nativeHeaders(), authorization: `Bearer ${CREDENTIAL}` };
    delete headers["x-api-key"];
    const reply = await send("/messages/count_tokens", body(), headers);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ input_tokens: 42 });
    const hit = vendor.hits.at(-1);
    expect(hit?.path).toBe("/messages/count_tokens");
    expect(hit?.headers.authorization).toBe(`Bearer ${CREDENTIAL}`);
    expect(hit?.headers["x-api-key"]).toBeUndefined();
  });

  it("streams with the official SDK (router key in x-notify-router-key, the SDK's key its own)", async () => {
    const client = new Anthropic({
      baseURL: `${router.broker.url}/router`,
      apiKey: CREDENTIAL,
      defaultHeaders: { "x-notify-router-key": router.key },
      maxRetries: 0,
    });
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    const message = await stream.finalMessage();
    expect(message.content[0]?.type === "text" && message.content[0].text).toContain("Hello");
    const hit = vendor.hits.at(-1);
    // Whichever header this SDK puts its key in, it arrives as the SDK sent it.
    expect(hit?.headers["x-api-key"] ?? hit?.headers.authorization?.replace(/^Bearer /, "")).toBe(CREDENTIAL);
    expect(hit?.headers["x-stainless-lang"]).toBeDefined();
    expect(hit?.body.stream).toBe(true);
  });

  it("a client sending the router key as its credential has no native route (unknown_model, vendor not asked)", async () => {
    const before = vendor.hits.length;
    const reply = await send("/messages", body(), { "content-type": "application/json", "x-api-key": router.key });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe("unknown_model");
    const both = await send("/messages", body(), {
      "content-type": "application/json",
      "x-notify-router-key": router.key,
      authorization: `Bearer ${router.key}`,
    });
    expect(both.status).toBe(404);
    expect(vendor.hits.length).toBe(before);
  });

  it("a non-native model, or another wire, is never sent to the vendor", async () => {
    const before = vendor.hits.length;
    const other = await send("/messages", body("gpt-other"), nativeHeaders());
    expect(other.status).toBe(404);
    const chat = await raw(`${router.base}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-notify-router-key": router.key,
        authorization: `Bearer ${CREDENTIAL}`,
      },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "x" }] }),
    });
    expect(chat.status).toBe(404);
    expect(vendor.hits.length).toBe(before);
  });

  it("a route the owner named like the model claims it (rule 1); the credential stays with the client", async () => {
    await router.addRoute(MODEL, "alias", ["routed/routed-model"]);
    try {
      const before = vendor.hits.length;
      const reply = await send("/messages", body(), nativeHeaders());
      expect(reply.status, reply.text).toBe(200);
      expect(vendor.hits.length).toBe(before);
      const hit = routed.hits.at(-1);
      expect(hit?.headers.authorization).toBe("Bearer sk-routed-key");
      expect(JSON.stringify(hit?.headers)).not.toContain(CREDENTIAL);
    } finally {
      expect((await router.ui("DELETE", `/router/routes/${MODEL}`)).status).toBe(204);
    }
  });

  it("without a fallback the vendor's error, body and retry-after pass unchanged, and nothing cools", async () => {
    const error = { type: "error", error: { type: "rate_limit_error", message: "VENDOR-TEXT slow down" } };
    for (let round = 0; round < 2; round++) {
      vendor.script.push({
        kind: "status",
        status: 429,
        body: error,
        headers: { "retry-after": "17", "request-id": "req_v" },
      });
      const reply = await send("/messages", body(), nativeHeaders());
      expect(reply.status).toBe(429);
      expect(reply.text).toBe(JSON.stringify(error));
      expect(reply.headers["retry-after"]).toBe("17");
      expect(reply.headers["request-id"]).toBe("req_v");
    }
    // Never cooled: the next request asks the vendor again.
    const ok = await send("/messages", body(), nativeHeaders());
    expect(ok.status).toBe(200);
    const row = (await router.activity(3))[1];
    expect(row).toMatchObject({ route_kind: "native", status: 429, error_code: "rate_limited" });
  });

  it("a request the vendor refuses as such (400) is not retried elsewhere even with fallbacks", async () => {
    await setRoutedModels([MODEL]);
    try {
      const before = routed.hits.length;
      vendor.script.push({
        kind: "status",
        status: 400,
        body: { type: "error", error: { type: "invalid_request_error", message: "x" } },
      });
      const reply = await send("/messages", body(), nativeHeaders());
      expect(reply.status).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request_error");
      expect(routed.hits.length).toBe(before);
    } finally {
      await setRoutedModels([]);
    }
  });

  it("a refusal moves on to the equivalent model at a provider, then native_fallback_route; credential never leaves", async () => {
    await settings({ switch_strategy: "ordered" });
    await setRoutedModels(["Claude-Native-9"]);
    try {
      vendor.script.push({
        kind: "status",
        status: 529,
        body: { type: "error", error: { type: "overloaded_error", message: "busy" } },
      });
      const reply = await send("/messages", body(), nativeHeaders());
      expect(reply.status, reply.text).toBe(200);
      const hit = routed.hits.at(-1);
      expect(hit?.body.model).toBe("Claude-Native-9");
      expect(JSON.stringify(hit?.headers)).not.toContain(CREDENTIAL);
      const row = (await router.activity(1))[0];
      expect(row).toMatchObject({ route_kind: "native", upstream_slug: "routed", outcome: "ok" });
      expect(row.attempts.map((attempt: { upstream_slug: string }) => attempt.upstream_slug)).toEqual([
        "native",
        "routed",
      ]);
    } finally {
      await setRoutedModels([]);
    }
    // Without an equivalent provider: the cross-model fallback route. (The vendor is resting after the 529 above
    // in ordered mode, so it comes after the fallback now.)
    await settings({ native_fallback_route: "fallback/fb-model" });
    try {
      const beforeVendor = vendor.hits.length;
      const reply = await send("/messages", body(), nativeHeaders());
      expect(reply.status, reply.text).toBe(200);
      expect(fallback.hits.at(-1)?.body.model).toBe("fb-model");
      expect(JSON.stringify(fallback.hits.at(-1)?.headers)).not.toContain(CREDENTIAL);
      expect(vendor.hits.length).toBe(beforeVendor);
    } finally {
      await settings({ native_fallback_route: null, switch_strategy: "off" });
    }
  });

  it("sticky stays on the routed fallback after the vendor refused", async () => {
    await settings({ switch_strategy: "sticky", native_fallback_route: "fallback/fb-model" });
    try {
      const first = await send("/messages", body("claude-sticky-1"), nativeHeaders());
      expect(first.status).toBe(200);
      const beforeVendor = vendor.hits.length;
      vendor.script.push({
        kind: "status",
        status: 401,
        body: { type: "error", error: { type: "authentication_error", message: "x" } },
      });
      const refused = await send("/messages", body("claude-sticky-1"), nativeHeaders());
      expect(refused.status).toBe(200);
      expect(vendor.hits.length).toBe(beforeVendor + 1);
      const beforeFallback = fallback.hits.length;
      for (let index = 0; index < 3; index++) {
        expect((await send("/messages", body("claude-sticky-1"), nativeHeaders())).status).toBe(200);
      }
      expect(vendor.hits.length).toBe(beforeVendor + 1);
      expect(fallback.hits.length).toBe(beforeFallback + 3);
    } finally {
      await settings({ native_fallback_route: null, switch_strategy: "off" });
    }
  });

  it("the client's credential is nowhere in the data dir or the log", async () => {
    await router.broker.logger.flush();
    const files = (function under(directory: string): string[] {
      return readdirSync(directory).flatMap((name) => {
        const path = join(directory, name);
        return statSync(path).isDirectory() ? under(path) : [path];
      });
    })(router.dataDir);
    expect(files.some((file) => file.includes("logs"))).toBe(true);
    const found = files
      .filter((file) => readFileSync(file).includes(CREDENTIAL))
      .map((file) => relative(router.dataDir, file));
    expect(found).toEqual([]);
  });
});
