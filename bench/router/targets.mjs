// The processes the router benchmark talks to: the mock upstream, the broker with its router configured against the
// mock, and the two peers (@portkey-ai/gateway, @musistudio/claude-code-router) installed under bench/router/peers.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BROKER_CLI,
  cleanEnv,
  freePort,
  PEERS_DIR,
  ROUTER_BENCH_DIR,
  spawnNode,
  stopChild,
  waitForHttp,
  waitForLine,
} from "./lib.mjs";

export const PORTKEY_SCRIPT = join(PEERS_DIR, "node_modules", "@portkey-ai", "gateway", "build", "start-server.js");
export const CCR_SCRIPT = join(PEERS_DIR, "node_modules", "@musistudio", "claude-code-router", "dist", "cli.js");

/** Both upstream records declare the same two models; requests name them as provider/model. */
export const MODELS = ["mock-fast", "mock-slow"];

export async function startMock({ slowChunks, slowDelayMs, fastChunks }) {
  const { child, stdout, stderr } = spawnNode(join(ROUTER_BENCH_DIR, "mock-upstream.mjs"), [
    "--fast-chunks",
    String(fastChunks),
    "--slow-chunks",
    String(slowChunks),
    "--slow-delay-ms",
    String(slowDelayMs),
  ]);
  const match = await waitForLine([stdout, stderr], child, /"port":\s*(\d+)/, "mock upstream");
  const port = Number(match[1]);
  const url = `http://127.0.0.1:${port}`;
  return {
    name: "mock",
    child,
    pid: child.pid,
    port,
    url,
    base: `${url}/v1`,
    stats: async () => (await fetch(`${url}/__stats`)).json(),
    resetStats: async () => (await fetch(`${url}/__stats/reset`, { method: "POST" })).json(),
    stop: () => stopChild(child),
  };
}

/** /ui/api as the CLI calls it: the broker's bearer token (config.json authToken) and X-Notify-UI: 1. */
async function uiApi(url, token, method, path, body) {
  const response = await fetch(`${url}/ui/api${path}`, {
    method,
    headers: { "content-type": "application/json", "x-notify-ui": "1", authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} /ui/api${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * `notify serve --port 0` on a fresh data dir, the router switched on through /ui/api/router/settings, and two
 * upstreams on the mock: `mockchat` (chat wire) and `mockmsg` (messages wire). The router key is read from
 * config.json as a client would (`notify router key`).
 */
/** bench/router/bare-proxy.mjs in front of the mock: the floor for what any Node proxy adds. */
export async function startBareProxy(mock) {
  const { child, stdout, stderr } = spawnNode(join(ROUTER_BENCH_DIR, "bare-proxy.mjs"), ["--upstream", mock.url]);
  const match = await waitForLine([stdout, stderr], child, /"port":\s*(\d+)/, "bare proxy");
  const port = Number(match[1]);
  return { name: "bare", child, pid: child.pid, port, url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

export async function startRouter(mock, { cli = BROKER_CLI, nodeArgs = [], label = "router" } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), `notify-bench-${label}-`));
  const { child, stdout, stderr } = spawnNode(cli, ["serve", "--port", "0", "--data-dir", dataDir], {
    env: cleanEnv(),
    nodeArgs,
  });
  const match = await waitForLine([stderr, stdout], child, /listening on http:\/\/127\.0\.0\.1:(\d+)/, "broker");
  const port = Number(match[1]);
  const url = `http://127.0.0.1:${port}`;
  const token = JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")).authToken;
  const status = await uiApi(url, token, "PUT", "/router/settings", { enabled: true });
  if (!status.enabled) throw new Error("router did not switch on");
  const key = JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")).RouterKey;
  if (typeof key !== "string") throw new Error("no RouterKey in config.json after enabling the router");
  for (const [slug, wire] of [
    ["mockchat", "chat_wire"],
    ["mockmsg", "messages_wire"],
  ]) {
    await uiApi(url, token, "POST", "/router/upstreams", {
      slug,
      wire,
      base_url: mock.base,
      key: "mock-upstream-key",
      models: MODELS,
      enabled: true,
    });
  }
  return {
    name: label,
    child,
    pid: child.pid,
    port,
    url,
    key,
    dataDir,
    log: stderr.lines,
    output: () => [...stdout.lines, ...stderr.lines],
    /** SIGINT lets the broker close cleanly, so a --cpu-prof profile is written. */
    stop: () => stopChild(child, 15_000, "SIGINT"),
  };
}

export function peersInstalled() {
  return { portkey: existsSync(PORTKEY_SCRIPT), ccr: existsSync(CCR_SCRIPT) };
}

function versionOf(...path) {
  try {
    return JSON.parse(readFileSync(join(PEERS_DIR, "node_modules", ...path, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

export function peerVersions() {
  return {
    portkey: versionOf("@portkey-ai", "gateway"),
    ccr: versionOf("@musistudio", "claude-code-router"),
    honoNodeServer: versionOf("@hono", "node-server"),
    hono: versionOf("hono"),
  };
}

/**
 * @portkey-ai/gateway: `start-server.js --port=N --headless`. The upstream is chosen per request by headers:
 * `x-portkey-provider` (openai = chat wire, anthropic = messages wire) and `x-portkey-custom-host` (the mock's /v1,
 * allowed because 127.0.0.1 is in its default trusted custom hosts).
 */
export async function startPortkey() {
  const port = await freePort();
  const { child, stdout, stderr } = spawnNode(PORTKEY_SCRIPT, [`--port=${port}`, "--headless"], {
    cwd: PEERS_DIR,
    env: cleanEnv({ NODE_ENV: "production" }),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/`, child, "portkey gateway");
  return {
    name: "portkey",
    child,
    pid: child.pid,
    port,
    url,
    output: () => [...stdout.lines, ...stderr.lines],
    stop: () => stopChild(child),
  };
}

/**
 * @musistudio/claude-code-router: `cli.js start` runs the server in the foreground and reads
 * $HOME/.claude-code-router/config.json, so HOME is a fresh temp dir. It takes the messages wire in
 * (POST /v1/messages) and sends it on to provider `mock` (chat wire, translated) or `mockmsg` (messages wire,
 * passthrough); `model: "provider,model"` names the provider explicitly (like the router's provider/model).
 */
export async function startCcr(mock) {
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), "notify-bench-ccr-"));
  mkdirSync(join(home, ".claude-code-router"), { recursive: true });
  const apiKey = "ccr-bench-key";
  const config = {
    LOG: false,
    HOST: "127.0.0.1",
    PORT: port,
    APIKEY: apiKey,
    API_TIMEOUT_MS: 600_000,
    Providers: [
      { name: "mock", api_base_url: `${mock.base}/chat/completions`, api_key: "mock-upstream-key", models: MODELS },
      // A messages-wire provider: with its one transformer "Anthropic" (the transformer of CCR's own /v1/messages
      // entry point) CCR bypasses translation and forwards the body as it is, the passthrough it is used for.
      {
        name: "mockmsg",
        api_base_url: `${mock.base}/messages`,
        api_key: "mock-upstream-key",
        models: MODELS,
        transformer: { use: ["Anthropic"] },
      },
    ],
    Router: { default: "mock,mock-fast" },
  };
  writeFileSync(join(home, ".claude-code-router", "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  const { child, stdout, stderr } = spawnNode(CCR_SCRIPT, ["start"], {
    cwd: home,
    env: cleanEnv({ HOME: home, CI: "true", FORCE_COLOR: "0" }),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/`, child, "claude-code-router");
  return {
    name: "ccr",
    child,
    pid: child.pid,
    port,
    url,
    apiKey,
    home,
    output: () => [...stdout.lines, ...stderr.lines],
    stop: () => stopChild(child),
  };
}
