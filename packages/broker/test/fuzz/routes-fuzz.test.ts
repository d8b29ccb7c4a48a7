/**
 * Issue 10: every route, fuzzed over a real socket. Deep nesting in every object field, lone surrogates and NUL in
 * every string, huge and fractional numbers, wrong types, duplicate keys, unknown fields, oversize and slow bodies,
 * odd query values and undecodable ids. Properties: no 5xx (the mock upstream never fails, so the router has no
 * excuse either), every error in its family's shape, nothing stored for a rejected request, no upstream contacted
 * for a request the router refused and none cooled down, no secret echoed, and /health answered throughout.
 * A route registered without a case in route-cases.ts fails the first test, so later routes join the fuzz.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RouterServices, routerPlugin } from "@notify/router";
import { type ModelMock, startModelMock } from "@notify/test-kit";
import { BAD_IDS, bodyMutants, type Mutant, queryMutants } from "@notify/test-kit/fuzz-mutations";
import fc from "fast-check";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { readConfigFile } from "../../src/config/config-file.js";
import { ERROR_CODE } from "../../src/http/errors.js";
import { TOKEN } from "../helpers.js";
import { type RawReply, raw } from "../model-router/harness.js";
import { type Family, type Fixtures, fillPath, type Json, ROUTE_CASES, type RouteCase } from "./route-cases.js";

const ROUTER_MAX_BODY = 1_048_576;
const SECRETS = [
  "s3cret-value",
  "AAfuzz-telegram-token",
  "xapp-fuzz-app-token",
  "xoxb-fuzz-bot-token",
  "sk-fuzz-upstream-key",
  "fixture-upstream-secret",
  "fixture-hook-secret",
  "sk-fuzz-account-key",
  "fixture-account-secret",
];

let broker: RunningBroker;
let dataDir: string;
let routerKey: string;
let mock: ModelMock;
let hook: Server;
let fixtures: Fixtures;
const health = { requests: 0, failures: [] as string[], slowestMs: 0, running: true };
let healthLoop: Promise<void>;
/** Requests the fuzz made (the suite fails if the catalogue silently shrinks). */
let sent = 0;
/** Error responses of the broker's own (not the router wire's), and those that did not come from its error catalogue. */
const errorsSent = { total: 0, uncatalogued: [] as string[] };

function headersFor(family: Family, withBody: boolean): Record<string, string> {
  const headers: Record<string, string> = withBody ? { "content-type": "application/json" } : {};
  if (family === "v1") headers.authorization = `Bearer ${TOKEN}`;
  if (family === "ui") {
    headers["x-notify-ui"] = "1";
    headers.authorization = `Bearer ${TOKEN}`;
  }
  if (family === "router") headers.authorization = `Bearer ${routerKey}`;
  return headers;
}

/** One request over a real socket; a request left unanswered for 10 s fails the test with its path. */
function send(method: string, path: string, family: Family, text?: string): Promise<RawReply> {
  sent += 1;
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer in 10 s: ${method} ${path} ${text?.slice(0, 200) ?? ""}`)),
      10_000,
    );
  });
  // Content-Length always: Node's client sends a DELETE body with neither it nor chunked encoding.
  const headers = headersFor(family, text !== undefined);
  if (text !== undefined) headers["content-length"] = String(Buffer.byteLength(text));
  const answered = path.startsWith("/ui/api/stream")
    ? streamHead(path, headers)
    : raw(`${broker.url}${path}`, {
        method,
        headers,
        ...(text !== undefined ? { body: text } : {}),
      });
  return Promise.race([answered, hung]).finally(() => clearTimeout(timer));
}

async function setUp(method: string, path: string, family: Family, body: unknown): Promise<Json> {
  const reply = await send(method, path, family, JSON.stringify(body));
  expect(reply.status, `${method} ${path}: ${reply.text}`).toBeLessThan(300);
  return reply.body;
}

/**
 * What a rejected request must leave as it was: the content of every domain table (not the dispatcher's own
 * bookkeeping in outbox_meta, which it advances in the background after accepted creates), and config.json.
 */
const DOMAIN_TABLES = ["notifications", "interactions", "arc_events", "provider_profiles", "outbound_routes", "outbox"];
let tableQueries: string[] | undefined;
function fingerprint(): string {
  tableQueries ??= DOMAIN_TABLES.map((table) => {
    const columns = (broker.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map(
      (column) => `quote("${column.name}")`,
    );
    return `SELECT count(*) AS n, group_concat(${columns.join(" || ',' || ")}, '|') AS rows FROM ${table}`;
  });
  const hash = createHash("sha256");
  for (const query of tableQueries) hash.update(JSON.stringify(broker.db.prepare(query).get()));
  return `${hash.digest("hex")}|${readFileSync(join(dataDir, "config.json"), "utf8")}`;
}

async function routerConfig(): Promise<string> {
  const upstreams = await send("GET", "/ui/api/router/upstreams", "ui");
  const routes = await send("GET", "/ui/api/router/routes", "ui");
  const status = await send("GET", "/ui/api/router/status", "ui");
  return `${upstreams.text}|${routes.text}|${status.text}`;
}

/**
 * Every error body in its family's shape: `{error: string}` (413: empty; /ui/api may add `field`), or the router
 * wire's own.
 */
function expectErrorShape(path: string, reply: RawReply, context: string): void {
  // The page's own routes answer HTML (or a redirect): only "no 5xx" holds for them.
  if (path === "/ui" || (path.startsWith("/ui/") && !path.startsWith("/ui/api/"))) return;
  if (reply.status === 413 && !path.startsWith("/router/")) {
    expect(reply.text, context).toBe("");
    return;
  }
  if (path.startsWith("/router/v1/messages")) {
    expect(reply.body, context).toEqual({
      type: "error",
      error: { type: expect.any(String), message: expect.any(String) },
    });
  } else if (path.startsWith("/router/")) {
    expect(reply.body, context).toEqual({
      error: { code: expect.any(String), type: expect.any(String), message: expect.any(String) },
    });
  } else if (path.startsWith("/ui/api/") && reply.body?.field !== undefined) {
    // The page's own API may name the option at fault (docs/api.md, "Errors"); /v1 bodies have `error` alone.
    expect(reply.body, context).toEqual({ error: expect.any(String), field: expect.any(String) });
  } else {
    expect(reply.body, context).toEqual({ error: expect.any(String) });
  }
}

/** One fuzzed request with every property checked. */
async function check(route: RouteCase, path: string, mutant: Mutant): Promise<RawReply> {
  const context = `${route.method} ${path} [${mutant.label}]`;
  const before = route.family === "router" ? "" : fingerprint();
  const routerBefore = route.family === "ui" ? await routerConfig() : "";
  const hitsBefore = mock.hits.length;
  const reply = await send(route.method, path, route.family, mutant.text);
  expect(reply.status, `${context}: ${reply.text.slice(0, 300)}`).toBeLessThan(500);
  for (const secret of SECRETS) expect(reply.text, context).not.toContain(secret);
  if (mutant.mustRefuse && !route.rawBody && !(route.family === "router" && mutant.label.includes("surrogate"))) {
    expect(reply.status, `${context}: ${reply.text.slice(0, 300)}`).toBe(mutant.mustRefuse);
  }
  if (reply.status >= 400) {
    expectErrorShape(path, reply, context);
    if (route.family !== "router") expect(fingerprint(), `${context} stored something`).toBe(before);
    if (route.family === "ui") expect(await routerConfig(), `${context} changed the router`).toBe(routerBefore);
    // The router passes an upstream's own refusal on ("upstream fx answered HTTP 400"); any other refusal is its
    // own and must not have reached the upstream.
    if (!reply.text.includes("answered HTTP")) {
      expect(mock.hits.length, `${context} reached the upstream`).toBe(hitsBefore);
    }
  }
  return reply;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "notify-fuzz-"));
  writeFileSync(
    join(dataDir, "config.json"),
    JSON.stringify({
      authToken: TOKEN,
      rateLimitPerSecond: 1_000_000,
      RouterEnabled: true,
      RouterMaxRequestBodyBytes: ROUTER_MAX_BODY,
    }),
  );
  broker = await startBroker({
    dataDir,
    port: 0,
    env: {},
    httpLimits: { requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 },
  });
  routerKey = String(readConfigFile(dataDir).RouterKey);
  // Issue 34, item 3: every error the broker answers is written by http/errors.ts from its catalogue.
  broker.app.server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    response.on("finish", () => {
      if (response.statusCode < 400 || request.url?.startsWith("/router/v1")) return;
      errorsSent.total += 1;
      if ((response as unknown as Record<symbol, unknown>)[ERROR_CODE] === undefined) {
        errorsSent.uncatalogued.push(`${request.method} ${request.url?.slice(0, 120)} ${response.statusCode}`);
      }
    });
  });
  mock = await startModelMock("chat");
  hook = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200).end("ok"));
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;

  const provider = await setUp("POST", "/ui/api/outbound/providers", "ui", {
    kind: "webhook",
    name: "fixture-hook",
    settings: { url: hookUrl },
    secrets: { signingSecret: "fixture-hook-secret" },
    enabled: true,
  });
  // Only notifications of project fixture-only go out, so nothing the fuzz creates starts a delivery in the
  // background (a delivery would be a write that no fuzzed request made).
  const outboundRoute = await setUp("POST", "/ui/api/outbound/routes", "ui", {
    name: "fixture-route",
    provider: "fixture-hook",
    enabled: true,
    project: "fixture-only",
  });
  const notification = await setUp("POST", "/v1/notifications", "v1", {
    title: "fixture",
    message: "fixture",
    project: "fixture-only",
  });
  let outboxItem = "";
  // The delivery ends with the outbox row marked Delivered; wait for that before fuzzing (bounded).
  for (let tries = 0; tries < 500 && outboxItem === ""; tries++) {
    const outbox = (await send("GET", "/ui/api/outbound/outbox", "ui")).body;
    if (outbox.items[0]?.status === "Delivered") outboxItem = outbox.items[0].id;
    else await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(outboxItem).not.toBe("");
  const interaction = await setUp("POST", "/v1/interactions/request", "v1", {
    prompt: "Allow the fixture?",
    ttl_seconds: 3600,
  });
  const upstream = await setUp("POST", "/ui/api/router/upstreams", "ui", {
    slug: "fx",
    wire: "chat_wire",
    base_url: mock.url,
    models: ["m", "other"],
    key: "fixture-upstream-secret",
    enabled: true,
  });
  const routerRoute = await setUp("POST", "/ui/api/router/routes", "ui", {
    name: "fixture-alias",
    kind: "alias",
    targets: ["fx/m"],
  });
  const account = await setUp("POST", "/ui/api/router/accounts", "ui", {
    provider: "openai",
    label: "Fixture",
    key: "fixture-account-secret",
  });
  fixtures = {
    account: account.id,
    notification: notification.id,
    interaction: interaction.id,
    provider: provider.id,
    outboundRoute: outboundRoute.id,
    outboxItem,
    upstream: upstream.id,
    routerRoute: routerRoute.id,
    missingSound: "nope.wav",
    soundUpload: "fuzz.wav",
    effortFamily: "gpt-5",
    agent: "codex",
    backup: "nope",
  };

  // /health is asked every 20 ms for the whole suite, over its own connections.
  healthLoop = (async () => {
    while (health.running) {
      const startedAt = performance.now();
      try {
        const reply = await raw(`${broker.url}/health`);
        if (reply.status !== 200) health.failures.push(`status ${reply.status}`);
      } catch (error) {
        health.failures.push(String(error));
      }
      health.slowestMs = Math.max(health.slowestMs, performance.now() - startedAt);
      health.requests += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
}, 60_000);

afterAll(async () => {
  health.running = false;
  await healthLoop;
  await broker?.close();
  await mock?.close();
  await new Promise((resolve) => hook?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

describe("route fuzz (issue 10)", () => {
  it("covers every route the broker registered", async () => {
    const registered = new Set<string>();
    // /router/v1 is a catch-all in the broker's app that hands every request to the router's own fastify instance,
    // built on first use (http/app.ts): its routes are those of the router's plugin, listed from a mount of it.
    const routerApp = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    const prefix = "/router/v1";
    routerApp.register(routerPlugin, {
      prefix,
      router: { prefix, close: async () => {} } as unknown as RouterServices,
    });
    await routerApp.ready();
    const routes = [...routesOf(broker.app), ...routesOf(routerApp)].filter(
      (route) => route.url !== prefix && route.url !== `${prefix}*`,
    );
    await routerApp.close();
    for (const route of routes) {
      for (const method of route.methods) if (method !== "HEAD") registered.add(`${method} ${route.url}`);
    }
    expect(registered.size).toBeGreaterThan(40);
    const covered = new Set(ROUTE_CASES.map((route) => `${route.method} ${route.path.replace(/\{\w+\}/g, ":id")}`));
    const missing = [...registered]
      .map((route) => route.replace(/\/ui\*$/, "/ui/*"))
      .filter((route) => !covered.has(route.replace(/:\w+(?:\|:\w+)*/g, ":id")));
    expect(missing, "routes without a fuzz case in route-cases.ts").toEqual([]);
  });

  const bodyRoutes = ROUTE_CASES.filter((route) => route.method !== "GET");
  it.each(bodyRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s: every body mutant",
    async (_name, route) => {
      const path = fillPath(route.path, fixtures);
      const maxBytes = route.maxBodyBytes ?? (route.family === "router" ? ROUTER_MAX_BODY : 65_536);
      let mutants = bodyMutants(route.body?.(fixtures), maxBytes);
      if (route.refusedOnly) mutants = mutants.filter((mutant) => mutant.mustRefuse);
      for (const mutant of mutants) await check(route, path, mutant);
    },
    120_000,
  );

  it.each(
    bodyRoutes
      .filter((route) => route.body && !route.refusedOnly)
      .map((route) => [`${route.method} ${route.path}`, route] as const),
  )(
    "%s: random JSON in a random field (fast-check)",
    async (_name, route) => {
      const path = fillPath(route.path, fixtures);
      const body = route.body?.(fixtures);
      // ttl_seconds stays valid-or-refused: a short random ttl would expire a question mid-run, and the sweep's
      // write would be time passing, not the fuzzed request.
      const keys = Object.keys(body).filter((key) => key !== "ttl_seconds");
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 6 }), async (key, value) => {
          const text = JSON.stringify({ ...route.body?.(fixtures), [key]: value });
          await check(route, path, { label: `${key} = ${JSON.stringify(value).slice(0, 80)}`, text });
        }),
        { numRuns: 25, seed: 10 },
      );
    },
    120_000,
  );

  it.each(ROUTE_CASES.filter((route) => route.method === "GET").map((route) => [route.path, route] as const))(
    "GET %s: odd query strings",
    async (_name, route) => {
      let path = fillPath(route.path, fixtures);
      // A wait may be clamped up to 300 s: it waits on a question of its own, cancelled once every wait is sent.
      const own = path.endsWith("/wait")
        ? await setUp("POST", "/v1/interactions/request", "v1", { prompt: "waited on", ttl_seconds: 60 })
        : undefined;
      if (own) path = `/v1/interactions/${own.id}/wait`;
      const pending = queryMutants(route.query).map(
        async (query) => [query, await send("GET", `${path}${query}`, route.family)] as const,
      );
      if (own) await setUp("POST", `/v1/interactions/${own.id}/cancel`, "v1", {});
      const replies = await Promise.all(pending);
      for (const [query, reply] of replies) {
        expect(reply.status, `${path}${query}: ${reply.text.slice(0, 200)}`).toBeLessThan(500);
        if (reply.status >= 400) expectErrorShape(path, reply, `${path}${query}`);
      }
    },
    60_000,
  );

  it.each(
    ROUTE_CASES.filter((route) => route.path.includes("{")).map(
      (route) => [`${route.method} ${route.path}`, route] as const,
    ),
  )(
    "%s: ids that exist nowhere or do not decode",
    async (_name, route) => {
      for (const id of BAD_IDS) {
        const path = route.path.replace(/\{\w+\}/g, id);
        const before = fingerprint();
        const body = route.method === "GET" ? undefined : JSON.stringify(route.body?.(fixtures) ?? {});
        const reply = await send(route.method, path, route.family, body);
        expect(reply.status, `${path}: ${reply.text}`).toBeGreaterThanOrEqual(400);
        expect(reply.status, `${path}: ${reply.text}`).toBeLessThan(500);
        expectErrorShape(path, reply, path);
        expect(fingerprint(), `${path} stored something`).toBe(before);
      }
    },
    60_000,
  );

  it("slow bodies on every route are cut off with 408 and store nothing", async () => {
    const before = fingerprint();
    const hitsBefore = mock.hits.length;
    const results = await Promise.all(
      bodyRoutes.map(async (route) => {
        const path = fillPath(route.path, fixtures);
        const response = await trickle(route.method, path, headersFor(route.family, true));
        return [`${route.method} ${path}`, response] as const;
      }),
    );
    for (const [name, response] of results) {
      // The router refuses a wrong or missing key at once; everything else waits for the body and times out.
      expect(response, name).toMatch(/^HTTP\/1\.1 (408|401|403|404) /);
    }
    expect(results.filter(([, response]) => response.startsWith("HTTP/1.1 408")).length).toBeGreaterThan(
      bodyRoutes.length / 2,
    );
    expect(fingerprint()).toBe(before);
    expect(mock.hits.length).toBe(hitsBefore);
  }, 30_000);

  it("afterwards: the upstream was never cooled down, nothing crashed, /health answered throughout", async () => {
    // Accepted mutants may have switched the router off or changed the fixture upstream's models: put them back
    // (the upstream's cooldown state is not configuration and is untouched by this).
    await setUp("PUT", "/ui/api/router/settings", "ui", { enabled: true, default_route: null });
    await setUp("PATCH", `/ui/api/router/upstreams/${fixtures.upstream}`, "ui", { models: ["m"], enabled: true });
    const reply = await send(
      "POST",
      "/router/v1/chat/completions",
      "router",
      JSON.stringify({ model: "fx/m", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(reply.status, reply.text).toBe(200);
    expect(sent).toBeGreaterThan(2_000);
    process.stderr.write(
      `route fuzz: ${sent} requests, ${errorsSent.total} errors from the catalogue, /health asked ${health.requests} times, slowest ${health.slowestMs.toFixed(1)} ms\n`,
    );
    expect(health.failures).toEqual([]);
    expect(errorsSent.uncatalogued).toEqual([]);
    expect(errorsSent.total).toBeGreaterThan(1_000);
    expect(health.requests).toBeGreaterThan(10);
    expect(health.slowestMs).toBeLessThan(2_000);
    await broker.logger.close?.();
    const logDir = join(dataDir, "logs");
    const logs = readdirSync(logDir)
      .map((name) => readFileSync(join(logDir, name), "utf8"))
      .join("");
    expect(logs).not.toContain("[ERROR]");
    for (const secret of [...SECRETS, TOKEN, routerKey]) expect(logs).not.toContain(secret);
  });
});

/** The live stream never ends: its answer is its status and headers (and an error body, when it has one). */
function streamHead(path: string, headers: Record<string, string>): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${broker.url}${path}`, { headers }, (response) => {
      const status = response.statusCode ?? 0;
      if (status === 200) {
        response.destroy();
        resolve({ status, headers: response.headers, text: "", body: undefined });
        return;
      }
      let text = "";
      response.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on("end", () => resolve({ status, headers: response.headers, text, body: JSON.parse(text) }));
    });
    request.on("error", reject);
    request.end();
  });
}

/** Sends headers, then one body byte every 100 ms, and resolves with what the server answered. */
function trickle(method: string, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(broker.port, "127.0.0.1");
    let received = "";
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.on("connect", () => {
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join("")}Content-Length: 500\r\n\r\n{`);
      const timer = setInterval(() => socket.writable && socket.write(" "), 100);
      socket.on("close", () => clearInterval(timer));
    });
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
    });
    socket.on("close", () => resolve(received));
    socket.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" ? resolve(received) : reject(error),
    );
  });
}

/** fastify's route table, flat: one entry per URL with its methods. */
function routesOf(app: FastifyInstance): { url: string; methods: string[] }[] {
  const tree = app.printRoutes({ commonPrefix: false, includeHooks: false });
  const routes: { url: string; methods: string[] }[] = [];
  const stack: { depth: number; url: string }[] = [];
  for (const line of tree.split("\n")) {
    const match = /^([│ ]*)(?:├──|└──) (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? "").length / 4;
    while (stack.length > 0 && (stack[stack.length - 1] as { depth: number }).depth >= depth) stack.pop();
    const url = `${stack[stack.length - 1]?.url ?? ""}${match[2]}`;
    stack.push({ depth, url });
    if (match[3]) routes.push({ url, methods: match[3].split(", ") });
  }
  return routes;
}
