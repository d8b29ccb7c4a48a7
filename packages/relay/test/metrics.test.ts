import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../src/http/rate-limit.js";
import { RelayMetrics } from "../src/metrics.js";
import { ENROLLMENT_TOKEN, envelopeFor, RelayHarness, tempDir, untilValue, x25519Jwk } from "./helpers.js";
import { sharedPostgres } from "./postgres.js";
import { call, type RelayProcess, spawnRelay } from "./processes.js";
import { PushService, Subscriber } from "./push-service.js";

/**
 * Issue 27, operators: Prometheus metrics behind the enrollment token (and on an optional separate listener), and a
 * graceful shutdown that answers held polls before the process exits.
 */
const run = promisify(execFile);
const postgres = sharedPostgres();

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels = ""): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name}${labels ? `{${labels}}` : ""} `)) return Number(line.split(" ").at(-1));
  }
  return undefined;
}

/** Each probe scrapes /metrics or runs the CLI: every 50 ms. */
const SCRAPE_PACE = { everyMs: 50 };

async function setUp(relay: RelayProcess, dir: string) {
  const token = readFileSync(join(dir, "enrollment-token"), "utf8").trim();
  const installation = (await call(relay.url, "POST", "/v1/installations", token, {})).json;
  const { code } = (await call(relay.url, "POST", "/v1/pairings", installation.token, {})).json;
  const phone = (
    await call(relay.url, "POST", "/v1/pairings/claim", undefined, { code, device_name: "p", public_key: x25519Jwk() })
  ).json;
  const answer = (responseId: string) => ({
    contract_version: "1",
    response_id: responseId,
    interaction_id: "i",
    request_digest: "d",
    nonce: "n",
    choice_id: "allow",
    installation_id: installation.installation_id,
    device_id: phone.device_id,
  });
  return { token, installation, phone, answer };
}

describe.each(postgres.backends)("metrics and shutdown (%s)", (backend) => {
  it("GET /metrics needs the enrollment token and counts requests, held polls, stores and the database", async () => {
    const dir = tempDir();
    const databaseUrl = backend === "postgres" ? await postgres.createDatabase() : undefined;
    const relay = await spawnRelay({
      dataDir: dir.path,
      ...(databaseUrl ? { databaseUrl } : {}),
      env: { RELAY_METRICS_PORT: "0" },
    });
    try {
      const { token, installation, phone, answer } = await setUp(relay, dir.path);
      expect((await call(relay.url, "GET", "/metrics")).status).toBe(401);
      expect((await call(relay.url, "GET", "/metrics", installation.token)).status).toBe(401);

      const held = call(relay.url, "GET", "/v1/interaction-responses?wait=20", installation.token);
      const scrape = async () => {
        const response = await fetch(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toContain("text/plain");
        return response.text();
      };
      await untilValue(
        "the held poll in the metrics",
        async () =>
          (sample(await scrape(), "notify_relay_held_polls", 'kind="answers"') ?? 0) >= 1 ? true : undefined,
        SCRAPE_PACE,
      );
      expect((await call(relay.url, "POST", "/v1/interaction-responses", phone.token, answer("m1"))).status).toBe(201);
      expect((await call(relay.url, "POST", "/v1/interaction-responses", phone.token, answer("m1"))).status).toBe(409);
      expect((await held).json.responses).toHaveLength(1);

      const text = await scrape();
      expect(sample(text, "notify_relay_stored_total", 'kind="answers"')).toBe(1);
      expect(
        sample(
          text,
          "notify_relay_http_requests_total",
          'method="POST",route="/v1/interaction-responses",status="201"',
        ),
      ).toBe(1);
      expect(
        sample(
          text,
          "notify_relay_http_requests_total",
          'method="POST",route="/v1/interaction-responses",status="409"',
        ),
      ).toBe(1);
      expect(
        sample(text, "notify_relay_http_requests_total", 'method="GET",route="/metrics",status="401"'),
      ).toBeGreaterThanOrEqual(2);
      expect(sample(text, "notify_relay_db_duration_seconds_count", 'operation="store_answer"')).toBe(2);
      expect(sample(text, "notify_relay_held_polls", 'kind="answers"')).toBe(0);
      expect(sample(text, "notify_relay_process_resident_memory_bytes")).toBeGreaterThan(0);
      if (backend === "postgres") {
        expect(sample(text, "notify_relay_db_pool_connections", 'state="max"')).toBe(20);
        expect(sample(text, "notify_relay_db_batches", 'kind="answers",count="writes"')).toBe(2);
      }
      // Nothing secret: no token of any kind appears.
      for (const secret of [token, installation.token, phone.token]) expect(text).not.toContain(secret);

      // The separate listener serves the same without credentials.
      const metricsUrl = /metrics on (http:\/\/\S+)/.exec(relay.stderr())?.[1];
      expect(metricsUrl).toBeDefined();
      const separate = await fetch(metricsUrl as string);
      expect(separate.status).toBe(200);
      expect(await separate.text()).toContain("notify_relay_stored_total");
    } finally {
      await relay.stop();
      dir.remove();
    }
  }, 60_000);

  it("SIGTERM answers every held poll at once, then the process exits 0", async () => {
    const dir = tempDir();
    const databaseUrl = backend === "postgres" ? await postgres.createDatabase() : undefined;
    const relay = await spawnRelay({ dataDir: dir.path, ...(databaseUrl ? { databaseUrl } : {}) });
    try {
      const { installation, phone } = await setUp(relay, dir.path);
      const polls = [
        call(relay.url, "GET", "/v1/interaction-responses?wait=30", installation.token),
        call(relay.url, "GET", "/v1/envelopes?wait=30", phone.token),
      ];
      await untilValue(
        "two held polls",
        async () => ((await call(relay.url, "GET", "/healthz")).json.held_polls >= 2 ? true : undefined),
        SCRAPE_PACE,
      );
      const started = performance.now();
      const exited = new Promise<number | null>((resolve) => relay.child.once("exit", (code) => resolve(code)));
      relay.child.kill("SIGTERM");
      const pages = await Promise.all(polls);
      expect(pages.map((page) => page.status)).toEqual([200, 200]);
      expect(pages[0]?.json.responses).toEqual([]);
      expect(pages[1]?.json.envelopes).toEqual([]);
      expect(await exited).toBe(0);
      // Well before the 30 s the polls asked for.
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      await relay.stop();
      dir.remove();
    }
  }, 60_000);

  it("Web Push runs on its own thread: deliveries and a 410's removal reach the metrics and the store", async () => {
    const service = new PushService();
    await service.start();
    const dir = tempDir();
    const databaseUrl = backend === "postgres" ? await postgres.createDatabase() : undefined;
    const relay = await spawnRelay({
      dataDir: dir.path,
      ...(databaseUrl ? { databaseUrl } : {}),
      env: { RELAY_ALLOW_LOOPBACK_PUSH: "1" },
    });
    try {
      const token = readFileSync(join(dir.path, "enrollment-token"), "utf8").trim();
      const installation = (await call(relay.url, "POST", "/v1/installations", token, {})).json;
      const { code } = (await call(relay.url, "POST", "/v1/pairings", installation.token, {})).json;
      const phone = (
        await call(relay.url, "POST", "/v1/pairings/claim", undefined, {
          code,
          device_name: "p",
          public_key: x25519Jwk(),
          push_subscription: new Subscriber(`${service.base}/push/p`).toJSON(),
        })
      ).json;
      const post = () =>
        call(relay.url, "POST", "/v1/envelopes", installation.token, envelopeFor(installation, [phone.device_id]));
      const scrape = async () =>
        (await fetch(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
      expect((await post()).status).toBe(201);
      await service.received(1);
      await untilValue(
        "the delivery in the metrics",
        async () =>
          sample(await scrape(), "notify_relay_push_sends_total", 'outcome="delivered"') === 1 ? true : undefined,
        SCRAPE_PACE,
      );
      service.statuses.push(410);
      expect((await post()).status).toBe(201);
      await service.received(2);
      await untilValue(
        "the 410 in the metrics",
        async () =>
          sample(await scrape(), "notify_relay_push_sends_total", 'outcome="gone"') === 1 ? true : undefined,
        SCRAPE_PACE,
      );
      // The thread asks the main thread to drop it; the operator's listing shows when it is gone.
      const cli = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
      const listing = [
        "devices",
        "--json",
        "--data-dir",
        dir.path,
        ...(databaseUrl ? ["--database-url", databaseUrl] : []),
      ];
      await untilValue(
        "the subscription dropped",
        async () => {
          const { stdout } = await run(process.execPath, [cli, ...listing]);
          const [device] = JSON.parse(stdout) as { push: boolean }[];
          return device?.push === false ? true : undefined;
        },
        SCRAPE_PACE,
      );
      expect((await post()).status).toBe(201);
      expect((await post()).status).toBe(201);
      expect(service.deliveries).toHaveLength(2);
    } finally {
      await relay.stop();
      await service.stop();
      dir.remove();
    }
  }, 60_000);
});

describe("GET /metrics and rate limits", () => {
  it("a scraper with the right token is never limited; wrong tokens are, like enrollment", async () => {
    const relay = RelayHarness.sqlite({ limits: DEFAULT_LIMITS, metrics: new RelayMetrics({ defaultMetrics: false }) });
    try {
      for (let index = 0; index < 20; index += 1) {
        const reply = await relay.request({
          url: "/metrics",
          headers: { authorization: `Bearer ${ENROLLMENT_TOKEN}` },
        });
        expect(reply.status).toBe(200);
      }
      const wrong = [];
      for (let index = 0; index < 8; index += 1) {
        wrong.push((await relay.request({ url: "/metrics", headers: { authorization: "Bearer nope" } })).status);
      }
      expect(wrong.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(wrong.at(-1)).toBe(429);
    } finally {
      await relay.close();
      relay.dir.remove();
    }
  });
});
