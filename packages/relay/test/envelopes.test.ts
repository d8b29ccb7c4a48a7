import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Enrolled, envelopeFor, type Paired, RelayHarness, type Transport, until } from "./helpers.js";

/**
 * docs/relay.md, "`POST /v1/envelopes` (installation token)": POST /v1/envelopes (installation) and GET /v1/envelopes
 * (device), same cursor rules.
 */
describe.each<Transport>(["inject", "socket"])("envelopes over %s", (transport) => {
  let relay: ReturnType<typeof RelayHarness.sqlite>;
  let installation: Enrolled;
  let phone: Paired;
  let tablet: Paired;

  beforeEach(async () => {
    relay = RelayHarness.sqlite();
    if (transport === "socket") await relay.listen();
    installation = await relay.enroll("laptop");
    phone = await relay.pair(installation);
    tablet = await relay.pair(installation);
  });
  afterEach(async () => relay.close());

  it("201 {envelope_id}; each recipient device fetches {envelope_id, envelope, created_at}", async () => {
    const envelope = envelopeFor(installation, [phone.device_id, tablet.device_id]);
    const posted = await relay.postEnvelope(installation, envelope);
    expect(posted.status).toBe(201);
    const { envelope_id } = posted.json();
    for (const device of [phone, tablet]) {
      const page = (await relay.envelopes(device)).json();
      expect(page.envelopes).toEqual([{ envelope_id, envelope, created_at: expect.any(String) }]);
      expect(typeof page.next_cursor).toBe("string");
    }
  });

  it("a device sees only envelopes addressed to it; another owner's device never receives one", async () => {
    const other = await relay.enroll("other");
    const stranger = await relay.pair(other);
    await relay.postEnvelope(installation, envelopeFor(installation, [phone.device_id, stranger.device_id]));
    expect((await relay.envelopes(phone)).json().envelopes).toHaveLength(1);
    expect((await relay.envelopes(tablet)).json().envelopes).toHaveLength(0);
    expect((await relay.envelopes(stranger)).json().envelopes).toHaveLength(0);
  });

  it("cursor rules: same cursor on an empty page, replay until acknowledged", async () => {
    await relay.postEnvelope(installation, envelopeFor(installation, [phone.device_id]));
    const first = (await relay.envelopes(phone)).json();
    expect((await relay.envelopes(phone, first.next_cursor)).json()).toEqual({
      envelopes: [],
      next_cursor: first.next_cursor,
    });
    await relay.postEnvelope(installation, envelopeFor(installation, [phone.device_id]));
    const second = (await relay.envelopes(phone, first.next_cursor)).json();
    expect(second.envelopes).toHaveLength(1);
    expect((await relay.envelopes(phone, first.next_cursor)).json().envelopes).toEqual(second.envelopes);
  });

  it("wait=N holds the fetch until an envelope arrives", async () => {
    const empty = (await relay.envelopes(phone)).json();
    const held = relay.envelopes(phone, empty.next_cursor, "&wait=10");
    await until(() => relay.hub.size === 1);
    const { envelope_id } = (
      await relay.postEnvelope(installation, envelopeFor(installation, [phone.device_id]))
    ).json();
    expect((await held).json().envelopes[0].envelope_id).toBe(envelope_id);
  });

  describe("Idempotency-Key (issue 31, item 8)", () => {
    const post = (body: unknown, key?: string, from: Enrolled = installation) =>
      relay.request({
        url: "/v1/envelopes",
        headers: { authorization: `Bearer ${from.token}`, ...(key === undefined ? {} : { "idempotency-key": key }) },
        body,
      });

    it("a retry of a stored envelope gets its envelope_id again and stores nothing", async () => {
      const envelope = envelopeFor(installation, [phone.device_id]);
      const first = await post(envelope, "obx_1.a1b2");
      expect(first.status).toBe(201);
      const again = await post(envelope, "obx_1.a1b2");
      expect(again.status).toBe(201);
      expect(again.json()).toEqual(first.json());
      expect((await relay.envelopes(phone)).json().envelopes).toHaveLength(1);
      // Without a key, or with another one, the same body is a new envelope; keys are per installation.
      expect((await post(envelope)).json().envelope_id).not.toBe(first.json().envelope_id);
      expect((await post(envelope, "obx_2")).json().envelope_id).not.toBe(first.json().envelope_id);
      const other = await relay.enroll("other");
      const stranger = await relay.pair(other);
      expect((await post(envelopeFor(other, [stranger.device_id]), "obx_1.a1b2", other)).status).toBe(201);
      expect((await relay.envelopes(phone)).json().envelopes).toHaveLength(3);
    });

    it("a retry still gets its envelope_id after its only recipient was revoked", async () => {
      const envelope = envelopeFor(installation, [tablet.device_id]);
      const first = (await post(envelope, "k")).json();
      await relay.request({
        method: "DELETE",
        url: `/v1/devices/${tablet.device_id}`,
        headers: { authorization: `Bearer ${installation.token}` },
      });
      const again = await post(envelope, "k");
      expect([again.status, again.json()]).toEqual([201, first]);
      expect((await post(envelope, "k2")).status).toBe(400);
    });

    it("the same key with another envelope is 409 conflict; a malformed key is 400", async () => {
      await post(envelopeFor(installation, [phone.device_id]), "k");
      const other = await post(envelopeFor(installation, [phone.device_id, tablet.device_id]), "k");
      expect(other.status).toBe(409);
      expect(other.json()).toEqual({
        error: { code: "conflict", message: "Idempotency-Key was already used for a different envelope" },
      });
      for (const key of ["", "has space", "x".repeat(256), "caf\u00e9"]) {
        const reply = await post(envelopeFor(installation, [phone.device_id]), key);
        expect(reply.status).toBe(400);
        expect(reply.json().error.code).toBe("invalid_request");
      }
      expect((await relay.envelopes(tablet)).json().envelopes).toHaveLength(0);
    });
  });

  describe("refusals", () => {
    it("401 without an installation token (POST) or a device token (GET), as strings for GET", async () => {
      expect(
        (await relay.postEnvelope({ ...installation, token: "nri_bad" }, envelopeFor(installation, [phone.device_id])))
          .status,
      ).toBe(401);
      const reply = await relay.envelopes({ ...phone, token: "nrd_bad" });
      expect(reply.status).toBe(401);
      expect(reply.json()).toEqual({ error: "unauthorized" });
    });

    it("403 when sender_id is not the posting installation", async () => {
      const other = await relay.enroll("other");
      expect((await relay.postEnvelope(installation, envelopeFor(other, [phone.device_id]))).status).toBe(403);
    });

    it("400 for a wrong envelope_version, a JWE without recipients or kid, or no paired recipient", async () => {
      const good = envelopeFor(installation, [phone.device_id]);
      const bad: unknown[] = [
        { ...good, envelope_version: "2" },
        { ...good, jwe: { ...good.jwe, recipients: [] } },
        { ...good, jwe: { ...good.jwe, recipients: [{ header: {}, encrypted_key: "x" }] } },
        { ...good, jwe: "compact.serialization.is.not.accepted" },
        envelopeFor(installation, ["dev_unknown"]),
      ];
      for (const body of bad) expect((await relay.postEnvelope(installation, body)).status).toBe(400);
    });

    it("a revoked device is skipped", async () => {
      await relay.request({
        method: "DELETE",
        url: `/v1/devices/${tablet.device_id}`,
        headers: { authorization: `Bearer ${installation.token}` },
      });
      expect((await relay.postEnvelope(installation, envelopeFor(installation, [tablet.device_id]))).status).toBe(400);
      expect(
        (await relay.postEnvelope(installation, envelopeFor(installation, [tablet.device_id, phone.device_id]))).status,
      ).toBe(201);
    });
  });
});
