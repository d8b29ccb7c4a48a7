// Issue 37, item 2: several machines, one phone. An enrolled installation makes a one-time join code; another broker
// claims it and becomes an installation of the same owner: it seals to the owner's phones, they answer for it, and
// another owner's phone sees nothing (docs/relay.md, "Several machines, one phone"). On both stores, over a socket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { type Enrolled, envelopeFor, RelayHarness } from "./helpers.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "./postgres.js";

const backends = ["sqlite", ...(postgresAvailable() ? ["postgres"] : [])] as const;

describe.each(backends)("joining an owner on %s", (backend) => {
  let relay: RelayHarness;
  let server: TestPostgres | undefined;

  beforeAll(async () => {
    if (backend === "postgres") {
      server = await startPostgres();
      relay = new RelayHarness(await PostgresStore.connect(await server.createDatabase()));
    } else {
      relay = RelayHarness.sqlite();
    }
    await relay.listen();
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
    await server?.stop();
  });

  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const joinCode = async (installation: Enrolled): Promise<string> => {
    const reply = await relay.request({
      method: "POST",
      url: "/v1/joins",
      headers: auth(installation.token),
      body: {},
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json()).toEqual({
      code: expect.stringMatching(/^[0-9A-Z]{10}$/),
      relay_url: expect.any(String),
      expires_at: expect.any(String),
    });
    return reply.json().code;
  };
  const join = (body: unknown) => relay.request({ method: "POST", url: "/v1/installations/join", body });

  it("a joined machine shares the owner's phone both ways; the code works once; machines are listed", async () => {
    const laptop = await relay.enroll("laptop");
    const phone = await relay.pair(laptop);
    const code = await joinCode(laptop);

    const joined = await join({ code: code.toLowerCase().replace(/(.{5})/, "$1-"), name: "desktop" });
    expect(joined.status, joined.text).toBe(201);
    const desktop = joined.json() as Enrolled & { owner_id: string };
    expect(desktop.owner_id).toBe(laptop.owner_id);
    // Single use.
    const again = await join({ code, name: "third" });
    expect(again.status).toBe(400);
    expect(again.json().error.code).toBe("invalid_join_code");

    // The desktop sees and seals to the laptop's phone; the phone gets it and may answer for the desktop.
    const devices = await relay.request({ url: "/v1/devices", headers: auth(desktop.token) });
    expect(devices.json().devices.map((device: { device_id: string }) => device.device_id)).toEqual([phone.device_id]);
    expect((await relay.postEnvelope(desktop, envelopeFor(desktop, [phone.device_id]))).status).toBe(201);
    const feed = await relay.envelopes(phone, "");
    expect(feed.json().envelopes.map((entry: { envelope: { sender_id: string } }) => entry.envelope.sender_id)).toEqual(
      [desktop.installation_id],
    );
    expect((await relay.postAnswer(phone, relay.answer(phone, desktop))).status).toBe(201);
    expect((await relay.poll(desktop)).json().responses).toHaveLength(1);

    const machines = await relay.request({ url: "/v1/installations", headers: auth(desktop.token) });
    expect(machines.json().installations).toEqual([
      { installation_id: laptop.installation_id, name: "laptop", created_at: expect.any(String), this: false },
      { installation_id: desktop.installation_id, name: "desktop", created_at: expect.any(String), this: true },
    ]);

    // Leaving: the desktop goes, the phone stays (the laptop still uses it).
    const left = await relay.request({ method: "DELETE", url: "/v1/installation", headers: auth(desktop.token) });
    expect(left.status).toBe(200);
    expect(left.json().deleted.devices).toBe(0);
    expect((await relay.request({ url: "/v1/device", headers: auth(phone.token) })).status).toBe(200);
    expect(
      (await relay.request({ url: "/v1/installations", headers: auth(laptop.token) })).json().installations,
    ).toHaveLength(1);
  });

  it("the paired phone makes a join code too (POST /v1/device/joins); the machine joins its owner", async () => {
    const laptop = await relay.enroll("laptop");
    const phone = await relay.pair(laptop);
    const made = await relay.request({ method: "POST", url: "/v1/device/joins", headers: auth(phone.token), body: {} });
    expect(made.status, made.text).toBe(201);
    expect(made.json()).toEqual({
      code: expect.stringMatching(/^[0-9A-Z]{10}$/),
      relay_url: expect.any(String),
      expires_at: expect.any(String),
    });
    const joined = await join({ code: made.json().code, name: "dev-box" });
    expect(joined.status, joined.text).toBe(201);
    expect(joined.json().owner_id).toBe(laptop.owner_id);
    const machines = await relay.request({ url: "/v1/installations", headers: auth(laptop.token) });
    expect(machines.json().installations.map((machine: { name: string }) => machine.name)).toEqual([
      "laptop",
      "dev-box",
    ]);
    // An installation's token is not a phone's: the route is the device's.
    const wrong = await relay.request({
      method: "POST",
      url: "/v1/device/joins",
      headers: auth(laptop.token),
      body: {},
    });
    expect(wrong.status).toBe(401);
  });

  it("tenancy holds for joined machines: another owner's phone sees nothing and answers for none", async () => {
    const mine = await relay.enroll("mine");
    const myPhone = await relay.pair(mine);
    const joined = (await join({ code: await joinCode(mine) })).json() as Enrolled;
    const theirs = await relay.enroll("theirs");
    const theirPhone = await relay.pair(theirs);

    // The joined installation cannot seal to the other owner's phone.
    expect((await relay.postEnvelope(joined, envelopeFor(joined, [theirPhone.device_id]))).status).toBe(400);
    expect((await relay.envelopes(theirPhone, "")).json().envelopes).toEqual([]);
    // The other owner's phone cannot answer for the joined installation.
    expect((await relay.postAnswer(theirPhone, relay.answer(theirPhone, joined))).status).toBe(403);
    // Nor list its machines or make join codes for it.
    expect((await relay.request({ url: "/v1/installations", headers: auth(theirPhone.token) })).status).toBe(401);
    expect(
      (await relay.request({ url: "/v1/installations", headers: auth(theirs.token) })).json().installations,
    ).toEqual([expect.objectContaining({ installation_id: theirs.installation_id, this: true })]);
    // My phone still answers for the joined one.
    expect((await relay.postAnswer(myPhone, relay.answer(myPhone, joined))).status).toBe(201);
  });

  it("a pairing code does not join, a join code does not pair; bad bodies are 400", async () => {
    const owner = await relay.enroll("codes");
    const pairing = await relay.pairCode(owner);
    expect((await join({ code: pairing.code })).json().error.code).toBe("invalid_join_code");
    const code = await joinCode(owner);
    const claim = await relay.request({
      method: "POST",
      url: "/v1/pairings/claim",
      body: { code, device_name: "sneaky", public_key: { kty: "OKP", crv: "X25519", x: "A".repeat(43) } },
    });
    expect(claim.status).toBe(400);
    expect(claim.json().error.code).toBe("invalid_pairing_code");
    // The join code survives the wrong use.
    expect((await join({ code })).status).toBe(201);
    for (const body of [{}, { code: 7 }, { code: "ABCDEFGHJK", name: "" }, []]) {
      expect((await join(body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await relay.request({ method: "POST", url: "/v1/joins", body: {} })).status).toBe(401);
  });
});
