// Issue 21, item 3: after a PostgreSQL outage of more than about a second the relay never subscribed to wake-ups
// again (LISTEN retried once, its failure swallowed), so a poll held by one process woke for an answer posted to
// another only at the end of its wait; and /healthz said ok while every route answered 503. Hostile re-run: the
// database is stopped for 5 s under held polls on two relay processes, then started again.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, x25519Jwk } from "./helpers.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "./postgres.js";
import { call, type RelayProcess, spawnRelay } from "./processes.js";

const hasPostgres = postgresAvailable();
/** A held poll's wait: long enough that a wake-up at its end is told apart from a prompt one. */
const WAIT_SECONDS = 25;

describe.runIf(hasPostgres)("a PostgreSQL outage under held polls (two relay processes)", () => {
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

  it("/healthz says the database is unreachable during it; afterwards a held poll wakes promptly again", async () => {
    const [a, b] = relays as [RelayProcess, RelayProcess];
    const token = readFileSync(join(dir.path, "enrollment-token"), "utf8").trim();
    const installation = (await call(a.url, "POST", "/v1/installations", token, {})).json;
    const { code } = (await call(a.url, "POST", "/v1/pairings", installation.token, {})).json;
    const phone = (
      await call(b.url, "POST", "/v1/pairings/claim", undefined, { code, device_name: "p", public_key: x25519Jwk() })
    ).json;
    expect((await call(a.url, "GET", "/healthz")).json).toMatchObject({ status: "ok", database: "ok" });

    await server.pause();
    const during = await call(a.url, "GET", "/healthz");
    expect(during.status).toBe(503);
    expect(during.json).toMatchObject({ status: "unavailable", database: "unreachable", backend: "postgres" });
    // The outage lasts 5 s: longer than the one retry the listener used to make.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    await server.resume();
    const deadline = Date.now() + 30_000;
    while ((await call(a.url, "GET", "/healthz")).status !== 200) {
      if (Date.now() > deadline) throw new Error("/healthz did not recover");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // A poll held by A, an answer posted to B: only A's LISTEN connection can wake it before its wait ends.
    const pollPath = `/v1/interaction-responses?installation_id=${installation.installation_id}&since=&wait=${WAIT_SECONDS}`;
    let held: Awaited<ReturnType<typeof call>> | undefined;
    const started = Date.now();
    const poll = call(a.url, "GET", pollPath, installation.token).then((reply) => {
      held = reply;
      return Date.now() - started;
    });
    const registered = Date.now() + 20_000;
    while ((await call(a.url, "GET", "/healthz")).json.held_polls < 1) {
      if (Date.now() > registered) throw new Error("the poll was never held");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // No pause for the listener: an answer whose NOTIFY is lost while it re-subscribes is found by the re-read that
    // re-subscribing triggers.
    const posted = await call(b.url, "POST", "/v1/interaction-responses", phone.token, {
      contract_version: "1",
      response_id: "after-outage",
      interaction_id: "int-1",
      request_digest: "d".repeat(64),
      nonce: "n",
      choice_id: "allow",
      installation_id: installation.installation_id,
      device_id: phone.device_id,
    });
    expect(posted.status).toBe(201);
    const postedAt = Date.now() - started;
    const answeredAfter = await poll;
    expect(held?.json.responses.map((row: { response_id: string }) => row.response_id)).toEqual(["after-outage"]);
    // Woken by the NOTIFY, not by the end of its 25 s wait (nor a late re-check).
    expect(answeredAfter - postedAt).toBeLessThan(5_000);
    expect(answeredAfter).toBeLessThan(WAIT_SECONDS * 1000 - 5_000);
  }, 120_000);
});
