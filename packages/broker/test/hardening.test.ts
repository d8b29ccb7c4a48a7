import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startModelMock } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../src/broker.js";
import { readConfigFile } from "../src/config/config-file.js";
import { type Json, TOKEN, testBroker } from "./helpers.js";
import { raw, startRouterBroker } from "./model-router/harness.js";

/** Issue 10: each defect found by the hostile pass, pinned by a test that fails without its fix. */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function dataDir(config?: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "notify-hardening-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  if (config) writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  return dir;
}

async function started(dir: string, options: Parameters<typeof startBroker>[0] = {}): Promise<RunningBroker> {
  const broker = await startBroker({ dataDir: dir, port: 0, env: {}, ...options });
  cleanups.push(() => broker.close());
  return broker;
}

/** `{"a":{"a":...}}` nested `depth` levels. */
function nested(depth: number, leaf: unknown = 1): string {
  return `${'{"a":'.repeat(depth)}${JSON.stringify(leaf)}${"}".repeat(depth)}`;
}

/** Sends raw bytes on a new socket and resolves with everything the server wrote before closing. */
function rawExchange(port: number, write: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
    });
    socket.on("close", () => resolve(received));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET") resolve(received);
      else reject(error);
    });
    socket.on("connect", () => write(socket));
  });
}

/** The JSON body of the first response in what a socket received (by its Content-Length). */
function bodyOf(response: string): Json {
  const start = response.indexOf("\r\n\r\n") + 4;
  const length = Number(/content-length: (\d+)/i.exec(response.slice(0, start))?.[1]);
  return JSON.parse(response.slice(start, start + length));
}

describe("1. a router switched on in config.json has a key (docs/router.md, 'config.json keys': generated when first enabled)", () => {
  it("RouterEnabled: true written before start gets a RouterKey at start, and the key works", async () => {
    const dir = dataDir({ authToken: TOKEN, RouterEnabled: true });
    const broker = await started(dir);
    const key = readConfigFile(dir).RouterKey;
    expect(key).toMatch(/^nrk_[A-Za-z0-9_-]{43}$/);
    const models = await raw(`${broker.url}/router/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    // A key already there is kept as it is.
    await broker.close();
    const again = await started(dir);
    expect(readConfigFile(dir).RouterKey).toBe(key);
    await again.close();
  });
});

describe("2. a router body that cannot be rendered is the client's 400 and cools nothing down", () => {
  it("a body nested 5,000 deep is refused before any upstream is tried; the upstream still serves", async () => {
    const router = await startRouterBroker();
    cleanups.push(() => router.close());
    const mock = await startModelMock("chat");
    cleanups.push(() => mock.close());
    await router.addUpstream({ slug: "c", wire: "chat", base_url: mock.url, key: "upstream-key", models: ["m"] });
    const deep = `{"model":"c/m","messages":[{"role":"user","content":"hi"}],"metadata":${nested(5_000)}}`;
    for (const path of ["/chat/completions", "/responses", "/messages"]) {
      const reply = await raw(`${router.base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${router.key}` },
        body: deep,
      });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.text).toContain("invalid_request");
    }
    expect(mock.hits).toHaveLength(0);
    // Not cooled down: the next good request reaches the same upstream at once.
    const good = await router.openai().chat.completions.create({
      model: "c/m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(good.choices[0]?.message.content).toContain("Hello");
    expect(mock.hits).toHaveLength(1);
  });
});

describe("3. a provider code that carries the key sent on that attempt is never passed on", () => {
  it("an upstream echoing its key as the error code: the key is in no client error and no log line", async () => {
    const router = await startRouterBroker();
    cleanups.push(() => router.close());
    const mock = await startModelMock("chat");
    cleanups.push(() => mock.close());
    const key = "sk-proj-AbCdEf0123456789_echoed-key";
    await router.addUpstream({ slug: "c", wire: "chat", base_url: mock.url, key, models: ["m"] });
    const ask = () =>
      raw(`${router.base}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${router.key}` },
        body: JSON.stringify({ model: "c/m", messages: [{ role: "user", content: "hi" }] }),
      });
    // 400s first: they cool nothing down, so the same upstream answers each.
    mock.script.push({ kind: "status", status: 400, body: { error: { type: `prefix-${key}` } } });
    const prefixed = await ask();
    mock.script.push({ kind: "status", status: 400, body: { error: { code: key.slice(0, 20) } } });
    const piece = await ask();
    // An ordinary code is still passed on.
    mock.script.push({ kind: "status", status: 400, body: { error: { code: "context_length_exceeded" } } });
    const ordinary = await ask();
    expect(ordinary.status).toBe(400);
    expect(ordinary.text).toContain("context_length_exceeded");
    mock.script.push({ kind: "status", status: 401, body: { error: { code: key, message: `bad key ${key}` } } });
    const echoed = await ask();
    expect([prefixed.status, piece.status, echoed.status]).toEqual([400, 400, 401]);
    expect(mock.hits).toHaveLength(4);
    await router.broker.close();
    const logDir = join(router.dataDir, "logs");
    const logs = readdirSync(logDir)
      .map((name) => readFileSync(join(logDir, name), "utf8"))
      .join("");
    expect(logs).toContain("answered 401");
    for (const text of [prefixed.text, piece.text, echoed.text, logs]) expect(text).not.toContain("AbCdEf0123456789");
  });
});

describe("4. an upstream base_url is stored as validated, or refused", () => {
  it("refuses backslashes, spaces and control characters; stores the normalized URL", async () => {
    const router = await startRouterBroker();
    cleanups.push(() => router.close());
    for (const base_url of [
      "http://127.0.0.1:1\\@evil.example/v1",
      "  http://127.0.0.1:1/v1",
      "http://127.0.0.1:1/v1\n",
      "http://127.0.0.1:1/v\t1",
      "https://example.com/v1 ",
    ]) {
      const reply = await router.ui("POST", "/router/upstreams", { slug: "x", wire: "chat_wire", base_url });
      expect(reply.status, base_url).toBe(400);
      expect(reply.body.error).toContain("base_url");
    }
    const created = await router.ui("POST", "/router/upstreams", {
      slug: "x",
      wire: "chat_wire",
      base_url: "HTTPS://API.Example.COM:443/a/./b/../v1/",
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.base_url).toBe("https://api.example.com/a/v1");
    const listed = await router.ui("GET", "/router/upstreams");
    expect(listed.body.find((upstream: Json) => upstream.slug === "x").base_url).toBe("https://api.example.com/a/v1");
  });
});

describe("5-7. deep nesting and lone surrogates are 400 on every route family, never 500, never stored", () => {
  it("metadata nested 5,000 deep on POST /v1/notifications is 400", async () => {
    const broker = testBroker();
    const reply = await broker.call(
      "POST",
      "/v1/notifications",
      `{"title":"t","message":"m","metadata":${nested(5_000)}}`,
    );
    expect(reply.status, reply.text).toBe(400);
    expect((reply.body as Json).error).toContain("nests deeper");
    expect((await broker.call("GET", "/v1/notifications")).body).toEqual([]);
  });

  it("a lone surrogate anywhere in a /v1/events event is 400, as on /v1/notifications", async () => {
    const broker = testBroker();
    const event = {
      arc_version: "0.2",
      event_id: "evt_1",
      event_type: "notification.created",
      occurred_at: "2026-01-01T00:00:00Z",
      source: { agent: "a\ud800" },
      notification: { title: "t", message: "m" },
    };
    const text = JSON.stringify(event);
    expect(text).toContain("\\ud800");
    const events = await broker.call("POST", "/v1/events", text);
    expect(events.status, events.text).toBe(400);
    expect((events.body as Json).error).toBe("source.agent must be valid Unicode (it holds a lone surrogate)");
    const notifications = await broker.call("POST", "/v1/notifications", '{"title":"t\\udc00","message":"m"}');
    expect(notifications.status).toBe(400);
    expect((await broker.call("GET", "/v1/notifications")).body).toEqual([]);
  });

  it("/ui/api refuses lone surrogates in names, labels, models, keys and targets instead of storing U+FFFD", async () => {
    const broker = testBroker();
    const ui = (url: string, payload: string) =>
      broker.app.inject({
        method: url.endsWith("/types") ? "PUT" : "POST",
        url,
        headers: {
          host: "127.0.0.1",
          "x-notify-ui": "1",
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
        },
        payload,
      });
    const attempts: [string, string][] = [
      ["/ui/api/types", '[{"id":"deploy","label":"De\\ud800ploy"}]'],
      [
        "/ui/api/router/upstreams",
        '{"slug":"x","wire":"chat_wire","base_url":"http://127.0.0.1:1/v1","models":["m\\udfff"]}',
      ],
      [
        "/ui/api/router/upstreams",
        '{"slug":"x","wire":"chat_wire","base_url":"http://127.0.0.1:1/v1","key":"k\\ud800"}',
      ],
      ["/ui/api/router/routes", '{"name":"fast\\ud800","kind":"alias","targets":["x/m"]}'],
      ["/ui/api/outbound/providers", '{"name":"n\\ud800","kind":"webhook","settings":{"url":"http://127.0.0.1:1/"}}'],
    ];
    for (const [url, payload] of attempts) {
      const reply = await ui(url, payload);
      expect(reply.statusCode, `${url} ${reply.body}`).toBe(400);
      expect(reply.json().error).toContain("lone surrogate");
    }
  });
});

describe("8. slow bodies and connection floods are bounded (docs/config.md, Connection limits)", () => {
  it("a body trickled one byte at a time is cut off with 408 {error}, authenticated or not", async () => {
    const broker = await started(dataDir({ authToken: TOKEN }), {
      httpLimits: { requestTimeoutMs: 400, headersTimeoutMs: 400 },
    });
    for (const authorization of [`Bearer ${TOKEN}`, "Bearer wrong"]) {
      const startedAt = Date.now();
      const response = await rawExchange(broker.port, (socket) => {
        socket.write(
          `POST /v1/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n` +
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        );
        const timer = setInterval(() => socket.writable && socket.write(" "), 100);
        socket.on("close", () => clearInterval(timer));
      });
      const elapsed = Date.now() - startedAt;
      // 401 is answered before the body when the token is wrong; either way the socket does not stay open.
      expect(response).toMatch(/^HTTP\/1\.1 (408|401) /);
      expect(elapsed).toBeLessThan(5_000);
      const body = bodyOf(response);
      expect(typeof body.error).toBe("string");
    }
    expect((await raw(`${broker.url}/health`)).status).toBe(200);
  });

  it("headers that never finish are cut off with 408", async () => {
    const broker = await started(dataDir({ authToken: TOKEN }), {
      httpLimits: { requestTimeoutMs: 400, headersTimeoutMs: 400 },
    });
    const response = await rawExchange(broker.port, (socket) => {
      socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      const timer = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 100);
      socket.on("close", () => clearInterval(timer));
    });
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(response)).toEqual({ error: "request not received in time" });
  });

  it("connections past maxConnections are closed on accept; the broker serves again once they go", async () => {
    const broker = await started(dataDir({ authToken: TOKEN }), { httpLimits: { maxConnections: 4 } });
    const held: Socket[] = [];
    for (let index = 0; index < 4; index++) {
      const socket = connect(broker.port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      held.push(socket);
    }
    // Node counts a socket once it is accepted: wait until the four are.
    await expect
      .poll(() => new Promise((resolve) => broker.app.server.getConnections((_e, count) => resolve(count))))
      .toBe(4);
    const refused = await rawExchange(broker.port, (socket) =>
      socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    );
    expect(refused).toBe("");
    for (const socket of held) socket.destroy();
    await expect.poll(async () => (await raw(`${broker.url}/health`).catch(() => ({ status: 0 }))).status).toBe(200);
  });
});

describe("9. framework and parser errors have the spec's shape", () => {
  it("a URL whose percent-encoding is not UTF-8 is 400 {error}, with or without a token", async () => {
    const broker = testBroker();
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
      const reply = await broker.app.inject({ method: "GET", url: "/v1/notifications/%ED%A0%80", headers });
      expect(reply.statusCode).toBe(400);
      expect(reply.json()).toEqual({ error: "invalid request: bad URL" });
    }
  });

  it("a request Node's parser rejects gets 400 {error} on the raw socket", async () => {
    const broker = await started(dataDir({ authToken: TOKEN }));
    for (const request of [
      "GARBAGE\r\n\r\n",
      "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "GET /health HTTP/1.1\r\nHo st: x\r\n\r\n",
    ]) {
      const response = await rawExchange(broker.port, (socket) => socket.write(request));
      expect(response).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(response).toContain("content-type: application/json".replace("content-type", "Content-Type"));
      expect(bodyOf(response)).toEqual({ error: "malformed HTTP request" });
    }
    const huge = await rawExchange(broker.port, (socket) =>
      socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(40_000)}\r\n\r\n`),
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(huge)).toEqual({ error: "request headers too large" });
  });
});

describe("11. `npm start` stopped by a supervisor stops the broker", () => {
  it("SIGTERM to npm reaches the broker: it shuts down and frees the port", async () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const dir = dataDir();
    const port = await freePort();
    const npm = spawn("npm", ["start"], {
      cwd: root,
      env: { ...process.env, NOTIFY_DATA_DIR: dir, NOTIFY_PORT: String(port), NOTIFY_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    cleanups.push(() => {
      npm.kill("SIGKILL");
    });
    let output = "";
    const pid = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${output}`)), 20_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on .* pid (\d+)\)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      };
      npm.stdout.on("data", read);
      npm.stderr.on("data", read);
    });
    cleanups.push(() => {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    });
    expect(pid).not.toBe(npm.pid);
    const exited = new Promise((resolve) => npm.once("exit", resolve));
    npm.kill("SIGTERM");
    await exited;
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
    await expect(raw(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
