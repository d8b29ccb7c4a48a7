import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Upstream } from "../src/config/records.js";
import { parseAgentAccounts } from "../src/subscriptions/agent-accounts.js";
import { conversationId, PROCESS_SESSION_ID } from "../src/subscriptions/conversation-id.js";
import { jsonValueSpans } from "../src/subscriptions/json-spans.js";
import { adjustPlanRequest } from "../src/subscriptions/plan-request.js";
import { monitoredCodexAccounts, planReconcile } from "../src/subscriptions/reconcile.js";
import { SigninA } from "../src/subscriptions/signin-a.js";
import { EXCHANGED_KEY_TTL_MS, SigninB } from "../src/subscriptions/signin-b.js";
import { accountDirectory, writeRenewedTokens } from "../src/subscriptions/signin-file.js";
import { UpstreamClient } from "../src/upstreams/client.js";

/**
 * Subscription upstreams as units: the sign-in file rewrite, renewal decisions (expiry window, a refused token, one
 * renewal at a time), the 23-hour key cache on an injected clock, request adjustments, conversation ids, and smart
 * switching rule 7's plan. Sign-in files have the Codex CLI's auth.json shape (openai/codex,
 * codex-rs/login/src/auth/storage.rs); the auth server is a loopback HTTP server speaking its token endpoint.
 */

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");
const jwt = (tag: string, expSeconds: number, account = "acct-1"): string =>
  `${b64({ alg: "none" })}.${b64({ exp: expSeconds, jti: tag, "https://api.openai.com/auth": { chatgpt_account_id: account } })}.sig`;

let dir: string;
let server: ReturnType<typeof createServer>;
let tokenUrl: string;
const hits: Record<string, string>[] = [];
/** Answers of the auth server, in order; when empty it succeeds. */
const script: { status: number; body: unknown; delayMs?: number }[] = [];
let issued = 0;
const client = new UpstreamClient();
const log = {
  lines: [] as string[],
  info(line: string) {
    this.lines.push(line);
  },
  warn(line: string) {
    this.lines.push(line);
  },
};
let clock = Date.now();
const now = () => clock;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "notify-signin-unit-"));
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const fields = String(request.headers["content-type"]).startsWith("application/json")
      ? (JSON.parse(raw) as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(raw));
    hits.push(fields);
    const next = script.shift();
    if (next?.delayMs) await new Promise((resolve) => setTimeout(resolve, next.delayMs));
    response.writeHead(next?.status ?? 200, { "content-type": "application/json" });
    issued += 1;
    const body =
      next?.body ??
      (fields.grant_type === "refresh_token"
        ? { access_token: jwt(`new-${issued}`, Math.floor(clock / 1000) + 3600), refresh_token: `rt-new-${issued}` }
        : { access_token: `sk-key-${issued}` });
    response.end(JSON.stringify(body));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

function signinFile(account: string, tokens: Record<string, string | undefined>): string {
  const home = join(dir, account);
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, "auth.json"),
    JSON.stringify({ OPENAI_API_KEY: null, tokens, last_refresh: "2026-01-01T00:00:00Z" }, null, 2),
  );
  return home;
}

const deps = () => ({ client, log, userAgent: "notify-router/test", now, env: { HOME: dir }, tokenUrl });

describe("the sign-in file rewrite", () => {
  it("finds value spans past escapes, arrays and nesting, and keeps the last of a repeated key", () => {
    const text = `{"a": "x\\"}", "tokens": {"arr": [1, {"access_token": "inner"}], "access_token":"old", "access_token": "last"}, "n": 2.50}`;
    const spans = jsonValueSpans(text, new Set(["tokens.access_token", "n", "a"]));
    const span = spans.get("tokens.access_token");
    expect(text.slice(span?.start, span?.end)).toBe('"last"');
    expect(text.slice(spans.get("n")?.start, spans.get("n")?.end)).toBe("2.50");
    expect(spans.get("n")?.isString).toBe(false);
    expect(text.slice(spans.get("a")?.start, spans.get("a")?.end)).toBe('"x\\"}"');
  });

  it("replaces only the renewed values; a file missing a field is written the way Codex writes it", () => {
    const home = join(dir, "rewrite");
    mkdirSync(home, { recursive: true });
    const path = join(home, "auth.json");
    const original = `{"tokens":{"id_token":"i1","access_token":"a1","refresh_token":"r1"},\n "last_refresh":"t0",  "x": 1.0}`;
    writeFileSync(path, original);
    writeRenewedTokens(path, { accessToken: "a2", refreshToken: "r2", idToken: "i2" }, new Date(0));
    expect(readFileSync(path, "utf8")).toBe(
      `{"tokens":{"id_token":"i2","access_token":"a2","refresh_token":"r2"},\n "last_refresh":"1970-01-01T00:00:00.000Z",  "x": 1.0}`,
    );
    writeFileSync(path, `{"tokens":{"access_token":"a1","refresh_token":"r1"},"last_refresh":"t0","keep":[1]}`);
    writeRenewedTokens(path, { accessToken: "a3", idToken: "i3" }, new Date(0));
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      tokens: { access_token: "a3", refresh_token: "r1", id_token: "i3" },
      last_refresh: "1970-01-01T00:00:00.000Z",
      keep: [1],
    });
  });

  it("names the account directory: profile:<dir>, ~/, or the default account", () => {
    expect(accountDirectory(null, { HOME: "/h" })).toBe("/h/.codex");
    expect(accountDirectory(null, { HOME: "/h", CODEX_HOME: "/c" })).toBe("/c");
    expect(accountDirectory("profile:/x/y", { HOME: "/h" })).toBe("/x/y");
    expect(accountDirectory("profile:~/work", { HOME: "/h" })).toBe("/h/work");
    expect(accountDirectory("profile:relative", { HOME: "/h" })).toBeUndefined();
    expect(accountDirectory(null, {})).toBeUndefined();
  });
});

describe("plan_signin_a renewal", () => {
  it("sends a token far from expiry as it is, with the account id of the file", async () => {
    const token = jwt("far", Math.floor(clock / 1000) + 3600);
    signinFile("far", { access_token: token, refresh_token: "rt", id_token: jwt("id", 0, "acct-far") });
    const before = hits.length;
    const result = await new SigninA(deps()).credential("s", `profile:${join(dir, "far")}`);
    expect(result).toEqual({
      ok: true,
      credential: { key: token, headers: { originator: "codex_cli_rs", "chatgpt-account-id": "acct-far" } },
    });
    expect(hits.length).toBe(before);
  });

  it("after a 401, uses the token the tool wrote meanwhile instead of renewing", async () => {
    const fresh = jwt("fresh", Math.floor(clock / 1000) + 3600);
    const home = signinFile("reread", { access_token: fresh, refresh_token: "rt", account_id: "acct-r" });
    const before = hits.length;
    const result = await new SigninA(deps()).credential("s", `profile:${home}`, "the-token-the-backend-refused");
    expect(result.ok && result.credential.key).toBe(fresh);
    expect(hits.length).toBe(before);
  });

  it("renews once for concurrent attempts inside the expiry window", async () => {
    const home = signinFile("window", {
      access_token: jwt("soon", Math.floor(clock / 1000) + 299),
      refresh_token: "rt-w",
    });
    const signin = new SigninA(deps());
    const before = hits.length;
    script.push({ status: 200, body: { access_token: jwt("renewed", Math.floor(clock / 1000) + 3600) }, delayMs: 30 });
    const [a, b] = await Promise.all([
      signin.credential("s", `profile:${home}`),
      signin.credential("s", `profile:${home}`),
    ]);
    expect(hits.length).toBe(before + 1);
    expect(hits.at(-1)).toMatchObject({ grant_type: "refresh_token", refresh_token: "rt-w" });
    expect(a.ok && a.credential.key).toBe(b.ok && b.credential.key);
    const file = JSON.parse(readFileSync(join(home, "auth.json"), "utf8"));
    expect(file.tokens.access_token).toBe(a.ok && a.credential.key);
    expect(file.tokens.refresh_token).toBe("rt-w"); // the answer rotated none: the old one stays
  });

  it("signed out: no file, no refresh token, a refused renewal; an unreachable auth server is not", async () => {
    const signin = new SigninA(deps());
    const missing = await signin.credential("s", `profile:${join(dir, "nobody")}`);
    expect(!missing.ok && missing.failure.code).toBe("subscription_signed_out");
    const expired = jwt("old", Math.floor(clock / 1000) - 10);
    const noRefresh = signinFile("norefresh", { access_token: expired });
    expect((await signin.credential("s", `profile:${noRefresh}`)).ok).toBe(false);
    const refused = signinFile("refused", { access_token: expired, refresh_token: "rt-x" });
    script.push({ status: 401, body: { error: "refresh_token_reused" } });
    const answer = await signin.credential("s", `profile:${refused}`);
    expect(!answer.ok && answer.failure.code).toBe("subscription_signed_out");
    expect(log.lines.at(-1)).toContain(`CODEX_HOME=${refused} codex login`);
    const down = new SigninA({ ...deps(), tokenUrl: "http://127.0.0.1:9/oauth/token" });
    const unreachable = await down.credential("s", `profile:${refused}`);
    expect(!unreachable.ok && unreachable.failure.code).toBe("connection_error");
    expect(log.lines.join("\n")).not.toContain("rt-x");
  });
});

describe("plan_signin_b key cache", () => {
  it("holds the exchanged key 23 hours by the injected clock, and exchanges again after a 401", async () => {
    const home = signinFile("exchange", { id_token: jwt("id", 0), access_token: "a", refresh_token: "r" });
    const signin = new SigninB(deps());
    const ref = `profile:${home}`;
    const before = hits.length;
    const first = await signin.credential("s", ref);
    expect(hits.at(-1)).toMatchObject({ requested_token: "openai-api-key", subject_token: jwt("id", 0) });
    clock += EXCHANGED_KEY_TTL_MS - 1;
    expect(await signin.credential("s", ref)).toEqual(first);
    expect(hits.length).toBe(before + 1);
    clock += 1;
    const second = await signin.credential("s", ref);
    expect(hits.length).toBe(before + 2);
    expect(second).not.toEqual(first);
    const third = await signin.credential("s", ref, second.ok ? second.credential.key : "");
    expect(hits.length).toBe(before + 3);
    expect(third).not.toEqual(second);
    script.push({ status: 400, body: { error: "invalid_grant" } });
    const refused = await signin.credential("s", ref, third.ok ? third.credential.key : "");
    expect(!refused.ok && refused.failure.code).toBe("subscription_signed_out");
  });
});

describe("request adjustments and conversation ids", () => {
  it("adjusts a plan_signin_a request", () => {
    const body = {
      model: "m",
      input: "x",
      store: true,
      stream: false,
      temperature: 1,
      top_p: 1,
      max_tokens: 1,
      max_output_tokens: 2,
      previous_response_id: "r",
    };
    expect(adjustPlanRequest(body)).toEqual({ model: "m", input: "x", store: false, stream: true, instructions: "" });
    expect(adjustPlanRequest({ instructions: "keep" }).instructions).toBe("keep");
  });

  it("takes the conversation id from headers, then fields, then the process", () => {
    expect(conversationId({ session_id: "h1" }, { prompt_cache_key: "b1" })).toBe("h1");
    expect(conversationId({}, { metadata: { session_id: "m1" } })).toBe("m1");
    expect(conversationId({ "x-session-id": "a b" }, {})).toBe(PROCESS_SESSION_ID);
  });
});

describe("smart switching rule 7", () => {
  const upstream = (slug: string, ref: string | null, created: string): Upstream => ({
    id: `ups_${slug}`,
    slug,
    label: slug,
    wire: "responses_wire",
    base_url: "https://chatgpt.com/backend-api/codex",
    has_key: false,
    models: ["gpt-5-codex"],
    enabled: true,
    auth: "plan_signin_a",
    model_wires: {},
    credential_ref: ref,
    created_at: created,
    updated_at: created,
  });

  it("re-points a duplicate at an unused account, adds a missing one, and leaves signed-out accounts out", () => {
    const env = { HOME: join(dir, "r7") };
    signinFile("r7/.codex", { access_token: "a", refresh_token: "r", account_id: "acct-default" });
    signinFile("r7/work", { access_token: "a", refresh_token: "r", account_id: "acct-work" });
    signinFile("r7/team", { access_token: "a", refresh_token: "r", account_id: "acct-team" });
    signinFile("r7/same", { access_token: "a", refresh_token: "r", account_id: "acct-work" });
    const entries = parseAgentAccounts([
      { agent: "codex", dir: "~/work", label: "Work" },
      { agent: "codex", dir: `${dir}/r7/team`, label: "Team" },
      { agent: "codex", dir: "~/same" },
      { agent: "codex", dir: "~/signed-out", label: "Gone" },
      { agent: "claude-code", dir: "~/.claude-work" },
      { agent: "other", dir: "/x" },
      { agent: "codex", dir: "relative/path" },
    ]);
    expect(entries.map((entry) => entry.dir)).toEqual([
      "~/work",
      `${dir}/r7/team`,
      "~/same",
      "~/signed-out",
      "~/.claude-work",
    ]);
    const accounts = monitoredCodexAccounts(env, entries);
    expect(accounts.map((account) => [account.label, account.accountKey !== undefined])).toEqual([
      ["default", true],
      ["Work", true],
      ["Team", true],
      ["same", true],
      ["Gone", false],
    ]);
    const upstreams = [
      upstream("codex", null, "2026-01-01"),
      upstream("codex-2", `profile:${dir}/r7/.codex`, "2026-01-02"),
      upstream("per-token", null, "2026-01-03"),
    ];
    upstreams[2] = { ...(upstreams[2] as Upstream), auth: "api_key" };
    const plan = planReconcile(upstreams, accounts, env);
    expect(plan.repoint).toEqual([{ id: "ups_codex-2", slug: "codex-2", credential_ref: `profile:${dir}/r7/work` }]);
    expect(plan.add.map((input) => [input.slug, input.credential_ref, input.auth])).toEqual([
      ["codex-team", `profile:${dir}/r7/team`, "plan_signin_a"],
    ]);
    expect(planReconcile([upstreams[2] as Upstream], accounts, env)).toEqual({ add: [], repoint: [] });
  });
});
