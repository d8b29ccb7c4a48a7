import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand } from "../../src/http/ui/status-page.js";
import { DEFAULT_UI_DIR } from "../../src/http/ui/ui-static.js";
import { type Json, type TestBroker, tempDir, testBroker } from "../helpers.js";

const UI = { "x-notify-ui": "1" };

/** app.inject without the bearer token (the helper's `call` adds it). */
async function bare(
  broker: TestBroker,
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  const response = await broker.app.inject({
    method: method as "GET",
    url,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return response;
}

/** Signs in through a fresh login link; returns the Cookie header value. */
async function signIn(broker: TestBroker): Promise<string> {
  const { token } = broker.uiSessions.createLinkToken();
  const login = await bare(broker, "GET", `/ui/login?t=${token}`);
  expect(login.statusCode).toBe(303);
  expect(login.headers.location).toBe("/ui/");
  const setCookie = String(login.headers["set-cookie"]);
  return setCookie.split(";")[0] ?? "";
}

describe("/ui/api session", () => {
  it("refuses a request with neither a session nor the bearer token with 401", async () => {
    const broker = testBroker();
    for (const url of [
      "/ui/api/inbox",
      "/ui/api/session",
      "/ui/api/outbound/providers",
      "/ui/api/router/status",
      "/ui/api/presentation",
      "/ui/api/stream",
    ]) {
      const response = await bare(broker, "GET", url);
      expect(response.statusCode, url).toBe(401);
      expect(response.json()).toEqual({ error: "unauthorized" });
    }
    const change = await bare(broker, "PUT", "/ui/api/presentation", UI, { volume: 10 });
    expect(change.statusCode).toBe(401);
    expect((await bare(broker, "GET", "/ui/api/inbox", { authorization: "Bearer wrong" })).statusCode).toBe(401);
  });

  it("lets the bearer token in (the CLI's way)", async () => {
    const broker = testBroker();
    const reply = await broker.call("GET", "/ui/api/session");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ via: "bearer" });
  });

  it("turns a one-time login link into an HttpOnly, SameSite=Strict session cookie", async () => {
    const broker = testBroker();
    const { token } = broker.uiSessions.createLinkToken();
    const login = await bare(broker, "GET", `/ui/login?t=${token}`);
    expect(login.statusCode).toBe(303);
    const setCookie = String(login.headers["set-cookie"]);
    expect(setCookie).toMatch(/^notify_session=[^;]+; Path=\/ui; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(login.headers["cache-control"]).toBe("no-store");
    const cookie = setCookie.split(";")[0] ?? "";

    const inbox = await bare(broker, "GET", "/ui/api/inbox", { cookie });
    expect(inbox.statusCode).toBe(200);
    expect(inbox.json()).toMatchObject({ notifications: [], interactions: [], cursor: expect.any(String) });
    expect((await bare(broker, "GET", "/ui/api/session", { cookie })).json()).toMatchObject({ via: "session" });

    // The link works once.
    const again = await bare(broker, "GET", `/ui/login?t=${token}`);
    expect(again.statusCode).toBe(401);
    expect(again.headers["set-cookie"]).toBeUndefined();
    expect(again.body).toContain("notify open");
    // The app's look (issue 21, item 17): its colours, a phone viewport, and a CSP that lets only that style in.
    expect(again.body).toContain('<meta name="viewport"');
    expect(again.body).toContain("--bg:#f6f7f9");
    expect(again.body).toContain("prefers-color-scheme:dark");
    expect(again.headers["content-security-policy"]).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(again.headers["content-security-policy"]).not.toContain("script-src");
    expect((await bare(broker, "GET", "/ui/login?t=made-up")).statusCode).toBe(401);
    expect((await bare(broker, "GET", "/ui/login")).statusCode).toBe(401);
    // Neither link nor cookie reaches the log.
    expect(broker.lines.join("\n")).not.toContain(token);
    expect(broker.lines.join("\n")).not.toContain(cookie.split("=")[1]);
  });

  it("a HEAD on a login link never uses it up (issue 21, item 1)", async () => {
    const broker = testBroker();
    const { token } = broker.uiSessions.createLinkToken();
    for (let i = 0; i < 3; i++) {
      const head = await bare(broker, "HEAD", `/ui/login?t=${token}`);
      expect(head.statusCode).toBe(200);
      expect(head.headers["set-cookie"]).toBeUndefined();
    }
    expect((await bare(broker, "HEAD", "/ui/login?t=made-up")).statusCode).toBe(401);
    const login = await bare(broker, "GET", `/ui/login?t=${token}`);
    expect(login.statusCode).toBe(303);
    expect(String(login.headers["set-cookie"])).toMatch(/^notify_session=/);
    expect((await bare(broker, "HEAD", `/ui/login?t=${token}`)).statusCode).toBe(401);
  });

  it("a used link in a browser already signed in goes on to the page", async () => {
    const broker = testBroker();
    const { token } = broker.uiSessions.createLinkToken();
    const login = await bare(broker, "GET", `/ui/login?t=${token}&next=/ui/settings`);
    const cookie = String(login.headers["set-cookie"]).split(";")[0] ?? "";
    const reload = await bare(broker, "GET", `/ui/login?t=${token}&next=/ui/settings`, { cookie });
    expect(reload.statusCode).toBe(303);
    expect(reload.headers.location).toBe("/ui/settings");
    expect(reload.headers["set-cookie"]).toBeUndefined();
  });

  it("names the command as this user runs it: npx notify from a checkout, notify when installed (issue 21, item 17)", async () => {
    const fromCheckout = cliCommand({ PATH: `${join(process.cwd(), "node_modules", ".bin")}:/usr/bin:/bin` });
    expect(fromCheckout.command).toBe("npx notify");
    expect(fromCheckout.checkout).toBeDefined();
    expect(existsSync(join(fromCheckout.checkout ?? "", "packages", "broker", "bin", "notify"))).toBe(true);
    // An `npm install -g`: a prefix's bin/notify that links to this very CLI.
    const prefix = tempDir();
    mkdirSync(join(prefix, "bin"));
    symlinkSync(
      join(fromCheckout.checkout ?? "", "packages", "broker", "bin", "notify"),
      join(prefix, "bin", "notify"),
    );
    expect(cliCommand({ PATH: `${join(prefix, "bin")}:/usr/bin` })).toEqual({ command: "notify" });
    // Another program called notify is not ours.
    const other = tempDir();
    writeFileSync(join(other, "notify"), "#!/bin/sh\n", { mode: 0o755 });
    expect(cliCommand({ PATH: other }).command).toBe("npx notify");
  });

  it("refuses a tampered or expired cookie, and a link used after an hour", async () => {
    const broker = testBroker();
    const cookie = await signIn(broker);
    const [name, value = ""] = cookie.split("=");
    const tampered = `${name}=${value.slice(0, -2)}${value.endsWith("AA") ? "BB" : "AA"}`;
    expect((await bare(broker, "GET", "/ui/api/inbox", { cookie: tampered })).statusCode).toBe(401);
    const otherExpiry = `${name}=${value.replace(/^v1\.[0-9a-z]+\./, "v1.zzzzzzzz.")}`;
    expect((await bare(broker, "GET", "/ui/api/inbox", { cookie: otherExpiry })).statusCode).toBe(401);

    const { token } = broker.uiSessions.createLinkToken();
    broker.clock.advance(60 * 60 * 1000 + 1);
    expect((await bare(broker, "GET", `/ui/login?t=${token}`)).statusCode).toBe(401);
    expect((await bare(broker, "GET", "/ui/api/inbox", { cookie })).statusCode).toBe(200);
    broker.clock.advance(7 * 24 * 60 * 60 * 1000);
    expect((await bare(broker, "GET", "/ui/api/inbox", { cookie })).statusCode).toBe(401);
  });

  it("a cookie made with another token is refused (changing the token signs browsers out)", async () => {
    const first = testBroker();
    const cookie = await signIn(first);
    const second = testBroker({ authToken: "another-token-0123456789abcdefghijklmnopqr" });
    expect((await bare(second, "GET", "/ui/api/inbox", { cookie })).statusCode).toBe(401);
  });

  it("mints login links for the bearer token only (notify open)", async () => {
    const broker = testBroker();
    const link = await broker.call("POST", "/ui/api/session/link", undefined, { ...UI, host: "127.0.0.1:47821" });
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:47821\/ui\/login\?t=[\w-]{43}$/),
    });
    const token = new URL((link.body as Json).url).searchParams.get("t");
    expect((await bare(broker, "GET", `/ui/login?t=${token}`)).statusCode).toBe(303);

    const cookie = await signIn(broker);
    const fromPage = await bare(broker, "POST", "/ui/api/session/link", { ...UI, cookie });
    expect(fromPage.statusCode).toBe(403);
  });

  it("keeps the spec's rules in front: loopback Host and X-Notify-UI on changes, even with a session", async () => {
    const broker = testBroker();
    const cookie = await signIn(broker);
    for (const url of ["/ui", "/ui/", "/ui/settings", "/ui/login?t=x", "/ui/api/inbox"]) {
      const foreign = await bare(broker, "GET", url, { cookie, host: "notify.example:47821" });
      expect(foreign.statusCode, url).toBe(403);
    }
    const noHeader = await bare(broker, "PUT", "/ui/api/presentation", { cookie }, { volume: 10 });
    expect(noHeader.statusCode).toBe(403);
    expect(noHeader.json()).toEqual({ error: "missing X-Notify-UI: 1" });
    const withHeader = await bare(broker, "PUT", "/ui/api/presentation", { cookie, ...UI }, { volume: 10 });
    expect(withHeader.statusCode).toBe(200);
    // No CORS: a cross-origin page never gets a grant.
    const preflight = await bare(broker, "OPTIONS", "/ui/api/presentation", { origin: "http://evil.example" });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    const withOrigin = await bare(broker, "GET", "/ui/api/inbox", { cookie, origin: "http://evil.example" });
    expect(withOrigin.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("GET /ui (the built page)", () => {
  const asset = readdirSync(join(DEFAULT_UI_DIR, "assets")).find((name) => name.endsWith(".js"));

  it("serves index.html uncached with a strict CSP, for every client-side route", async () => {
    const broker = testBroker();
    for (const url of ["/ui", "/ui/", "/ui/settings", "/ui/notifications/ntf_x"]) {
      const page = await bare(broker, "GET", url);
      expect(page.statusCode, url).toBe(200);
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(page.headers["cache-control"]).toBe("no-cache");
      const csp = String(page.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      // No inline script, and nothing from another origin.
      expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
  });

  it("serves hashed assets with a long immutable cache, gzipped when asked", async () => {
    const broker = testBroker();
    const plain = await bare(broker, "GET", `/ui/assets/${asset}`);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(plain.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    const gzipped = await bare(broker, "GET", `/ui/assets/${asset}`, { "accept-encoding": "gzip, br" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(Number(gzipped.headers["content-length"])).toBeLessThan(Number(plain.headers["content-length"]));
    expect((await bare(broker, "GET", "/ui/assets/index-missing.js")).statusCode).toBe(404);
    const unknownApi = await bare(broker, "GET", "/ui/api/nothing-here", {
      authorization: `Bearer ${broker.settings.authToken}`,
    });
    expect(unknownApi.statusCode).toBe(404);
    expect(unknownApi.json()).toEqual({ error: "not found" });
  });
});
