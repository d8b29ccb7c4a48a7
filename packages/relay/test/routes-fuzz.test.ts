/**
 * Issue 10's route fuzz, reused for the relay (issue 13): every relay route over a real socket, on SQLite and on
 * PostgreSQL, with the broker suite's mutations (packages/broker/test/fuzz/mutations.ts). Properties: no 5xx, every
 * error body `{error: ...}`, nothing stored for a rejected request (every table compared), no token echoed. A route
 * registered without a case here fails the first test.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Json } from "@notify/test-kit";
import { BAD_IDS, bodyMutants, type Mutant, queryMutants } from "@notify/test-kit/fuzz-mutations";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { FORBIDDEN_HOSTS, HOSTILE_NAMES } from "./address-classes.js";
import { ENROLLMENT_TOKEN, type Enrolled, envelopeFor, type Paired, RelayHarness, x25519Jwk } from "./helpers.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "./postgres.js";

type Bearer = "enrollment" | "installation" | "device" | "none";

interface Fixtures {
  installation: Enrolled;
  device: Paired;
  /** A device of the same owner that DELETE may be pointed at (refused mutants must leave it). */
  spare: Paired;
  code: string;
  /** An envelope sealed to `device`, for its receipts. */
  envelope: string;
}

interface RelayCase {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  bearer: Bearer;
  body?: (fixtures: Fixtures) => Json;
  query?: (fixtures: Fixtures) => Record<string, string>;
  refusedOnly?: boolean;
}

const subscription = (endpoint: string) => ({
  endpoint,
  keys: {
    p256dh: "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
    auth: "tBHItJI5svbpez7KI4CCXg",
  },
});

const CASES: RelayCase[] = [
  { method: "GET", path: "/healthz", bearer: "none" },
  { method: "GET", path: "/v1/push/vapid-public-key", bearer: "none" },
  // The phone app's static files (phone-app.ts).
  { method: "GET", path: "/app", bearer: "none" },
  { method: "GET", path: "/app*", bearer: "none" },
  { method: "POST", path: "/v1/installations", bearer: "enrollment", body: () => ({ name: "fuzz" }) },
  { method: "POST", path: "/v1/pairings", bearer: "installation", body: () => ({}) },
  { method: "POST", path: "/v1/joins", bearer: "installation", body: () => ({}) },
  { method: "POST", path: "/v1/device/joins", bearer: "device", body: () => ({}) },
  { method: "GET", path: "/v1/installations", bearer: "installation" },
  // A join makes an installation of the fixture's owner when accepted: only refusals are fuzzed (the code is unknown).
  {
    method: "POST",
    path: "/v1/installations/join",
    bearer: "none",
    refusedOnly: true,
    body: () => ({ code: "ABCDEFGHJK", name: "fuzz" }),
  },
  {
    method: "POST",
    path: "/v1/pairings/claim",
    bearer: "none",
    body: (fixtures) => ({ code: fixtures.code, device_name: "Fuzz phone", public_key: x25519Jwk() }),
  },
  { method: "GET", path: "/v1/device", bearer: "device" },
  {
    method: "PUT",
    path: "/v1/device/push-subscription",
    bearer: "device",
    body: () => ({ push_subscription: subscription("https://push.example.test/sub/1") }),
  },
  { method: "GET", path: "/v1/devices", bearer: "installation" },
  { method: "DELETE", path: "/v1/devices/{spare}", bearer: "installation", refusedOnly: true },
  // Deletes the fixture installation when accepted (installation.ts): only refusals are fuzzed.
  { method: "DELETE", path: "/v1/installation", bearer: "installation", refusedOnly: true },
  {
    method: "POST",
    path: "/v1/interaction-responses",
    bearer: "device",
    body: (fixtures) => ({
      contract_version: "1",
      response_id: `fuzz-${Math.random().toString(36).slice(2)}`,
      interaction_id: "int_1",
      request_digest: "a".repeat(64),
      nonce: "nonce-1",
      choice_id: "allow",
      installation_id: fixtures.installation.installation_id,
      device_id: fixtures.device.device_id,
    }),
  },
  {
    method: "GET",
    path: "/v1/interaction-responses",
    bearer: "installation",
    query: (fixtures) => ({ installation_id: fixtures.installation.installation_id, since: "" }),
  },
  {
    method: "POST",
    path: "/v1/envelopes",
    bearer: "installation",
    body: (fixtures) => envelopeFor(fixtures.installation, [fixtures.device.device_id]),
  },
  { method: "GET", path: "/v1/envelopes", bearer: "device", query: () => ({ since: "" }) },
  // Receipts (issue 37 item 3).
  {
    method: "POST",
    path: "/v1/envelopes/{envelope}/receipts",
    bearer: "device",
    body: () => ({ state: "shown" }),
  },
  { method: "GET", path: "/v1/receipts", bearer: "installation", query: () => ({ since: "" }) },
];

const backends = ["sqlite", ...(postgresAvailable() ? ["postgres"] : [])] as const;

describe.each(backends)("relay route fuzz on %s", (backend) => {
  let relay: RelayHarness;
  let fixtures: Fixtures;
  let server: TestPostgres | undefined;
  let fingerprint: () => Promise<string>;
  let closeFingerprint: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    if (backend === "postgres") {
      server = await startPostgres();
      const url = await server.createDatabase();
      relay = new RelayHarness(await PostgresStore.connect(url));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      fingerprint = async () => {
        const tables = await admin.query<{ tablename: string }>(
          "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
        );
        const hash = createHash("sha256");
        for (const { tablename } of tables.rows) {
          const rows = await admin.query(`SELECT * FROM "${tablename}" ORDER BY 1`);
          hash.update(`${tablename}:${JSON.stringify(rows.rows)}`);
        }
        return hash.digest("hex");
      };
      closeFingerprint = () => admin.end();
    } else {
      const sqlite = RelayHarness.sqlite();
      relay = sqlite;
      const reader = new DatabaseSync(join(sqlite.dir.path, "relay.db"), { readOnly: true });
      fingerprint = async () => {
        // sqlite_sequence is left out: a refused insert may use up a sequence value (as a PostgreSQL sequence
        // does), which stores nothing.
        const tables = reader
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'sqlite_sequence' ORDER BY name")
          .all() as {
          name: string;
        }[];
        const hash = createHash("sha256");
        for (const { name } of tables) {
          hash.update(`${name}:${JSON.stringify(reader.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all())}`);
        }
        return hash.digest("hex");
      };
      closeFingerprint = async () => reader.close();
    }
    await relay.listen();
    const installation = await relay.enroll("fixture");
    const device = await relay.pair(installation);
    const spare = await relay.pair(installation);
    const { code } = await relay.pairCode(installation);
    const envelope = (await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]))).json()
      .envelope_id as string;
    fixtures = { installation, device, spare, code, envelope };
  }, 120_000);

  afterAll(async () => {
    await closeFingerprint();
    await relay?.close();
    await server?.stop();
  });

  const headersFor = (bearer: Bearer): Record<string, string> => {
    const token =
      bearer === "enrollment"
        ? ENROLLMENT_TOKEN
        : bearer === "installation"
          ? fixtures.installation.token
          : bearer === "device"
            ? fixtures.device.token
            : undefined;
    return token ? { authorization: `Bearer ${token}` } : {};
  };

  const secrets = (): string[] => [
    ENROLLMENT_TOKEN,
    fixtures.installation.token,
    fixtures.device.token,
    fixtures.spare.token,
  ];

  function expectShape(reply: { status: number; text: string }, context: string): void {
    if (reply.status === 413 && reply.text === "") return;
    const body = JSON.parse(reply.text);
    expect(Object.keys(body), context).toEqual(["error"]);
    expect(typeof body.error === "string" || typeof body.error?.code === "string", context).toBe(true);
  }

  async function check(route: RelayCase, path: string, mutant: Mutant): Promise<void> {
    const context = `${route.method} ${path} [${mutant.label}]`;
    const before = await fingerprint();
    const reply = await relay.request({
      method: route.method,
      url: path,
      headers: { ...headersFor(route.bearer), "content-type": "application/json" },
      body: mutant.text,
    });
    expect(reply.status, `${context}: ${reply.text.slice(0, 300)}`).toBeLessThan(500);
    for (const secret of secrets()) expect(reply.text, context).not.toContain(secret);
    if (reply.status >= 400) {
      expectShape(reply, context);
      expect(
        await fingerprint(),
        `${context} stored something (answered ${reply.status} ${reply.text.slice(0, 120)})`,
      ).toBe(before);
    }
  }

  it("covers every route the relay registered", () => {
    const registered = new Set<string>();
    const tree = relay.app.printRoutes({ commonPrefix: false });
    const stack: { depth: number; url: string }[] = [];
    for (const line of tree.split("\n")) {
      const match = /^([│ ]*)(?:├──|└──) (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
      if (!match) continue;
      const depth = (match[1] ?? "").length / 4;
      while (stack.length > 0 && (stack[stack.length - 1] as { depth: number }).depth >= depth) stack.pop();
      const url = `${stack[stack.length - 1]?.url ?? ""}${match[2]}`;
      stack.push({ depth, url });
      for (const method of match[3]?.split(", ") ?? []) if (method !== "HEAD") registered.add(`${method} ${url}`);
    }
    const covered = new Set(CASES.map((route) => `${route.method} ${route.path.replace(/\{\w+\}/g, ":id")}`));
    const missing = [...registered].filter((route) => !covered.has(route.replace(/:\w+/g, ":id")));
    expect(missing, "relay routes without a fuzz case").toEqual([]);
    expect(registered.size).toBeGreaterThanOrEqual(CASES.length - 1);
  });

  it("every body mutant of every route", async () => {
    let sent = 0;
    for (const route of CASES.filter((candidate) => candidate.method !== "GET")) {
      const path = route.path.replace("{spare}", fixtures.spare.device_id).replace("{envelope}", fixtures.envelope);
      let mutants = bodyMutants(route.body?.(fixtures), 65_536);
      if (route.refusedOnly) mutants = mutants.filter((mutant) => mutant.mustRefuse);
      for (const mutant of mutants) {
        await check(route, path, mutant);
        sent += 1;
      }
    }
    expect(sent).toBeGreaterThan(300);
  }, 180_000);

  it("odd query strings and ids", async () => {
    for (const route of CASES.filter((candidate) => candidate.method === "GET")) {
      const base = new URLSearchParams(route.query?.(fixtures) ?? {}).toString();
      for (const query of queryMutants(route.query?.(fixtures))) {
        const url = `${route.path}${query}${base && query.length > 1 ? `&${base}` : ""}`;
        const reply = await relay.request({ method: "GET", url, headers: headersFor(route.bearer) });
        expect(reply.status, `${url}: ${reply.text.slice(0, 200)}`).toBeLessThan(500);
        if (reply.status >= 400) expectShape(reply, url);
      }
    }
    for (const id of BAD_IDS) {
      const before = await fingerprint();
      const reply = await relay.request({
        method: "DELETE",
        url: `/v1/devices/${id}`,
        headers: headersFor("installation"),
      });
      expect(reply.status, `${id}: ${reply.text}`).toBeGreaterThanOrEqual(400);
      expect(reply.status, `${id}: ${reply.text}`).toBeLessThan(500);
      expectShape(reply, id);
      expect(await fingerprint()).toBe(before);
    }
  }, 120_000);

  it("push endpoints of every address class are refused on every route that sets one; nothing stored", async () => {
    let sent = 0;
    for (const [host, label] of FORBIDDEN_HOSTS) {
      for (const endpoint of [`https://${host}/push/${sent}`, `http://${host}:8080/p`, `https://${host}:443/`]) {
        const context = `${endpoint} (${label})`;
        const before = await fingerprint();
        const claim = await relay.request({
          url: "/v1/pairings/claim",
          body: {
            code: fixtures.code,
            device_name: "Fuzz phone",
            public_key: x25519Jwk(),
            push_subscription: subscription(endpoint),
          },
        });
        const put = await relay.request({
          method: "PUT",
          url: "/v1/device/push-subscription",
          headers: headersFor("device"),
          body: { push_subscription: subscription(endpoint) },
        });
        for (const reply of [claim, put]) {
          expect(reply.status, `${context}: ${reply.text}`).toBe(400);
          expectShape(reply, context);
          expect(reply.json().error.code, context).toBe("invalid_request");
        }
        expect(await fingerprint(), `${context} stored something`).toBe(before);
        sent += 2;
      }
    }
    expect(sent).toBeGreaterThan(200);
    // The code survived every refused claim.
    const device = await relay.pair(fixtures.installation);
    expect(device.device_id).toMatch(/^dev_/);
  }, 120_000);

  it("device and installation names with control and bidi characters: stored and read back exactly", async () => {
    const alphabet = [...new Set([...HOSTILE_NAMES.join(""), "a", "Z", " ", "\u00e9", "\u{1F4F1}"])];
    const names = fc
      .array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 60 })
      .map((chars) => chars.join(""))
      .filter((name) => name.length <= 100);
    await fc.assert(
      fc.asyncProperty(names, names, async (deviceName, installationName) => {
        const enrolled = await relay.request({
          url: "/v1/installations",
          headers: headersFor("enrollment"),
          body: { name: installationName },
        });
        expect(enrolled.status, enrolled.text).toBe(201);
        const installation = enrolled.json() as Enrolled;
        const { code } = await relay.pairCode(installation);
        const claimed = await relay.request({
          url: "/v1/pairings/claim",
          body: { code, device_name: deviceName, public_key: x25519Jwk() },
        });
        expect(claimed.status, claimed.text).toBe(201);
        const device = claimed.json() as Paired;
        const own = await relay.request({ url: "/v1/device", headers: { authorization: `Bearer ${device.token}` } });
        expect(own.json().device_name).toBe(deviceName);
        const listed = await relay.request({
          url: "/v1/devices",
          headers: { authorization: `Bearer ${installation.token}` },
        });
        expect(listed.json().devices.map((entry: { device_name: string }) => entry.device_name)).toEqual([deviceName]);
        const stored = await relay.store.read((tx) => tx.listInstallations());
        expect(stored.find((entry) => entry.id === installation.installation_id)?.name).toBe(installationName);
      }),
      { numRuns: 25, seed: 21 },
    );
    for (const name of HOSTILE_NAMES) {
      const { code } = await relay.pairCode(fixtures.installation);
      const reply = await relay.request({
        url: "/v1/pairings/claim",
        body: { code, device_name: name, public_key: x25519Jwk() },
      });
      expect(reply.status, JSON.stringify(name)).toBe(201);
    }
  }, 120_000);
});
