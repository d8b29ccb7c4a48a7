import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, untilValue, x25519Jwk } from "./helpers.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "./postgres.js";
import { call, type RelayProcess, spawnRelay } from "./processes.js";

/**
 * Issue 13: several relay processes on one PostgreSQL behave as one. Two `notify-relay serve` processes share the
 * database (and the data dir's enrollment token and VAPID keys); answers posted concurrently to both are served by
 * either, none lost, duplicated or skipped, while a broker polls with its cursor the whole time.
 */
const hasPostgres = postgresAvailable();

describe.runIf(hasPostgres)("two relay processes on one PostgreSQL", () => {
  let server: TestPostgres;
  let relays: RelayProcess[] = [];
  let dir: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    server = await startPostgres();
    dir = tempDir();
    const databaseUrl = await server.createDatabase();
    relays = await Promise.all([0, 1].map(() => spawnRelay({ dataDir: dir.path, databaseUrl })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await server?.stop();
    dir?.remove();
  });

  it("concurrent posting to both: every 201 is served exactly once through the cursor", async () => {
    const [a, b] = relays as [RelayProcess, RelayProcess];
    const token = readFileSync(join(dir.path, "enrollment-token"), "utf8").trim();
    const installation = (await call(a.url, "POST", "/v1/installations", token, { name: "laptop" })).json;
    // Pair one phone through each process: a code made by one is claimed through the other.
    const phones: { device_id: string; token: string }[] = [];
    for (const [maker, claimer] of [
      [a, b],
      [b, a],
    ] as const) {
      const { code } = (await call(maker.url, "POST", "/v1/pairings", installation.token, {})).json;
      const claimed = await call(claimer.url, "POST", "/v1/pairings/claim", undefined, {
        code,
        device_name: "phone",
        public_key: x25519Jwk(),
      });
      expect(claimed.status).toBe(201);
      phones.push(claimed.json);
    }

    const accepted = new Set<string>();
    const served: string[] = [];
    let cursor = "";
    let posting = true;
    const pollPath = () =>
      `/v1/interaction-responses?installation_id=${installation.installation_id}&since=${encodeURIComponent(cursor)}`;
    // The broker polls process B the whole time, always sending back the last cursor.
    const poller = (async () => {
      while (posting) {
        const page = await call(b.url, "GET", `${pollPath()}&wait=1`, installation.token);
        expect(page.status).toBe(200);
        for (const row of page.json.responses) served.push(row.response_id);
        cursor = page.json.next_cursor;
      }
    })();

    const perWorker = 30;
    const workers = Array.from({ length: 48 }, async (_, worker) => {
      for (let index = 0; index < perWorker; index += 1) {
        const phone = phones[(worker + index) % 2] as { device_id: string; token: string };
        const target = relays[index % 2] as RelayProcess;
        const responseId = `w${worker}-${index}`;
        const answer = {
          contract_version: "1",
          response_id: responseId,
          interaction_id: `int-${worker}`,
          request_digest: "d".repeat(64),
          nonce: "n",
          choice_id: "allow",
          installation_id: installation.installation_id,
          device_id: phone.device_id,
        };
        const reply = await call(target.url, "POST", "/v1/interaction-responses", phone.token, answer);
        expect(reply.status).toBe(201);
        accepted.add(responseId);
      }
    });
    await Promise.all(workers);
    posting = false;
    await poller;
    // Drain what arrived after the last poll.
    for (;;) {
      const page = await call(a.url, "GET", pollPath(), installation.token);
      if (page.json.responses.length === 0) break;
      for (const row of page.json.responses) served.push(row.response_id);
      cursor = page.json.next_cursor;
    }

    expect(accepted.size).toBe(48 * perWorker);
    expect(new Set(served).size).toBe(served.length); // nothing duplicated
    expect(new Set(served)).toEqual(accepted); // nothing lost or skipped
  });

  /** An installation enrolled through `relay`, and a phone paired to it there. */
  async function enrollAndPair(relay: RelayProcess) {
    const token = readFileSync(join(dir.path, "enrollment-token"), "utf8").trim();
    const installation = (await call(relay.url, "POST", "/v1/installations", token, {})).json;
    const { code } = (await call(relay.url, "POST", "/v1/pairings", installation.token, {})).json;
    const claim = { code, device_name: "p", public_key: x25519Jwk() };
    const phone = (await call(relay.url, "POST", "/v1/pairings/claim", undefined, claim)).json;
    return { installation, phone };
  }

  it("a poll held by one process wakes for an answer posted to the other", async () => {
    const [a, b] = relays as [RelayProcess, RelayProcess];
    const { installation, phone } = await enrollAndPair(a);
    const first = await call(b.url, "GET", "/v1/interaction-responses", installation.token);
    const held = call(
      b.url,
      "GET",
      `/v1/interaction-responses?since=${encodeURIComponent(first.json.next_cursor)}&wait=20`,
      installation.token,
    );
    // Give B a moment to register the wait; the answer still arrives through NOTIFY if B was quicker or slower.
    const started = performance.now();
    await call(a.url, "POST", "/v1/interaction-responses", phone.token, {
      contract_version: "1",
      response_id: "wake-me",
      interaction_id: "i",
      request_digest: "d",
      nonce: "n",
      text: "yes",
      installation_id: installation.installation_id,
      device_id: phone.device_id,
    });
    const page = await held;
    expect(page.json.responses.map((row: { response_id: string }) => row.response_id)).toEqual(["wake-me"]);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("a phone's poll held by one process ends with 401 when the other revokes it (issue 31, item 12)", async () => {
    const [a, b] = relays as [RelayProcess, RelayProcess];
    const { installation, phone } = await enrollAndPair(a);
    const first = await call(b.url, "GET", "/v1/envelopes", phone.token);
    const held = call(
      b.url,
      "GET",
      `/v1/envelopes?since=${encodeURIComponent(first.json.next_cursor)}&wait=30`,
      phone.token,
    );
    await untilValue("the poll held by process B", async () =>
      (await call(b.url, "GET", "/healthz")).json.held_polls === 1 ? true : undefined,
    );
    const started = performance.now();
    expect((await call(a.url, "DELETE", `/v1/devices/${phone.device_id}`, installation.token)).status).toBe(204);
    const ended = await held;
    expect([ended.status, ended.json]).toEqual([401, { error: "unauthorized" }]);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
