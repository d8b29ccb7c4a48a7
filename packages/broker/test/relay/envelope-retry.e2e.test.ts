// Issue 31, item 8: an envelope POST whose 201 is lost (the relay committed, the broker saw the connection drop) is
// retried by the outbox. Each POST carries an Idempotency-Key (docs/relay.md, POST /v1/envelopes), so the retry
// gets the first envelope_id back and the phone receives each envelope once, not twice.
import { createServer, request as httpRequest, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { relayAdapter } from "../../src/relay/relay-adapter.js";
import type { Json } from "../helpers.js";
import { fetchPayloads, notificationFor, pairPhone, relayBroker, startRelay } from "./relay-harness.js";

/**
 * A loopback proxy in front of the relay. While `dropEnvelopeReplies` is set, an envelope POST reaches the relay
 * (which stores it and answers) but the broker's connection is cut before the answer: a lost 201.
 */
async function lossyProxy(target: string) {
  const seen: { key: string | undefined; status: number; body: string }[] = [];
  const state = { dropEnvelopeReplies: false };
  const server: Server = createServer((incoming, outgoing) => {
    const upstream = httpRequest(
      new URL(incoming.url ?? "/", target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const body = Buffer.concat(chunks);
          if (incoming.method === "POST" && incoming.url === "/v1/envelopes") {
            const key = incoming.headers["idempotency-key"];
            seen.push({
              key: typeof key === "string" ? key : undefined,
              status: answer.statusCode ?? 0,
              body: `${body}`,
            });
            if (state.dropEnvelopeReplies) {
              outgoing.socket?.destroy();
              return;
            }
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(body);
        });
      },
    );
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${port}`, seen, state };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe("envelope retries after a lost 201 (issue 31, item 8)", () => {
  it("the outbox's retry gets the first envelope_id back: the phone receives each envelope once", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll("laptop");
    const phone = await pairPhone(relay, installation);
    const proxy = await lossyProxy(relay.url);
    const broker = await relayBroker(proxy.url, installation);
    const asked = await broker.call("POST", "/v1/interactions/request", {
      agent: "claude",
      kind: "single_choice",
      prompt: "Deploy?",
      choices: [
        { id: "yes", label: "Yes" },
        { id: "no", label: "No" },
      ],
    });
    expect(asked.status).toBe(201);

    // The question and its notification half: both stored by the relay, both replies lost.
    proxy.state.dropEnvelopeReplies = true;
    expect(await broker.dispatcher.runDue()).toBe(2);
    expect(proxy.seen.map((post) => post.status)).toEqual([201, 201]);
    const items = broker.outbox.itemsForInteraction((asked.body as Json).id);
    expect(items.map((item) => item.status)).toEqual(["Retry"]);

    // The retries (after the backoff) carry the same keys and get the same envelope ids.
    proxy.state.dropEnvelopeReplies = false;
    broker.clock.set(broker.clock.now() + 60_000);
    expect(await broker.dispatcher.runDue()).toBe(2);
    const payloads = (await fetchPayloads(relay, phone)) as Json[];
    expect(payloads.map((payload) => payload.payload_kind).sort()).toEqual(["interaction-request", "notification"]);
    const [first, second, ...retries] = proxy.seen;
    expect(retries).toHaveLength(2);
    for (const retry of retries) {
      const original = [first, second].find((post) => post?.key === retry.key);
      expect(retry.key).toMatch(/^obx_\S+\.[A-Za-z0-9_-]{22}$/);
      expect([retry.status, retry.body]).toEqual([201, original?.body]);
    }
    expect(broker.outbox.itemsForInteraction((asked.body as Json).id)[0]?.status).toBe("Delivered");
  });

  it("a retry sealed again (a restarted broker) is answered 409 conflict by the relay, which counts as delivered", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll("laptop");
    const phone = await pairPhone(relay, installation);
    const proxy = await lossyProxy(relay.url);
    const settings = { url: proxy.url, installationId: installation.installation_id };
    const secrets = { installationToken: installation.token };
    const payload = notificationFor("ntf_1");
    const context = () => ({ idempotencyKey: "obx_test_1", signal: AbortSignal.timeout(10_000) });
    expect(await relayAdapter.send(payload, settings, secrets, context())).toEqual({ ok: true, status: 201 });
    // A second sealing of the same item for the same phone: new random bytes under the same key.
    expect(await relayAdapter.send(payload, settings, secrets, context())).toEqual({ ok: true, status: 409 });
    expect(proxy.seen.map((post) => post.status)).toEqual([201, 409]);
    expect(proxy.seen[0]?.key).toBe(proxy.seen[1]?.key);
    expect(await fetchPayloads(relay, phone)).toHaveLength(1);
  });
});
