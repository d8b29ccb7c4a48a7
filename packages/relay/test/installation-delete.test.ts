// Issue 32, item 5: DELETE /v1/installation (installation bearer) deletes the calling installation with its phones,
// answers, envelopes and pairing codes (`notify relay unenroll`); docs/relay.md. On both stores, over a real socket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { ENROLLMENT_TOKEN, type Enrolled, envelopeFor, RelayHarness } from "./helpers.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "./postgres.js";

const backends = ["sqlite", ...(postgresAvailable() ? ["postgres"] : [])] as const;

describe.each(backends)("DELETE /v1/installation on %s", (backend) => {
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
  const remove = (installation: Enrolled) =>
    relay.request({ method: "DELETE", url: "/v1/installation", headers: auth(installation.token) });

  it("deletes the installation and its phones; their tokens get 401 at once (held polls too); others stay", async () => {
    const leaving = await relay.enroll("leaving");
    const staying = await relay.enroll("staying");
    const phones = [await relay.pair(leaving), await relay.pair(leaving)];
    const other = await relay.pair(staying);
    expect((await relay.postEnvelope(leaving, envelopeFor(leaving, [phones[0]?.device_id ?? ""]))).status).toBe(201);
    expect((await relay.postAnswer(phones[1] ?? "", relay.answer(phones[1] ?? other, leaving))).status).toBe(201);
    expect((await relay.postEnvelope(staying, envelopeFor(staying, [other.device_id]))).status).toBe(201);
    await relay.pairCode(leaving);
    // A phone's held poll (everything so far acknowledged) ends with 401 when its installation is deleted.
    const first = await relay.envelopes(phones[1] ?? other, "");
    const held = relay.envelopes(phones[1] ?? other, first.json().next_cursor, "&wait=25");
    await new Promise((resolve) => setImmediate(resolve));

    const started = Date.now();
    const reply = await remove(leaving);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json()).toEqual({
      installation_id: leaving.installation_id,
      deleted: { devices: 2, answers: 1, envelopes: 1, pairings: 1 },
    });
    expect((await held).status).toBe(401);
    expect(Date.now() - started).toBeLessThan(10_000);

    for (const phone of phones) {
      expect((await relay.request({ url: "/v1/device", headers: auth(phone.token) })).status).toBe(401);
    }
    expect((await relay.request({ url: "/v1/devices", headers: auth(leaving.token) })).status).toBe(401);
    // Gone: a second delete is refused like any unknown token.
    const again = await remove(leaving);
    expect(again.status).toBe(401);
    expect(again.json().error.code).toBe("unauthorized");
    // An answer naming the deleted installation has no destination.
    expect((await relay.postAnswer(other, relay.answer(other, leaving))).status).toBe(403);

    const installations = await relay.store.read((tx) => tx.listInstallations());
    expect(installations.map((item) => item.id)).not.toContain(leaving.installation_id);
    const devices = await relay.store.read((tx) => tx.listDevices());
    expect(devices.map((item) => item.id)).toContain(other.device_id);
    for (const phone of phones) expect(devices.map((item) => item.id)).not.toContain(phone.device_id);
    const listed = await relay.request({ url: "/v1/devices", headers: auth(staying.token) });
    expect(listed.json().devices.map((item: { device_id: string }) => item.device_id)).toEqual([other.device_id]);
    expect((await relay.envelopes(other, "")).json().envelopes).toHaveLength(1);
  }, 60_000);

  it("401 for a device token, the enrollment token or none; nothing deleted", async () => {
    const installation = await relay.enroll("kept");
    const phone = await relay.pair(installation);
    for (const headers of [{}, auth(phone.token), auth(ENROLLMENT_TOKEN), auth("nri_wrong")]) {
      const reply = await relay.request({ method: "DELETE", url: "/v1/installation", headers });
      expect(reply.status).toBe(401);
      expect(reply.json().error.code).toBe("unauthorized");
    }
    expect((await relay.request({ url: "/v1/device", headers: auth(phone.token) })).status).toBe(200);
    expect((await relay.request({ url: "/v1/devices", headers: auth(installation.token) })).status).toBe(200);
  });
});
