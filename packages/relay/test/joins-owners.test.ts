// Issue 37, item 2: several machines, one phone. The spec's tenancy rules hold for joined machines (an installation
// sees and seals to its owner's devices only; a device answers for its owner's installations only), and one owner's
// machines and join codes are capped, with a limiter of their own (docs/relay.md, "Several machines, one phone" and
// "Rate limits"). On both stores, over a socket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, MINUTE } from "../src/domain/clock.js";
import { MAX_MACHINES_PER_OWNER, MAX_OPEN_JOIN_CODES } from "../src/domain/joins.js";
import { DEFAULT_LIMITS } from "../src/http/rate-limit.js";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { type Enrolled, envelopeFor, type Paired, RelayHarness, type Reply } from "./helpers.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "./postgres.js";

const backends = ["sqlite", ...(postgresAvailable() ? ["postgres"] : [])] as const;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

const newJoinCode = (relay: RelayHarness, installation: Enrolled): Promise<Reply> =>
  relay.request({ method: "POST", url: "/v1/joins", headers: auth(installation.token), body: {} });

async function joinWith(relay: RelayHarness, code: string, name?: string): Promise<Reply> {
  return relay.request({ method: "POST", url: "/v1/installations/join", body: { code, ...(name ? { name } : {}) } });
}

/** A machine of `owner`'s owner, joined with a fresh code. */
async function joined(relay: RelayHarness, owner: Enrolled, name: string): Promise<Enrolled> {
  const code = await newJoinCode(relay, owner);
  expect(code.status, code.text).toBe(201);
  const reply = await joinWith(relay, code.json().code, name);
  expect(reply.status, reply.text).toBe(201);
  return reply.json() as Enrolled;
}

const deviceIds = (reply: Reply): string[] =>
  reply.json().devices.map((device: { device_id: string }) => device.device_id);
const senders = (reply: Reply): string[] =>
  reply.json().envelopes.map((entry: { envelope: { sender_id: string } }) => entry.envelope.sender_id);

describe.each(backends)("joined machines on %s", (backend) => {
  let relay: RelayHarness;
  let server: TestPostgres | undefined;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    if (backend === "postgres") {
      server = await startPostgres();
      relay = new RelayHarness(await PostgresStore.connect(await server.createDatabase()), { clock });
    } else {
      relay = RelayHarness.sqlite({ clock });
    }
    await relay.listen();
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
    await server?.stop();
  });

  it("another owner's machines and phones cannot read, seal to or answer for joined machines", async () => {
    // Two owners, each with an enrolled and a joined machine and one phone.
    const laptop = await relay.enroll("laptop");
    const myPhone = await relay.pair(laptop);
    const desktop = await joined(relay, laptop, "desktop");
    const theirs = await relay.enroll("theirs");
    const theirPhone = await relay.pair(theirs);
    const theirBox = await joined(relay, theirs, "their box");

    // Read: each joined machine sees its own owner's phone and machines only.
    expect(deviceIds(await relay.request({ url: "/v1/devices", headers: auth(desktop.token) }))).toEqual([
      myPhone.device_id,
    ]);
    expect(deviceIds(await relay.request({ url: "/v1/devices", headers: auth(theirBox.token) }))).toEqual([
      theirPhone.device_id,
    ]);
    const theirMachines = await relay.request({ url: "/v1/installations", headers: auth(theirBox.token) });
    // (Same created_at on the test's clock: the order among them is by id.)
    expect(
      theirMachines
        .json()
        .installations.map((entry: { name: string }) => entry.name)
        .sort(),
    ).toEqual(["their box", "theirs"]);

    // Seal: neither joined machine can address the other owner's phone (400, nothing stored for it).
    expect((await relay.postEnvelope(theirBox, envelopeFor(theirBox, [myPhone.device_id]))).status).toBe(400);
    expect((await relay.postEnvelope(desktop, envelopeFor(desktop, [theirPhone.device_id]))).status).toBe(400);
    expect((await relay.postEnvelope(desktop, envelopeFor(desktop, [myPhone.device_id]))).status).toBe(201);
    expect((await relay.postEnvelope(theirBox, envelopeFor(theirBox, [theirPhone.device_id]))).status).toBe(201);
    expect(senders(await relay.envelopes(myPhone, ""))).toEqual([desktop.installation_id]);
    expect(senders(await relay.envelopes(theirPhone, ""))).toEqual([theirBox.installation_id]);

    // Answer: a phone answers for its owner's joined machine only; the other owner's joined machine reads neither.
    expect((await relay.postAnswer(theirPhone, relay.answer(theirPhone, desktop))).status).toBe(403);
    expect((await relay.postAnswer(myPhone, relay.answer(myPhone, theirBox))).status).toBe(403);
    expect((await relay.postAnswer(myPhone, relay.answer(myPhone, desktop, { interaction_id: "mine" }))).status).toBe(
      201,
    );
    const foreignPoll = await relay.request({
      url: `/v1/interaction-responses?installation_id=${desktop.installation_id}`,
      headers: auth(theirBox.token),
    });
    expect(foreignPoll.status).toBe(403);
    expect((await relay.poll(theirBox)).json().responses).toEqual([]);
    expect(
      (await relay.poll(desktop)).json().responses.map((answer: { interaction_id: string }) => answer.interaction_id),
    ).toEqual(["mine"]);

    // Admin: the other owner's joined machine cannot remove my phone, nor mine theirs.
    const revoke = (installation: Enrolled, device: Paired) =>
      relay.request({ method: "DELETE", url: `/v1/devices/${device.device_id}`, headers: auth(installation.token) });
    expect((await revoke(theirBox, myPhone)).status).toBe(404);
    expect((await revoke(desktop, theirPhone)).status).toBe(404);
    expect((await relay.request({ url: "/v1/device", headers: auth(myPhone.token) })).status).toBe(200);
    expect((await relay.request({ url: "/v1/device", headers: auth(theirPhone.token) })).status).toBe(200);
  });

  it("after a machine leaves, its phone's answers for it are refused (403, the phone stays paired); the rest go on", async () => {
    const laptop = await relay.enroll("laptop");
    const phone = await relay.pair(laptop);
    const desktop = await joined(relay, laptop, "desktop");
    expect(
      (await relay.request({ method: "DELETE", url: "/v1/installation", headers: auth(desktop.token) })).status,
    ).toBe(200);

    const late = await relay.postAnswer(phone, relay.answer(phone, desktop));
    expect(late.status).toBe(403);
    expect(late.json().error.code).toBe("forbidden");
    // Not a 401: the phone keeps its pairing, and the laptop's questions are still answered.
    expect((await relay.request({ url: "/v1/device", headers: auth(phone.token) })).status).toBe(200);
    expect((await relay.postAnswer(phone, relay.answer(phone, laptop))).status).toBe(201);
    expect((await relay.poll(laptop)).json().responses).toHaveLength(1);
    expect((await newJoinCode(relay, desktop)).status).toBe(401);
  });

  it(`an owner holds at most ${MAX_OPEN_JOIN_CODES} unused join codes; used and expired ones free a place`, async () => {
    const laptop = await relay.enroll("laptop");
    const codes: string[] = [];
    for (let index = 0; index < MAX_OPEN_JOIN_CODES; index++) {
      const reply = await newJoinCode(relay, laptop);
      expect(reply.status, reply.text).toBe(201);
      codes.push(reply.json().code);
    }
    const over = await newJoinCode(relay, laptop);
    expect(over.status).toBe(409);
    expect(over.json()).toEqual({
      error: {
        code: "too_many_join_codes",
        message: `this owner has ${MAX_OPEN_JOIN_CODES} unused join codes, the most at once: use one, or make a new one in 10 min when one expires`,
      },
    });
    // Another owner is not held back.
    expect((await newJoinCode(relay, await relay.enroll("other"))).status).toBe(201);

    // A used code frees its place, for every machine of the owner (the joined one included).
    const desktop = (await joinWith(relay, codes[0] as string, "desktop")).json() as Enrolled;
    expect((await newJoinCode(relay, desktop)).status).toBe(201);
    expect((await newJoinCode(relay, laptop)).status).toBe(409);
    // Expired codes free theirs.
    clock.advance(10 * MINUTE + 1);
    expect((await newJoinCode(relay, laptop)).status).toBe(201);
  });

  it(`an owner has at most ${MAX_MACHINES_PER_OWNER} machines; a refused join keeps its code`, {
    timeout: 60_000,
  }, async () => {
    const first = await relay.enroll("machine 1");
    for (let index = 2; index < MAX_MACHINES_PER_OWNER; index++) await joined(relay, first, `machine ${index}`);
    // Two codes made at 19 machines: the first joins the 20th, the second is refused and stays usable.
    const spare = [(await newJoinCode(relay, first)).json().code, (await newJoinCode(relay, first)).json().code];
    const twentieth = await joinWith(relay, spare[0], "machine 20");
    expect(twentieth.status, twentieth.text).toBe(201);
    const refused = await joinWith(relay, spare[1], "machine 21");
    expect(refused.status).toBe(409);
    expect(refused.json()).toEqual({
      error: {
        code: "too_many_machines",
        message: `this owner already has ${MAX_MACHINES_PER_OWNER} machines, the most allowed: remove one first (notify relay leave)`,
      },
    });
    expect((await newJoinCode(relay, first)).json().error.code).toBe("too_many_machines");
    const machines = await relay.request({ url: "/v1/installations", headers: auth(first.token) });
    expect(machines.json().installations).toHaveLength(MAX_MACHINES_PER_OWNER);

    // One leaves: the refused code now joins.
    const leaving = twentieth.json() as Enrolled;
    expect(
      (await relay.request({ method: "DELETE", url: "/v1/installation", headers: auth(leaving.token) })).status,
    ).toBe(200);
    expect((await joinWith(relay, spare[1], "machine 21")).status).toBe(201);
  });
});

describe("the join code limiter", () => {
  it("counts an owner's join codes over all its machines, apart from pairing codes and other owners", async () => {
    const clock = new ManualClock(Date.now());
    const relay = RelayHarness.sqlite({ clock, limits: DEFAULT_LIMITS });
    try {
      const { burst } = DEFAULT_LIMITS.joinCreate;
      const laptop = await relay.enroll("laptop");
      const desktop = await joined(relay, laptop, "desktop");
      // burst - 1 more, from both machines; the clock expires codes so the open-code cap stays out of the way.
      for (let made = 1; made < burst; made++) {
        if (made % MAX_OPEN_JOIN_CODES === 0) clock.advance(10 * MINUTE + 1);
        const reply = await newJoinCode(relay, made % 2 === 0 ? laptop : desktop);
        expect(reply.status, `${made}: ${reply.text}`).toBe(201);
      }
      clock.advance(10 * MINUTE + 1);
      const limited = await newJoinCode(relay, laptop);
      expect(limited.status).toBe(429);
      expect(limited.json().error.code).toBe("rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
      expect((await newJoinCode(relay, desktop)).status).toBe(429);
      // Pairing a phone has its own bucket; another owner has its own.
      expect((await relay.pairCode(laptop)).code).toMatch(/^[0-9A-Z]{10}$/);
      expect((await newJoinCode(relay, await relay.enroll("other"))).status).toBe(201);
    } finally {
      await relay.close();
    }
  });
});
