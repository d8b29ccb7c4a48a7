import { RelayReceiptPage, RelayReceiptRecorded } from "@notify/contracts/relay-receipts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../src/http/rate-limit.js";
import { type Enrolled, envelopeFor, type Paired, RelayHarness, type Transport, until } from "./helpers.js";

/**
 * Receipts (issue 37 item 3; docs/relay.md, "Receipts"): a device reports `shown` and `opened` for envelopes sealed
 * to it, the relay records `fetched` when the device's cursor passes an envelope, and the installation reads its own
 * envelopes' receipts from GET /v1/receipts.
 */
describe.each<Transport>(["inject", "socket"])("receipts over %s", (transport) => {
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

  const report = (device: Paired, envelopeId: string, body: unknown) =>
    relay.request({
      url: `/v1/envelopes/${encodeURIComponent(envelopeId)}/receipts`,
      headers: { authorization: `Bearer ${device.token}` },
      body,
    });
  const receipts = (from: Enrolled, since?: string, extra = "") =>
    relay.request({
      url: `/v1/receipts?${since === undefined ? "" : `since=${encodeURIComponent(since)}`}${extra}`,
      headers: { authorization: `Bearer ${from.token}` },
    });
  const post = async (to: Paired[], key?: string, from: Enrolled = installation): Promise<string> => {
    const reply = await relay.request({
      url: "/v1/envelopes",
      headers: { authorization: `Bearer ${from.token}`, ...(key === undefined ? {} : { "idempotency-key": key }) },
      body: envelopeFor(
        from,
        to.map((device) => device.device_id),
      ),
    });
    expect(reply.status).toBe(201);
    return reply.json().envelope_id as string;
  };
  const states = (page: RelayReceiptPage) => page.receipts.map((r) => `${r.envelope_id}/${r.device_id}/${r.state}`);

  it("fetched when the device's cursor passes the envelope; shown and opened as reported; once each", async () => {
    const envelopeId = await post([phone, tablet], "obx_1.abc");
    const first = (await relay.envelopes(phone)).json();
    expect(first.envelopes).toHaveLength(1);
    // Served but not yet acknowledged: no receipt.
    expect(RelayReceiptPage.parse((await receipts(installation)).json()).receipts).toEqual([]);
    await relay.envelopes(phone, first.next_cursor);
    const fetched = RelayReceiptPage.parse((await receipts(installation)).json());
    expect(fetched.receipts).toEqual([
      {
        envelope_id: envelopeId,
        idempotency_key: "obx_1.abc",
        device_id: phone.device_id,
        state: "fetched",
        at: expect.any(String),
      },
    ]);

    const shown = await report(phone, envelopeId, { state: "shown" });
    expect(shown.status).toBe(201);
    expect(RelayReceiptRecorded.parse(shown.json())).toEqual({
      envelope_id: envelopeId,
      state: "shown",
      at: expect.any(String),
    });
    const again = await report(phone, envelopeId, { state: "shown" });
    expect(again.status).toBe(200);
    expect(again.json()).toEqual(shown.json());
    expect((await report(phone, envelopeId, { state: "opened" })).status).toBe(201);

    const page = RelayReceiptPage.parse((await receipts(installation, fetched.next_cursor)).json());
    expect(states(page)).toEqual([`${envelopeId}/${phone.device_id}/shown`, `${envelopeId}/${phone.device_id}/opened`]);
    // An empty page keeps the cursor.
    expect((await receipts(installation, page.next_cursor)).json()).toEqual({
      receipts: [],
      next_cursor: page.next_cursor,
    });
  });

  it("a report for an envelope the device never fetched records fetched with it (it has the envelope)", async () => {
    const envelopeId = await post([tablet]);
    expect((await report(tablet, envelopeId, { state: "opened" })).status).toBe(201);
    const page = RelayReceiptPage.parse((await receipts(installation)).json());
    expect(states(page)).toEqual([
      `${envelopeId}/${tablet.device_id}/fetched`,
      `${envelopeId}/${tablet.device_id}/opened`,
    ]);
    expect(page.receipts[0]).not.toHaveProperty("idempotency_key");
  });

  it("tenancy: a device reports only for envelopes sealed to it; an installation reads only its own", async () => {
    const envelopeId = await post([phone]);
    // Another of the owner's devices, not a recipient: the same 404 as an envelope that does not exist.
    const notSealed = await report(tablet, envelopeId, { state: "shown" });
    expect(notSealed.status).toBe(404);
    expect(notSealed.json()).toEqual({ error: { code: "not_found", message: "no such envelope for this device" } });
    expect((await report(tablet, "env_000000000000000000000000", { state: "shown" })).status).toBe(404);
    expect((await report(tablet, "anything", { state: "shown" })).status).toBe(404);

    const other = await relay.enroll("other");
    const stranger = await relay.pair(other);
    expect((await report(stranger, envelopeId, { state: "shown" })).status).toBe(404);
    const theirs = await post([stranger], undefined, other);
    expect((await report(stranger, theirs, { state: "shown" })).status).toBe(201);
    expect((await report(phone, envelopeId, { state: "shown" })).status).toBe(201);

    const mine = RelayReceiptPage.parse((await receipts(installation)).json());
    expect(mine.receipts.map((r) => r.envelope_id)).toEqual([envelopeId, envelopeId]);
    const others = RelayReceiptPage.parse((await receipts(other)).json());
    expect(others.receipts.map((r) => r.envelope_id)).toEqual([theirs, theirs]);
    // Tokens do not cross: a device cannot read the feed, an installation cannot report.
    expect((await receipts(phone as unknown as Enrolled)).status).toBe(401);
    expect((await report(installation as unknown as Paired, envelopeId, { state: "shown" })).status).toBe(401);
  });

  it("validates strictly: state shown|opened only, no other field, JSON only; errors in the relay's shapes", async () => {
    const envelopeId = await post([phone]);
    for (const body of [{}, { state: "fetched" }, { state: "read" }, { state: "shown", extra: 1 }, [], "shown", null]) {
      const reply = await report(phone, envelopeId, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.json().error.code).toBe("invalid_request");
    }
    const wrongType = await relay.request({
      url: `/v1/envelopes/${envelopeId}/receipts`,
      headers: { authorization: `Bearer ${phone.token}`, "content-type": "text/plain" },
      body: '{"state":"shown"}',
    });
    expect(wrongType.status).toBe(415);
    const noToken = await relay.request({ url: `/v1/envelopes/${envelopeId}/receipts`, body: { state: "shown" } });
    expect(noToken.status).toBe(401);
    // The feed's errors are strings, as on the answer feed.
    expect((await receipts(installation, "nonsense")).json()).toEqual({ error: "invalid_cursor" });
    expect((await relay.request({ url: "/v1/receipts" })).json()).toEqual({ error: "unauthorized" });
  });

  it("wait=N holds the receipt poll until a receipt arrives", async () => {
    const envelopeId = await post([phone]);
    const empty = (await receipts(installation)).json();
    const held = receipts(installation, empty.next_cursor, "&wait=10");
    await until(() => relay.hub.size === 1);
    expect((await report(phone, envelopeId, { state: "shown" })).status).toBe(201);
    expect(states((await held).json())).toEqual([
      `${envelopeId}/${phone.device_id}/fetched`,
      `${envelopeId}/${phone.device_id}/shown`,
    ]);
  });
});

describe("receipt rate limits", () => {
  it("reports are limited per device (a runaway phone), the feed per installation", async () => {
    const relay = RelayHarness.sqlite({ limits: DEFAULT_LIMITS });
    try {
      const installation = await relay.enroll("laptop");
      const phone = await relay.pair(installation);
      const posted = await relay.postEnvelope(installation, envelopeFor(installation, [phone.device_id]));
      const url = `/v1/envelopes/${posted.json().envelope_id}/receipts`;
      const statuses: number[] = [];
      for (let i = 0; i < DEFAULT_LIMITS.receiptPost.burst + 1; i += 1) {
        const reply = await relay.request({
          url,
          headers: { authorization: `Bearer ${phone.token}` },
          body: { state: "shown" },
        });
        statuses.push(reply.status);
        if (reply.status === 429) expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      }
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.filter((status) => status === 429)).toHaveLength(1);
      for (let i = 0; i < DEFAULT_LIMITS.receiptPoll.burst; i += 1) {
        await relay.request({ url: "/v1/receipts", headers: { authorization: `Bearer ${installation.token}` } });
      }
      const limited = await relay.request({
        url: "/v1/receipts",
        headers: { authorization: `Bearer ${installation.token}` },
      });
      expect(limited.status).toBe(429);
      expect(limited.json()).toEqual({ error: "rate_limited" });
    } finally {
      await relay.close();
    }
  });
});
