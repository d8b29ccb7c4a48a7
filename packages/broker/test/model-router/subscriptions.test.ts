import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type ModelMock, startModelMock } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Json, type RouterBroker, raw, startRouterBroker } from "./harness.js";
import { AuthMock, type FakeSignin, newSignin, writeSigninFile } from "./signin-fixtures.js";

/**
 * docs/router.md, "Subscriptions and saved accounts" end to end: a real broker, fake Codex sign-in files in a temp
 * HOME, and loopback servers for the auth server (renewal, key exchange) and the subscription backend (the responses
 * wire).
 */

let home: string;
let codexHome: string;
let auth: AuthMock;
let backend: ModelMock;
let local: ModelMock;
let router: RouterBroker;
/** Every secret a test put in a sign-in file (the final scan looks for each). */
const secrets: string[] = [];

const writeSignin = (dir: string, signin: FakeSignin): string => {
  secrets.push(signin.accessToken, signin.refreshToken, signin.idToken);
  return writeSigninFile(dir, signin);
};

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "notify-subs-home-"));
  codexHome = join(home, ".codex"); // the default account: ~/.codex (no CODEX_HOME set)
  auth = await new AuthMock().start();
  backend = await startModelMock("responses");
  local = await startModelMock("chat");
  router = await startRouterBroker({ env: { HOME: home }, routerTokenUrl: auth.url });
  await router.addUpstream({
    slug: "codex",
    wire: "responses",
    base_url: backend.url,
    models: ["gpt-5-codex"],
    auth: "plan_signin_a",
  });
  await router.addUpstream({ slug: "local", wire: "chat", base_url: local.url, models: ["gpt-5-codex"] });
});

afterAll(async () => {
  await router?.broker.close();
  if (router) rmSync(router.dataDir, { recursive: true, force: true });
  await Promise.all([auth?.close(), backend?.close(), local?.close()]);
  rmSync(home, { recursive: true, force: true });
});

const lastHit = (mock: ModelMock) => mock.hits.at(-1) as NonNullable<(typeof mock.hits)[number]>;

async function routerPost(path: string, body: unknown, headers: Record<string, string> = {}) {
  return raw(`${router.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-notify-router-key": router.key, ...headers },
    body: JSON.stringify(body),
  });
}

describe("plan_signin_a", () => {
  it("sends the sign-in's token with account and client headers, adjusted, and collects the stream (official SDK)", async () => {
    const signin = newSignin("oneshot", 3600);
    writeSignin(codexHome, signin);
    const authBefore = auth.hits.length;
    const reply = await router.openai().responses.create({
      model: "codex/gpt-5-codex",
      input: "hello",
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 300,
      store: true,
      previous_response_id: "resp_previous1",
    });
    expect(reply.output_text).toBe(backend.text);
    const hit = lastHit(backend);
    expect(hit.path).toBe("/responses");
    expect(hit.body.stream).toBe(true);
    expect(hit.body.store).toBe(false);
    expect(hit.body.instructions).toBe("");
    for (const removed of ["temperature", "top_p", "max_output_tokens", "max_tokens", "previous_response_id"]) {
      expect(hit.body).not.toHaveProperty(removed);
    }
    expect(hit.headers.authorization).toBe(`Bearer ${signin.accessToken}`);
    expect(hit.headers["chatgpt-account-id"]).toBe("acct-default");
    expect(hit.headers.originator).toBe("codex_cli_rs");
    expect(hit.headers["user-agent"]).toMatch(/^notify-router\/\d/);
    expect(hit.headers.session_id).toMatch(/^[A-Za-z0-9._:-]+$/);
    expect(hit.headers.accept).toBe("text/event-stream");
    expect(auth.hits.length).toBe(authBefore); // a token far from expiry is not renewed
    const row = await router.nextLedgerRow(0);
    expect(row.upstream_slug).toBe("codex");
    expect(row.tokens.input).toBe(120);
  });

  it("keeps an instructions string, and streams to a streaming client (official SDK)", async () => {
    writeSignin(codexHome, newSignin("stream", 3600));
    const stream = await router.openai().responses.create({
      model: "codex/gpt-5-codex",
      input: "hello",
      instructions: "be brief",
      stream: true,
    });
    let text = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
    expect(text).toBe(backend.text);
    expect(lastHit(backend).body.instructions).toBe("be brief");
    expect(lastHit(backend).body.stream).toBe(true);
  });

  it("collects the stream for a one-shot chat-wire client (translated hop)", async () => {
    writeSignin(codexHome, newSignin("chat", 3600));
    const completion = await router.openai().chat.completions.create({
      model: "codex/gpt-5-codex",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 50,
    });
    expect(completion.choices[0]?.message.content).toBe(backend.text);
    expect(lastHit(backend).body.stream).toBe(true);
    expect(lastHit(backend).body).not.toHaveProperty("max_output_tokens");
  });

  it("streams translated to a chat-wire client and collects for a messages-wire client (official SDKs)", async () => {
    writeSignin(codexHome, newSignin("translated", 3600));
    const chunks = await router.openai().chat.completions.create({
      model: "codex/gpt-5-codex",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    let text = "";
    for await (const chunk of chunks) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(backend.text);
    const message = await router.anthropic().messages.create({
      model: "codex/gpt-5-codex",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.content[0]?.type === "text" && message.content[0].text).toBe(backend.text);
    expect(lastHit(backend).body).toMatchObject({ stream: true, store: false, instructions: "" });
  });

  it("renews a token within five minutes of expiry and writes back only the token fields", async () => {
    const signin = newSignin("expiring", 120);
    const path = writeSignin(codexHome, signin);
    const before = readFileSync(path, "utf8");
    const authBefore = auth.hits.length;
    const reply = await router.openai().responses.create({ model: "codex/gpt-5-codex", input: "hi" });
    expect(reply.output_text).toBe(backend.text);
    expect(auth.hits.length).toBe(authBefore + 1);
    const refresh = auth.hits.at(-1) as (typeof auth.hits)[number];
    expect(refresh.contentType).toBe("application/json");
    expect(refresh.fields).toEqual({
      client_id: "app_EMoamEEZ73f0CkXaXp7hrann",
      grant_type: "refresh_token",
      refresh_token: signin.refreshToken,
      scope: "openid profile email",
    });
    const after = readFileSync(path, "utf8");
    const file = JSON.parse(after) as Json;
    expect(file.tokens.access_token).not.toBe(signin.accessToken);
    expect(lastHit(backend).headers.authorization).toBe(`Bearer ${file.tokens.access_token}`);
    // Byte for byte, except the renewed values: key order, spacing, `2.50`, unknown fields, account_id.
    const expected = before
      .replace(signin.accessToken, file.tokens.access_token)
      .replace(signin.refreshToken, file.tokens.refresh_token)
      .replace(signin.idToken, file.tokens.id_token)
      .replace("2026-11-20T08:00:00.000000Z", file.last_refresh);
    expect(after).toBe(expected);
    expect(file.last_refresh).not.toBe("2026-11-20T08:00:00.000000Z");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(codexHome)).toEqual(["auth.json"]); // no temporary file left behind
  });

  it("answers a backend 401 by reading the file again, renewing, and trying once more", async () => {
    const signin = newSignin("refused", 3600);
    writeSignin(codexHome, signin);
    const authBefore = auth.hits.length;
    const hitsBefore = backend.hits.length;
    const rows = await router.ledgerSize();
    backend.script.push({ kind: "status", status: 401, body: { error: { code: "token_expired" } } });
    const reply = await router.openai().responses.create({ model: "codex/gpt-5-codex", input: "hi" });
    expect(reply.output_text).toBe(backend.text);
    expect(auth.hits.length).toBe(authBefore + 1);
    const [first, second] = backend.hits.slice(hitsBefore);
    expect(first?.headers.authorization).toBe(`Bearer ${signin.accessToken}`);
    const renewed = JSON.parse(readFileSync(join(codexHome, "auth.json"), "utf8")) as Json;
    expect(second?.headers.authorization).toBe(`Bearer ${renewed.tokens.access_token}`);
    const row = await router.nextLedgerRow(rows);
    expect(row.attempts.map((attempt: Json) => attempt.status)).toEqual([401, 200]);
  });

  it("fails a signed-out account with subscription_signed_out, logs what to run, and the chain goes on", async () => {
    await router.addUpstream({
      slug: "codex-work",
      wire: "responses",
      base_url: backend.url,
      models: ["gpt-5-codex"],
      auth: "plan_signin_a",
      credential_ref: `profile:${join(home, "work-account")}`,
    });
    await router.addRoute("subs-chain", "combo", ["codex-work/gpt-5-codex", "local/gpt-5-codex"]);
    const rows = await router.ledgerSize();
    const completion = await router.openai().chat.completions.create({
      model: "subs-chain",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(completion.choices[0]?.message.content).toBe(local.text);
    const row = await router.nextLedgerRow(rows);
    expect(row.attempts[0].error_code).toBe("subscription_signed_out");
    expect(row.attempts[1].upstream_slug).toBe("local");
    const log = await logContaining(`CODEX_HOME=${join(home, "work-account")} codex login`);
    expect(log).toContain("router: upstream codex-work: subscription_signed_out");
  });

  it("an unrenewable sign-in (the auth server refuses) is subscription_signed_out", async () => {
    writeSignin(codexHome, newSignin("revoked", 60));
    auth.script.push({ status: 400, body: { error: "invalid_grant" } });
    const reply = await routerPost("/responses", { model: "codex/gpt-5-codex", input: "hi" });
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe("subscription_signed_out");
    expect(await logContaining("run `codex login`")).toContain("renewal refused (HTTP 400)");
  });
});

describe("the destination rule at the auth server", () => {
  it("follows no redirect from the token endpoint: the renewal fails and nothing reaches the other host", async () => {
    const elsewhere: string[] = [];
    const thief = createServer((request, response) => {
      elsewhere.push(`${request.method} ${request.url}`);
      request.resume();
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    thief.listen(0, "127.0.0.1");
    await once(thief, "listening");
    try {
      const signin = newSignin("redirected", 60);
      const path = writeSignin(codexHome, signin);
      const before = readFileSync(path, "utf8");
      const port = (thief.address() as AddressInfo).port;
      auth.script.push({ status: 307, body: {}, headers: { location: `http://127.0.0.1:${port}/oauth/token` } });
      const reply = await routerPost("/responses", { model: "codex/gpt-5-codex", input: "hi" });
      expect(reply.status).toBeGreaterThanOrEqual(500);
      expect(elsewhere).toEqual([]);
      expect(readFileSync(path, "utf8")).toBe(before);
    } finally {
      thief.closeAllConnections();
      await new Promise<void>((resolve) => thief.close(() => resolve()));
    }
  });
});

describe("plan_signin_b", () => {
  it("exchanges the identity token for a key once, and again after a 401", async () => {
    const signin = newSignin("exchange", 3600);
    writeSignin(codexHome, signin);
    await router.addUpstream({
      slug: "codex-key",
      wire: "chat",
      base_url: local.url,
      models: ["gpt-5-mini"],
      auth: "plan_signin_b",
    });
    const exchanges = () => auth.hits.filter((hit) => hit.fields.requested_token === "openai-api-key");
    const before = exchanges().length;
    const ask = () =>
      router
        .openai()
        .chat.completions.create({ model: "codex-key/gpt-5-mini", messages: [{ role: "user", content: "x" }] });
    await ask();
    await ask();
    expect(exchanges().length).toBe(before + 1);
    const exchange = exchanges().at(-1) as (typeof auth.hits)[number];
    expect(exchange.contentType).toBe("application/x-www-form-urlencoded");
    expect(exchange.fields).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      client_id: "app_EMoamEEZ73f0CkXaXp7hrann",
      requested_token: "openai-api-key",
      subject_token: signin.idToken,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    });
    const firstKey = lastHit(local).headers.authorization;
    expect(firstKey).toMatch(/^Bearer sk-exchanged-/);
    local.script.push({ kind: "status", status: 401, body: { error: { code: "invalid_api_key" } } });
    await ask();
    expect(exchanges().length).toBe(before + 2);
    expect(lastHit(local).headers.authorization).toMatch(/^Bearer sk-exchanged-/);
    expect(lastHit(local).headers.authorization).not.toBe(firstKey);
  });
});

const TOOL_KEY = "sk-TOOL-HELD-CANARY-6e6e6e";

describe("saved accounts", () => {
  const ACCOUNT_KEY = "sk-ACCOUNT-CANARY-4d4d4d";

  it("stores keys write-only, lends them per attempt, and a removed account is provider_key_unreadable", async () => {
    const created = await router.ui("POST", "/router/accounts", {
      provider: "openai",
      label: "Work",
      key: ACCOUNT_KEY,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.text).not.toContain(ACCOUNT_KEY);
    expect(created.body).toMatchObject({ provider: "openai", label: "Work", admin_only: false, has_key: true });
    const listed = await router.ui("GET", "/router/accounts");
    expect(listed.text).not.toContain(ACCOUNT_KEY);
    expect(listed.body.map((account: Json) => account.id)).toContain(created.body.id);

    const upstream = await router.ui("POST", "/router/upstreams", {
      slug: "by-account",
      wire: "chat_wire",
      base_url: local.url,
      models: ["acct-model"],
      enabled: true,
      key: "sk-typed-first",
      credential_ref: `api_account:${created.body.id}`,
    });
    expect(upstream.status).toBe(400); // a typed key and a reference in one change
    const saved = await router.ui("POST", "/router/upstreams", {
      slug: "by-account",
      wire: "chat_wire",
      base_url: local.url,
      models: ["acct-model"],
      enabled: true,
      credential_ref: `api_account:${created.body.id}`,
    });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body.has_key).toBe(false);
    const ask = () =>
      routerPost("/chat/completions", { model: "by-account/acct-model", messages: [{ role: "user", content: "x" }] });
    expect((await ask()).status).toBe(200);
    expect(lastHit(local).headers.authorization).toBe(`Bearer ${ACCOUNT_KEY}`);

    // A typed key replaces the reference; its removal too.
    const typed = await router.ui("PATCH", "/router/upstreams/by-account", { key: "sk-typed-second" });
    expect(typed.body.credential_ref).toBeNull();
    expect(typed.body.has_key).toBe(true);
    const back = await router.ui("PATCH", "/router/upstreams/by-account", {
      credential_ref: `api_account:${created.body.id}`,
    });
    expect(back.body).toMatchObject({ credential_ref: `api_account:${created.body.id}`, has_key: false });
    const cleared = await router.ui("PATCH", "/router/upstreams/by-account", { key: null });
    expect(cleared.body.credential_ref).toBeNull();
    await router.ui("PATCH", "/router/upstreams/by-account", { credential_ref: `api_account:${created.body.id}` });

    // An admin-only key is never offered as an upstream's key; an unknown account neither.
    const admin = await router.ui("POST", "/router/accounts", {
      provider: "openai",
      label: "Admin",
      key: "sk-admin-only-key",
      admin_only: true,
    });
    expect(admin.status).toBe(201);
    const refused = await router.ui("PATCH", "/router/upstreams/by-account", {
      credential_ref: `api_account:${admin.body.id}`,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("admin-only");
    expect(
      (await router.ui("PATCH", "/router/upstreams/by-account", { credential_ref: "api_account:acc_nope" })).status,
    ).toBe(400);

    expect((await router.ui("DELETE", `/router/accounts/${created.body.id}`)).status).toBe(204);
    expect((await router.ui("DELETE", `/router/accounts/${created.body.id}`)).status).toBe(404);
    const gone = await ask();
    expect(gone.status).toBe(503);
    expect(gone.body.error.code).toBe("provider_key_unreadable");
  });

  it("saves the plain key Codex holds only when asked (from_tool), sealed and never returned", async () => {
    const signin = newSignin("with-key", 3600);
    secrets.push(signin.accessToken, signin.refreshToken, signin.idToken);
    writeSigninFile(codexHome, signin, TOOL_KEY);
    const saved = await router.ui("POST", "/router/accounts", { from_tool: "codex", label: "Codex's key" });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ provider: "openai", label: "Codex's key", has_key: true });
    expect(saved.text).not.toContain(TOOL_KEY);
    expect((await router.ui("GET", "/router/accounts")).text).not.toContain(TOOL_KEY);
    await router.ui("POST", "/router/upstreams", {
      slug: "tool-key",
      wire: "chat_wire",
      base_url: local.url,
      models: ["tk"],
      enabled: true,
      credential_ref: `api_account:${saved.body.id}`,
    });
    const reply = await routerPost("/chat/completions", {
      model: "tool-key/tk",
      messages: [{ role: "user", content: "x" }],
    });
    expect(reply.status).toBe(200);
    expect(lastHit(local).headers.authorization).toBe(`Bearer ${TOOL_KEY}`);
    for (const [body, error] of [
      [{ from_tool: "codex", key: "k" }, "not both"],
      [{ from_tool: "vim" }, "from_tool must be"],
      [{ from_tool: "codex", provider: "anthropic" }, "provider openai"],
    ] as const) {
      const refused = await router.ui("POST", "/router/accounts", body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toContain(error);
      expect(refused.text).not.toContain(TOOL_KEY);
    }
    writeSigninFile(codexHome, signin);
    const none = await router.ui("POST", "/router/accounts", { from_tool: "codex" });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe("codex holds no API key");
  });

  it("refuses malformed accounts with 400 and unknown fields", async () => {
    for (const body of [
      {},
      { provider: "Open AI", key: "k" },
      { provider: "openai", key: "" },
      { provider: "openai", key: "k", admin_only: "yes" },
      { provider: "openai", key: "k", extra: 1 },
      { provider: "openai", key: "a\nb" },
    ]) {
      const reply = await router.ui("POST", "/router/accounts", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(typeof reply.body.error).toBe("string");
    }
    const relative = await router.ui("PATCH", "/router/upstreams/codex", { credential_ref: "profile:relative/dir" });
    expect(relative.status).toBe(400);
    expect(relative.body.error).toContain("absolute or ~/");
  });
});

describe("the flat-plan session header", () => {
  it("carries the agent's conversation id, else one id per process", async () => {
    const flat = await startRouterBroker({ routerFlatPlanHosts: new Set(["127.0.0.1"]) });
    const mock = await startModelMock("chat");
    try {
      await flat.addUpstream({ slug: "flat", wire: "chat", base_url: mock.url, models: ["glm"] });
      const post = (headers: Record<string, string>, extra: object = {}) =>
        raw(`${flat.base}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-notify-router-key": flat.key, ...headers },
          body: JSON.stringify({ model: "flat/glm", messages: [{ role: "user", content: "x" }], ...extra }),
        });
      expect((await post({ session_id: "conv-abc-123" })).status).toBe(200);
      expect(lastHit(mock).headers["x-opencode-session"]).toBe("conv-abc-123");
      expect((await post({ "x-claude-code-session-id": "cc-session-9" })).status).toBe(200);
      expect(lastHit(mock).headers["x-opencode-session"]).toBe("cc-session-9");
      expect((await post({}, { prompt_cache_key: "codex-conv-7" })).status).toBe(200);
      expect(lastHit(mock).headers["x-opencode-session"]).toBe("codex-conv-7");
      await post({});
      const fallback = lastHit(mock).headers["x-opencode-session"];
      expect(fallback).toMatch(/^[0-9a-f-]{36}$/);
      await post({ session_id: "bad value\twith tab" });
      expect(lastHit(mock).headers["x-opencode-session"]).toBe(fallback);
      expect(lastHit(mock).headers["user-agent"]).toMatch(/^notify-router\//);
      // Not a flat-plan host: no session header.
      expect(local.hits.every((hit) => hit.headers["x-opencode-session"] === undefined)).toBe(true);
    } finally {
      await flat.close();
      await mock.close();
    }
  });
});

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The log once it holds `text` (lines are written off the request path). */
async function logContaining(text: string): Promise<string> {
  for (let tries = 0; tries < 300; tries++) {
    const log = readLogs(router.dataDir);
    if (log.includes(text)) return log;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the log never said: ${text}`);
}

function readLogs(dataDir: string): string {
  return filesUnder(join(dataDir, "logs"))
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");
}

describe("secrecy", () => {
  it("no token, exchanged key or account key is in any file of the data dir or the logs", async () => {
    await router.broker.close();
    const canaries = [
      ...secrets,
      ...auth.issued,
      "sk-ACCOUNT-CANARY-4d4d4d",
      TOOL_KEY,
      "sk-typed-second",
      "sk-admin-only-key",
    ];
    expect(auth.issued.length).toBeGreaterThan(3);
    const found: string[] = [];
    for (const file of filesUnder(router.dataDir)) {
      const name = relative(router.dataDir, file);
      if (name === "secret.key") continue;
      const bytes = readFileSync(file);
      for (const canary of canaries) if (bytes.includes(canary)) found.push(`${name}: ${canary.slice(0, 12)}…`);
    }
    expect(found).toEqual([]);
  });
});
