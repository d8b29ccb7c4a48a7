// Issue 22, "Must show": the relay behind a real Caddy (Debian's) with `tls internal` on loopback, both run from the
// shipped files (deploy-files.ts: the unit's ExecStart, Environment= and credential; the Caddyfile's site block).
// A real broker enrolls and publishes through https (trusting Caddy's root with NODE_EXTRA_CA_CERTS, as a broker of
// a LAN relay would); Chromium pairs from the #pair= link and answers through https; `--trust-proxy 127.0.0.1` (the
// unit's) gives each client behind Caddy its own rate-limit bucket, and without it every client shares Caddy's.
//
// Chromium trusts Caddy's local CA through `--ignore-certificate-errors-spki-list`, which needs nothing installed.
// It matches the hashes against the chain the server presents (leaf and intermediate, never the root), so the
// hash given is that of Caddy's intermediate CA, which signs every certificate of the local CA.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrokerProcess, spawnBroker } from "@notify/test-kit/broker-process";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "@notify/test-kit/chromium";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import type { Agent } from "undici";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  E2E_WAIT_MS,
  freePort,
  type RunningCaddy,
  spkiHash,
  startCaddy,
  startUnitRelay,
  type UnitRelay,
} from "./deploy-files.js";

const NOTIFY = fileURLToPath(new URL("../../../broker/bin/notify.js", import.meta.url));
const ENROLLMENT_TOKEN = "nre_deploy-test-enrollment-token-0123456789";

let root: string;
let relayOn: UnitRelay;
let relayOff: UnitRelay;
let caddy: RunningCaddy;
let httpsOn: string;
let httpsOff: string;
let caFile: string;
let broker: BrokerProcess;
let brokerDir: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const agents: Agent[] = [];

/** A client of Caddy from one loopback source address (127.0.0.x), trusting only Caddy's root. */
function from(localAddress?: string): Agent {
  const agent = caddy.client(localAddress);
  agents.push(agent);
  return agent;
}

async function send(
  agent: Agent,
  url: string,
  options: { method?: string; token?: string; body?: string | object; headers?: Record<string, string> } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies freely
): Promise<{ status: number; headers: Record<string, unknown>; json: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const reply = await request(url, {
    method: (options.method ?? "GET") as "GET",
    headers,
    dispatcher: agent,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
  });
  const text = await reply.body.text();
  return { status: reply.statusCode, headers: reply.headers, json: text ? JSON.parse(text) : undefined };
}

/** `notify ...` against the broker process, trusting Caddy's root as the broker does. */
function notify(args: string[]): {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
} {
  const child = spawn(process.execPath, [NOTIFY, ...args, "--port", String(broker.port)], {
    env: { ...process.env, NOTIFY_DATA_DIR: brokerDir, NODE_EXTRA_CA_CERTS: caFile, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

async function visible(locator: Locator): Promise<void> {
  await locator.first().waitFor({ state: "visible", timeout: E2E_WAIT_MS });
}

/** Enrollment requests with a wrong token from one client until one is refused 429: how many got their 401. */
async function enrollAttemptsBefore429(
  agent: Agent,
  url: string,
  headers: (attempt: number) => Record<string, string> = () => ({}),
) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const reply = await send(agent, `${url}/v1/installations`, {
      method: "POST",
      token: "nre_wrong-token",
      body: {},
      headers: headers(attempt),
    });
    if (reply.status === 429) return attempt;
    expect(reply.status).toBe(401);
  }
  throw new Error("no 429 after 20 enrollment attempts");
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "relay-caddy-"));
  const [portOn, portOff] = [await freePort(), await freePort()];
  httpsOn = `https://localhost:${portOn}`;
  httpsOff = `https://localhost:${portOff}`;
  mkdirSync(join(root, "on"));
  mkdirSync(join(root, "off"));
  relayOn = await startUnitRelay({
    root: join(root, "on"),
    enrollmentToken: ENROLLMENT_TOKEN,
    env: { RELAY_PUBLIC_URL: httpsOn },
    trustProxy: true,
  });
  relayOff = await startUnitRelay({
    root: join(root, "off"),
    enrollmentToken: ENROLLMENT_TOKEN,
    env: { RELAY_PUBLIC_URL: httpsOff },
    trustProxy: false,
  });
  caddy = await startCaddy(root, [
    { httpsPort: portOn, upstreamPort: relayOn.port },
    { httpsPort: portOff, upstreamPort: relayOff.port },
  ]);
  caFile = join(root, "caddy-root.crt");
  writeFileSync(caFile, caddy.rootPem);
  brokerDir = join(root, "broker");
  mkdirSync(brokerDir, { mode: 0o700 });
  broker = await spawnBroker(brokerDir, { NODE_EXTRA_CA_CERTS: caFile });
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spkiHash(caddy.intermediatePem)}`],
  });
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  for (const agent of agents) await agent.close();
  if (broker && broker.child.exitCode === null) {
    broker.child.kill("SIGTERM");
    await broker.exited;
  }
  await caddy?.stop();
  await relayOn?.stop();
  await relayOff?.stop();
  rmSync(root, { recursive: true, force: true });
}, 60_000);

describe("the relay behind Caddy with tls internal, run from the shipped unit and Caddyfile", () => {
  it("serves /healthz over TLS from Caddy's local CA, with HSTS; the relay itself listens on loopback only", async () => {
    expect(relayOn.argv).toEqual(["serve", "--host", "127.0.0.1", "--port", "0", "--trust-proxy", "127.0.0.1"]);
    expect(relayOn.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await send(from(), `${httpsOn}/healthz`);
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ status: "ok", database: "ok", backend: "sqlite" });
    expect(health.headers["strict-transport-security"]).toMatch(/max-age=\d+/);
    // The relay's own 413 and error body come through Caddy for a body over 64 KiB, every time: a relay that closed
    // the connection while Caddy was still sending the body made Caddy answer 502 to about 1 in 25 of these.
    // Each from its own source address: enrollment is rate limited per client address (X-Forwarded-For from Caddy).
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 25; attempt += 1) {
      const large = await send(from(`127.0.0.${100 + attempt}`), `${httpsOn}/v1/installations`, {
        method: "POST",
        token: ENROLLMENT_TOKEN,
        body: JSON.stringify({ name: "x".repeat(70 * 1024) }),
      });
      statuses.push(large.status);
      if (attempt === 0) expect(large.json.error).toBeDefined();
    }
    expect(statuses).toEqual(Array.from({ length: 25 }, () => 413));
  });

  it("a broker enrolls through https with the token from the systemd credential", async () => {
    const refused = await notify(["relay", "enroll", httpsOn, "--enrollment-token", "nre_wrong"]).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the relay answered HTTP 401");
    const enrolled = await notify(["relay", "enroll", httpsOn, "--enrollment-token", ENROLLMENT_TOKEN]).done;
    expect(enrolled.stderr).toBe("");
    expect(enrolled.code).toBe(0);
    expect(enrolled.stdout).toContain(`enrolled at ${httpsOn} as installation ins_`);
  });

  it("Chromium pairs from the #pair= link and its answer reaches `notify ask`, all through https", async () => {
    const paired = await notify(["relay", "pair", "--json"]).done;
    expect(paired.code).toBe(0);
    const { link } = JSON.parse(paired.stdout) as { link: string };
    expect(link).toMatch(new RegExp(`^${httpsOn}/app/#pair=`));
    await page.goto(link);
    await visible(page.getByText(/Paired as/));
    expect(page.url()).toBe(`${httpsOn}/app/`);
    // A secure context: the service worker registered over https with Caddy's certificate.
    await expect
      .poll(() => page.evaluate("navigator.serviceWorker.getRegistrations().then((all) => all.length)"), {
        timeout: E2E_WAIT_MS,
      })
      .toBe(1);

    const asking = notify([
      "ask",
      "Ship release 2.4 to the store?",
      "--kind",
      "single_choice",
      "--choice",
      "ship=Ship it",
      "--choice",
      "hold=Hold",
      "--project",
      "mobile",
      "--agent",
      "claude",
    ]);
    const card = page.getByRole("article", { name: "Question from claude" });
    await visible(card.getByRole("button", { name: "Ship it" }));
    await card.getByRole("button", { name: "Ship it" }).click();
    const answered = await Promise.race([
      asking.done,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("notify ask got no answer through the relay")), E2E_WAIT_MS),
      ),
    ]);
    expect(answered).toMatchObject({ code: 0, stdout: "ship\n" });
    expect(problems).toEqual([]);
  });

  it("with --trust-proxy 127.0.0.1 each client behind Caddy has its own limit; a forged X-Forwarded-For none", async () => {
    // Client A (127.0.0.2) uses up its enrollment burst (5; one more may be regained, 10 a minute, on a slow
    // machine) forging a new X-Forwarded-For on every request: Caddy sets the header to A's address, and the
    // relay reads only the hop Caddy saw, so no forgery buys a fresh bucket.
    const a = from("127.0.0.2");
    const burst = await enrollAttemptsBefore429(a, httpsOn, (attempt) => ({
      "x-forwarded-for": `203.0.113.${attempt}`,
    }));
    expect(burst).toBeGreaterThanOrEqual(5);
    expect(burst).toBeLessThanOrEqual(6);
    const stillLimited = await send(a, `${httpsOn}/v1/installations`, {
      method: "POST",
      token: ENROLLMENT_TOKEN,
      body: {},
      headers: { "x-forwarded-for": "198.51.100.7" },
    });
    expect(stillLimited.status).toBe(429);
    expect(Number(stillLimited.headers["retry-after"])).toBeGreaterThan(0);
    // Client B (127.0.0.3) behind the same Caddy still has its own burst: the real token enrolls.
    const b = from("127.0.0.3");
    const enrolled = await send(b, `${httpsOn}/v1/installations`, {
      method: "POST",
      token: ENROLLMENT_TOKEN,
      body: { name: "second broker" },
    });
    expect(enrolled.status).toBe(201);
  });

  it("without --trust-proxy every client behind Caddy shares Caddy's address, so one client's burst stops all", async () => {
    expect(relayOff.argv).not.toContain("--trust-proxy");
    const a = from("127.0.0.4");
    const burst = await enrollAttemptsBefore429(a, httpsOff);
    expect(burst).toBeGreaterThanOrEqual(5);
    expect(burst).toBeLessThanOrEqual(6);
    const b = from("127.0.0.5");
    const refused = await send(b, `${httpsOff}/v1/installations`, {
      method: "POST",
      token: ENROLLMENT_TOKEN,
      body: { name: "second broker" },
    });
    expect(refused.status).toBe(429);
  });
});
