// Issue 14, Build item 1, beyond v1: a question that closes without an answer (cancelled, expired, superseded)
// sends the relay the same "closed" notice an answer elsewhere does, so phones close its card. Real relay on
// loopback, a simulated phone opening what it receives with its own X25519 key.
import { describe, expect, it } from "vitest";
import type { Json } from "../helpers.js";
import { fetchPayloads, pairPhone, relayBroker, startRelay } from "./relay-harness.js";

async function world() {
  const relay = await startRelay();
  const installation = await relay.enroll("laptop");
  const phone = await pairPhone(relay, installation);
  const broker = await relayBroker(relay.url, installation);
  const ask = async (body: Record<string, unknown>) => {
    const asked = await broker.call("POST", "/v1/interactions/request", { prompt: "Deploy now?", ...body });
    expect(asked.status).toBe(201);
    return asked.body as Json;
  };
  /** Runs the dispatcher and returns the closed notices the phone receives (not the questions themselves). */
  const notices = async () => {
    await broker.dispatcher.runDue();
    const payloads = (await fetchPayloads(relay, phone)) as Json[];
    return payloads.filter((payload) => payload.notification?.interaction_status !== undefined);
  };
  return { broker, ask, notices };
}

describe("closed notices for questions settled without an answer", () => {
  it("a cancelled question sends 'Question cancelled' with no digest or nonce", async () => {
    const { broker, ask, notices } = await world();
    const question = await ask({});
    expect(await notices()).toEqual([]);
    expect((await broker.call("POST", `/v1/interactions/${question.id}/cancel`)).status).toBe(200);
    const sent = await notices();
    expect(sent).toEqual([
      expect.objectContaining({
        payload_kind: "notification",
        notification: expect.objectContaining({
          interaction_id: question.id,
          interaction_status: "cancelled",
          title: "Question cancelled",
        }),
      }),
    ]);
    expect(JSON.stringify(sent)).not.toContain(question.nonce);
    expect(JSON.stringify(sent)).not.toContain(question.request_digest);
  });

  it("an expired question sends 'Question expired'", async () => {
    const { broker, ask, notices } = await world();
    const question = await ask({ ttl_seconds: 30 });
    expect(await notices()).toEqual([]);
    broker.clock.advance(31_000);
    expect((await broker.call("GET", `/v1/interactions/${question.id}`)).body).toMatchObject({ status: "expired" });
    expect((await notices()).map((payload) => payload.notification)).toEqual([
      expect.objectContaining({
        interaction_id: question.id,
        interaction_status: "expired",
        title: "Question expired",
      }),
    ]);
  });

  it("a superseded question (same key, changed request) sends 'Question superseded', then the new one goes", async () => {
    const { ask, notices, broker } = await world();
    const first = await ask({ key: "deploy" });
    expect(await notices()).toEqual([]);
    const second = await ask({ key: "deploy", prompt: "Deploy to staging now?" });
    expect(second.id).not.toBe(first.id);
    await broker.dispatcher.runDue();
    const sent = await notices();
    expect(sent.map((payload) => payload.notification)).toEqual([
      expect.objectContaining({
        interaction_id: first.id,
        interaction_status: "superseded",
        title: "Question superseded",
      }),
    ]);
  });

  it("a question never sent to the relay gets no notice when it is cancelled", async () => {
    const { broker, notices } = await world();
    await broker.call("PATCH", "/ui/api/outbound/routes/questions", { includeMessage: false }, { "x-notify-ui": "1" });
    const asked = await broker.call("POST", "/v1/interactions/request", { prompt: "Quiet?" });
    await broker.call("POST", `/v1/interactions/${(asked.body as Json).id}/cancel`);
    expect(await notices()).toEqual([]);
  });
});
