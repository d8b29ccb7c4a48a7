import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { type Json, raw } from "./harness.js";

/**
 * POST /ui/api/router/models/fetch and GET /ui/api/router/presets (docs/router.md, "Fetching model lists") against real
 * model servers on loopback: the three reply shapes, the 4 MiB and 500-model caps, no redirects, the destination rule,
 * which key goes where (typed, stored only while the base URL is unchanged, another tool's only when asked), and the
 * host tool's cache.
 */

const CODEX_KEY = "sk-codex-held-key-0123456789-SECRET";
const CLAUDE_KEY = "sk-ant-claude-held-key-9876543210-SECRET";
const TYPED_KEY = "sk-typed-key-for-the-fetch-SECRET";
const STORED_KEY = "sk-stored-upstream-key-SECRET";
const PROVIDER_TEXT = "PROVIDER-ERROR-BODY-never-shown";

/**
 * Codex's own cache of its backend's model list, in the shape Codex writes it (openai/codex
 * codex-rs/core/src/models_manager/cache.rs `ModelsCache` {fetched_at, etag, client_version, models}; each entry a
 * `ModelInfo` with slug, display_name, visibility list|hide|none, supported_in_api, priority; fields trimmed).
 */
const CODEX_MODELS_CACHE = {
  fetched_at: "2026-11-23T20:00:00.000000Z",
  etag: 'W/"abc"',
  client_version: "0.63.0",
  models: [
    {
      slug: "gpt-5.1-codex-mini",
      display_name: "gpt-5.1-codex-mini",
      visibility: "list",
      supported_in_api: true,
      priority: 3,
    },
    {
      slug: "codex-auto-review",
      display_name: "Codex Auto Review",
      visibility: "hide",
      supported_in_api: false,
      priority: 43,
    },
    { slug: "gpt-5.2-codex", display_name: "gpt-5.2-codex", visibility: "list", supported_in_api: true, priority: 1 },
    { slug: "gpt-5.1", display_name: "gpt-5.1", visibility: "none", supported_in_api: true, priority: 9 },
    { slug: "gpt-5.2", display_name: "gpt-5.2", visibility: "list", supported_in_api: true, priority: 2 },
  ],
};

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

/** One loopback "provider" whose GET <prefix>/models answers per prefix. */
class ModelServer {
  readonly seen: Seen[] = [];
  /** Set when a client hung up before the whole body was written. */
  aborted = 0;
  url = "";
  private readonly server: Server = createServer((request, response) => {
    this.seen.push({ path: request.url ?? "", headers: request.headers });
    request.resume();
    this.answer(request.url ?? "", response);
  });

  /** Answers one request; what it returns is ignored (early returns end each case). */
  private answer(path: string, response: ServerResponse): unknown {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): unknown =>
      response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    if (path === "/data/v1/models")
      return json(200, {
        object: "list",
        data: [{ id: "claude-sonnet-4-6" }, { id: "gpt-5.4" }, { id: "gemini-3-flash" }, { id: "kimi-k2.5" }],
      });
    if (path === "/bare/v1/models") return json(200, [{ id: "meta-llama/Llama-3.3-70B" }, "qwen/qwen3-coder"]);
    if (path === "/named/v1/models") return json(200, { models: [{ name: "qwen3:8b" }, { name: "llama3.2:3b" }] });
    if (path === "/many/v1/models")
      return json(200, { data: Array.from({ length: 600 }, (_, index) => ({ id: `model-${index}` })) });
    if (path === "/refuse/v1/models") return json(401, { error: { message: PROVIDER_TEXT } });
    if (path === "/odd/v1/models") return json(200, { nothing: PROVIDER_TEXT });
    if (path === "/redirect/v1/models") {
      response.writeHead(302, { location: `${target.url}/data/v1/models`, "set-cookie": "session=abc" });
      return void response.end();
    }
    if (path === "/huge/v1/models") {
      // Chunked (no Content-Length), 64 KiB at a time, well past 4 MiB: the broker must stop reading.
      response.writeHead(200, { "content-type": "application/json" });
      response.on("close", () => {
        if (!response.writableFinished) this.aborted++;
      });
      response.write('{"data":[');
      const chunk = `${'{"id":"x"},'.repeat(6000)}`;
      let sent = 0;
      const pump = (): unknown => {
        while (sent < 200 && !response.destroyed) {
          sent++;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        if (!response.destroyed) response.end('{"id":"y"}]}');
      };
      return pump();
    }
    json(404, { error: "no such path" });
  }

  async start(): Promise<this> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let provider: ModelServer;
let target: ModelServer;
let broker: RunningBroker;
let home: string;
let dataDir: string;

const ui = (method: string, path: string, body?: unknown) =>
  raw(`${broker.url}/ui/api${path}`, {
    method,
    headers: {
      "x-notify-ui": "1",
      authorization: `Bearer ${broker.settings.authToken}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const fetchModels = (body: unknown) => ui("POST", "/router/models/fetch", body);
const lastSeen = () => provider.seen.at(-1);

beforeAll(async () => {
  provider = await new ModelServer().start();
  target = await new ModelServer().start();
  home = mkdtempSync(join(tmpdir(), "notify-tools-home-"));
  mkdirSync(join(home, ".codex"));
  writeFileSync(
    join(home, ".codex", "auth.json"),
    // The shape Codex writes (openai/codex codex-rs/login/src/auth/storage.rs, AuthDotJson).
    JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: CODEX_KEY, tokens: null, last_refresh: null }),
  );
  writeFileSync(join(home, ".codex", "models_cache.json"), JSON.stringify(CODEX_MODELS_CACHE));
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ numStartups: 3, primaryApiKey: CLAUDE_KEY }));
  dataDir = mkdtempSync(join(tmpdir(), "notify-fetch-"));
  broker = await startBroker({
    dataDir,
    port: 0,
    env: { HOME: home },
    // The tools' keys belong to the loopback provider here (the vendors' public APIs otherwise).
    keyOrigins: { codex: provider.url, claude_code: provider.url },
  });
});

afterAll(async () => {
  await broker?.close();
  await provider?.close();
  await target?.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe("GET /ui/api/router/presets", () => {
  it("lists the fifteen presets with their rules and key sources, reading nothing", async () => {
    const reply = await ui("GET", "/router/presets");
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(15);
    const openai = reply.body.find((preset: Json) => preset.slug === "openai");
    expect(openai).toMatchObject({ wire: "responses_wire", base_url: "https://api.openai.com/v1", needs_key: true });
    expect(openai.key_sources).toEqual([{ id: "codex", label: "the key Codex holds" }]);
    expect(reply.text).not.toContain(CODEX_KEY);
  });
});

describe("POST /ui/api/router/models/fetch", () => {
  it("reads {data:[{id}]} with each model's wire from the gateway preset's rules; unspoken wires left out", async () => {
    const reply = await fetchModels({ preset: "opencode-zen", base_url: `${provider.url}/data/v1`, key: TYPED_KEY });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      models: [
        { id: "claude-sonnet-4-6", wire: "messages_wire" },
        { id: "gpt-5.4", wire: "responses_wire" },
        { id: "kimi-k2.5", wire: "chat_wire" },
      ],
      truncated: false,
      left_out: 1,
      source: "provider",
    });
    expect(lastSeen()?.path).toBe("/data/v1/models");
    expect(lastSeen()?.headers.authorization).toBe(`Bearer ${TYPED_KEY}`);
    expect(lastSeen()?.headers["user-agent"]).toMatch(/^notify-router\//);
    expect(lastSeen()?.headers.cookie).toBeUndefined();
    expect(reply.text).not.toContain(TYPED_KEY);
  });

  it("reads a bare array and {models:[{name}]} (a custom provider on the upstream's own wire)", async () => {
    const bare = await fetchModels({ base_url: `${provider.url}/bare/v1`, wire: "chat_wire" });
    expect(bare.body.models).toEqual([
      { id: "meta-llama/Llama-3.3-70B", wire: "chat_wire" },
      { id: "qwen/qwen3-coder", wire: "chat_wire" },
    ]);
    expect(lastSeen()?.headers.authorization).toBeUndefined();
    const named = await fetchModels({ base_url: `${provider.url}/named/v1` });
    expect(named.body.models.map((model: Json) => model.id)).toEqual(["qwen3:8b", "llama3.2:3b"]);
  });

  it("sends a messages-wire key as x-api-key with anthropic-version", async () => {
    const reply = await fetchModels({ base_url: `${provider.url}/data/v1`, wire: "messages_wire", key: TYPED_KEY });
    expect(reply.status).toBe(200);
    expect(lastSeen()?.headers["x-api-key"]).toBe(TYPED_KEY);
    expect(lastSeen()?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(lastSeen()?.headers.authorization).toBeUndefined();
  });

  it("keeps the first 500 of a longer list and says so", async () => {
    const reply = await fetchModels({ base_url: `${provider.url}/many/v1` });
    expect(reply.body.models).toHaveLength(500);
    expect(reply.body.models[499].id).toBe("model-499");
    expect(reply.body.truncated).toBe(true);
  });

  it("stops reading a reply past 4 MiB: 502 and the connection dropped", async () => {
    const reply = await fetchModels({ base_url: `${provider.url}/huge/v1` });
    expect(reply.status).toBe(502);
    expect(reply.body).toEqual({ error: "the model list is larger than 4 MiB" });
    for (let tries = 0; tries < 200 && provider.aborted === 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(provider.aborted).toBe(1);
  });

  it("follows no redirect and sends no cookie on", async () => {
    const before = target.seen.length;
    const reply = await fetchModels({ base_url: `${provider.url}/redirect/v1`, key: TYPED_KEY });
    expect(reply.status).toBe(502);
    expect(reply.body.error).toMatch(/answered 302 \(redirects are not followed\)$/);
    expect(target.seen.length).toBe(before);
  });

  it("never echoes the provider's body: a refusal or an unknown shape is 502 with our own words", async () => {
    const refused = await fetchModels({ base_url: `${provider.url}/refuse/v1`, key: TYPED_KEY });
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({ error: `${new URL(provider.url).host} answered 401` });
    const odd = await fetchModels({ base_url: `${provider.url}/odd/v1` });
    expect(odd.status).toBe(502);
    for (const reply of [refused, odd]) {
      expect(reply.text).not.toContain(PROVIDER_TEXT);
      expect(reply.text).not.toContain(TYPED_KEY);
    }
  });

  it("refuses base URLs that break the destination rule, without sending anything", async () => {
    const before = provider.seen.length;
    for (const base_url of [
      "http://example.com/v1",
      "ftp://127.0.0.1/v1",
      `http://user:pw@${new URL(provider.url).host}/v1`,
      `${provider.url}/v1?x=1`,
      `${provider.url}/v1#frag`,
      "not a url",
    ]) {
      const reply = await fetchModels({ base_url, key: TYPED_KEY });
      expect(reply.status, base_url).toBe(400);
      expect(reply.body.error).toEqual(expect.any(String));
    }
    expect(provider.seen.length).toBe(before);
  });

  it("refuses bad bodies: unknown fields, unknown preset, key and key_source together; 404 for an unknown upstream", async () => {
    expect((await fetchModels({ base_url: `${provider.url}/data/v1`, extra: 1 })).status).toBe(400);
    expect((await fetchModels({ preset: "nope" })).status).toBe(400);
    expect((await fetchModels({ base_url: provider.url, key: "k", key_source: "codex" })).status).toBe(400);
    expect((await fetchModels({ base_url: provider.url, wire: "carrier_pigeon" })).status).toBe(400);
    expect((await fetchModels([1, 2])).status).toBe(400);
    expect((await fetchModels({})).body).toEqual({ error: "base_url is required" });
    expect((await fetchModels({ upstream: "ups_nope" })).status).toBe(404);
  });

  it("uses the stored key only while the base URL is unchanged, and saves nothing", async () => {
    const saved = await ui("POST", "/router/upstreams", {
      slug: "stored",
      wire: "chat_wire",
      base_url: `${provider.url}/data/v1`,
      key: STORED_KEY,
    });
    expect(saved.status, saved.text).toBe(201);
    const listBefore = (await ui("GET", "/router/upstreams")).text;
    const same = await fetchModels({ upstream: saved.body.id });
    expect(same.status).toBe(200);
    expect(lastSeen()?.headers.authorization).toBe(`Bearer ${STORED_KEY}`);
    const moved = await fetchModels({ upstream: "stored", base_url: `${provider.url}/bare/v1` });
    expect(moved.status).toBe(200);
    expect(lastSeen()?.path).toBe("/bare/v1/models");
    expect(lastSeen()?.headers.authorization).toBeUndefined();
    expect((await ui("GET", "/router/upstreams")).text).toBe(listBefore);
  });

  it("reads another tool's key only when asked, only for that tool's provider", async () => {
    const notAsked = await fetchModels({ preset: "openai", base_url: `${provider.url}/data/v1` });
    expect(notAsked.status).toBe(200);
    expect(lastSeen()?.headers.authorization).toBeUndefined();

    const codex = await fetchModels({ base_url: `${provider.url}/data/v1`, key_source: "codex" });
    expect(codex.status, codex.text).toBe(200);
    expect(lastSeen()?.headers.authorization).toBe(`Bearer ${CODEX_KEY}`);
    const claude = await fetchModels({
      base_url: `${provider.url}/data/v1`,
      wire: "messages_wire",
      key_source: "claude_code",
    });
    expect(claude.status).toBe(200);
    expect(lastSeen()?.headers["x-api-key"]).toBe(CLAUDE_KEY);

    const before = target.seen.length;
    const elsewhere = await fetchModels({ base_url: `${target.url}/data/v1`, key_source: "codex" });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toBe(`key_source codex holds a key for ${provider.url} only`);
    expect(target.seen.length).toBe(before);
    for (const reply of [codex, claude, elsewhere]) {
      expect(reply.text).not.toContain(CODEX_KEY);
      expect(reply.text).not.toContain(CLAUDE_KEY);
    }
  });

  it("a subscription preset reads the host tool's cached list (visibility list, priority order), asking no one", async () => {
    const before = provider.seen.length;
    const reply = await fetchModels({ preset: "codex-plan" });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      models: [
        { id: "gpt-5.2-codex", wire: "responses_wire" },
        { id: "gpt-5.2", wire: "responses_wire" },
        { id: "gpt-5.1-codex-mini", wire: "responses_wire" },
      ],
      truncated: false,
      left_out: 0,
      source: "host_cache",
    });
    // A saved sign-in upstream reads the same cache.
    const saved = await ui("POST", "/router/upstreams", { preset: "codex-plan", models: ["gpt-5.2"] });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ slug: "codex-plan", auth: "plan_signin_a", wire: "responses_wire" });
    expect((await fetchModels({ upstream: "codex-plan" })).body.source).toBe("host_cache");
    expect(provider.seen.length).toBe(before);

    const cachePath = join(home, ".codex", "models_cache.json");
    rmSync(cachePath);
    const missing = await fetchModels({ preset: "codex-plan" });
    expect(missing.status).toBe(502);
    expect(missing.body).toEqual({ error: "Codex's models_cache.json was not found" });
    writeFileSync(cachePath, JSON.stringify(CODEX_MODELS_CACHE));
  });

  it("does not even parse another tool's file unless asked", async () => {
    const authPath = join(home, ".codex", "auth.json");
    const good = readFileSync(authPath);
    writeFileSync(authPath, "{ not json");
    try {
      expect((await fetchModels({ preset: "openai", base_url: `${provider.url}/data/v1` })).status).toBe(200);
      const asked = await fetchModels({ base_url: `${provider.url}/data/v1`, key_source: "codex" });
      expect(asked.status).toBe(400);
      expect(asked.body).toEqual({ error: "Codex's auth.json is not readable JSON" });
    } finally {
      writeFileSync(authPath, good);
    }
  });

  it("a preset save fills the record and model_wires from its prefix rules", async () => {
    const saved = await ui("POST", "/router/upstreams", {
      preset: "opencode-zen",
      key: TYPED_KEY,
      models: ["claude-opus-4-7", "gpt-5.4", "gemini-3-flash", "glm-5"],
    });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({
      slug: "opencode-zen",
      label: "OpenCode Zen",
      wire: "chat_wire",
      base_url: "https://opencode.ai/zen/v1",
      auth: "api_key",
      has_key: true,
      models: ["claude-opus-4-7", "gpt-5.4", "glm-5"],
      model_wires: { "claude-opus-4-7": "messages_wire", "gpt-5.4": "responses_wire" },
    });
    // A later model list on the same base URL is wired by the same rules.
    const patched = await ui("PATCH", "/router/upstreams/opencode-zen", { models: ["qwen3.6-plus", "kimi-k2.5"] });
    expect(patched.body.model_wires).toEqual({ "qwen3.6-plus": "messages_wire" });
    expect((await ui("POST", "/router/upstreams", { preset: "nope" })).status).toBe(400);
  });

  it("saves an upstream with the other tool's key sealed, never returned, on no disk or log", async () => {
    const saved = await ui("POST", "/router/upstreams", {
      slug: "codex-key",
      wire: "responses_wire",
      base_url: `${provider.url}/data/v1`,
      key_source: "codex",
      models: ["gpt-5.4"],
    });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body.has_key).toBe(true);
    const fetched = await fetchModels({ upstream: "codex-key" });
    expect(fetched.status).toBe(200);
    expect(lastSeen()?.headers.authorization).toBe(`Bearer ${CODEX_KEY}`);
    const elsewhere = await ui("POST", "/router/upstreams", {
      slug: "codex-elsewhere",
      wire: "chat_wire",
      base_url: `${target.url}/v1`,
      key_source: "codex",
    });
    expect(elsewhere.status).toBe(400);

    const listed = await ui("GET", "/router/upstreams");
    for (const text of [saved.text, listed.text, elsewhere.text]) {
      expect(text).not.toContain(CODEX_KEY);
      expect(text).not.toContain(CLAUDE_KEY);
    }
    await broker.close();
    // Every file of the data dir, logs and router.db included: no key in the clear.
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(dataDir);
    expect(files.some((path) => path.includes("logs"))).toBe(true);
    for (const path of files) {
      const bytes = readFileSync(path);
      for (const secret of [CODEX_KEY, CLAUDE_KEY, TYPED_KEY, STORED_KEY]) {
        expect(bytes.includes(secret), `${path} holds a key`).toBe(false);
      }
    }
    broker = await startBroker({ dataDir, port: 0, env: { HOME: home } });
  });
});
