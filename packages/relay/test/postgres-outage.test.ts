/**
 * Issue 21, item 3: after a PostgreSQL outage over about a second the relay never re-subscribed for wake-ups
 * (LISTEN retried once, the failure swallowed), so held polls returned only at the end of their wait, and /healthz
 * said ok while every other route answered 503. Hostile run: two relays (A and B, each its own PostgresStore, as two
 * processes would be) on a real cluster that is stopped for 5 s (`pg_ctl stop -m fast`) while a poll is held on A,
 * then started on the same port.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { type Enrolled, type Paired, RelayHarness, type Reply } from "./helpers.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "./postgres.js";

const OUTAGE_MS = 5000;
const POLL_WAIT_SECONDS = 30;

/** Retries `attempt` until it returns a value, for at most `deadlineMs` (a database coming back takes a while). */
async function eventually<T>(attempt: () => Promise<T | undefined>, deadlineMs = 40_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!postgresAvailable())("PostgreSQL outage under held polls", () => {
  let server: TestPostgres;
  let a: RelayHarness;
  let b: RelayHarness;
  let storeA: PostgresStore;
  let installation: Enrolled;
  let device: Paired;

  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    // A's first retry waits 3 s, so B commits while A is still not listening: only the re-check after
    // re-subscribing can deliver that answer before the poll's deadline.
    storeA = await PostgresStore.connect(url, { retryFirstMs: 3000, retryMaxMs: 5000 });
    a = new RelayHarness(storeA);
    b = new RelayHarness(await PostgresStore.connect(url));
    await a.listen();
    await b.listen();
    installation = await a.enroll("outage");
    device = await a.pair(installation);
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await server?.stop();
  });

  it("a held poll gets an answer posted after the outage promptly; /healthz says unreachable meanwhile", async () => {
    const first = await a.poll(installation);
    expect(first.status).toBe(200);
    const cursor = first.json().next_cursor as string;
    expect((await a.request({ url: "/healthz" })).json()).toMatchObject({ status: "ok", database: "ok" });

    const pollStarted = performance.now();
    let pollEnded = 0;
    const held = a.poll(installation, cursor, `&wait=${POLL_WAIT_SECONDS}`).then((reply) => {
      pollEnded = performance.now();
      return reply;
    });
    await eventually(async () => (a.hub.size === 1 ? true : undefined), 20_000);

    await server.pause();
    const stoppedAt = performance.now();
    const health = await eventually(async () => {
      const reply = await a.request({ url: "/healthz" });
      return reply.status === 503 ? reply : undefined;
    }, 20_000);
    expect(health.json()).toMatchObject({ status: "unavailable", database: "unreachable", backend: "postgres" });
    // The other routes say so too; the held poll is still held.
    expect((await b.poll(installation)).status).toBe(503);
    expect(a.hub.size).toBe(1);
    const rest = OUTAGE_MS - (performance.now() - stoppedAt);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    await server.resume();

    // B takes the answer as soon as the database is back (its pool reconnects on the next query).
    const body = b.answer(device, installation);
    const posted = await eventually(async () => {
      const reply: Reply = await b.postAnswer(device, body);
      return reply.status === 201 ? reply : undefined;
    });
    const postedAt = performance.now();
    expect(posted.status).toBe(201);

    const reply = await held;
    expect(reply.status).toBe(200);
    expect(reply.json().responses.map((row: { response_id: string }) => row.response_id)).toEqual([body.response_id]);
    // Well before the poll's own deadline: it was woken, not timed out.
    expect(pollEnded - postedAt).toBeLessThan(15_000);
    expect(pollEnded - pollStarted).toBeLessThan((POLL_WAIT_SECONDS - 3) * 1000);
    expect((await a.request({ url: "/healthz" })).json()).toMatchObject({ status: "ok", database: "ok" });

    // And wake-ups keep working: a poll held on A now wakes for an answer posted to B.
    await eventually(async () => (storeA.listening ? true : undefined), 20_000);
    const next = a.poll(installation, reply.json().next_cursor, "&wait=20");
    await eventually(async () => (a.hub.size === 1 ? true : undefined), 20_000);
    const again = b.answer(device, installation);
    const sentAt = performance.now();
    expect((await b.postAnswer(device, again)).status).toBe(201);
    const woken = await next;
    expect(woken.json().responses.map((row: { response_id: string }) => row.response_id)).toEqual([again.response_id]);
    expect(performance.now() - sentAt).toBeLessThan(10_000);
  }, 120_000);
});
