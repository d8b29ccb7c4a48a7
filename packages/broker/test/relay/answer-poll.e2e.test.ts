// Issue 14, "Must show" 3: the real relay (in-process on loopback) and a real broker (listening on loopback, its
// dispatcher and relay poll running). A question opened on the broker reaches a simulated phone (an X25519 key
// from node:crypto) as a sealed envelope; the phone's answer, posted to the relay, is settled by the broker's poll
// with source relay and the device_id, and the agent's GET /wait returns (docs/relay.md, "The answer poll").
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Envelope } from "@notify/contracts/relay-envelope";
import { openEnvelope } from "@notify/contracts/relay-envelope";
import { until } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { type Json, tempDir } from "../helpers.js";
import { addRelayProvider, liveBroker, storedPollState } from "./broker-client.js";
import { pairPhone, type SimulatedPhone, startRelay } from "./relay-harness.js";

type Relay = Awaited<ReturnType<typeof startRelay>>;

/** The phone's side: wait for the next envelope, open it, return the payload and the envelope's sender. */
async function nextQuestion(relay: Relay, phone: SimulatedPhone): Promise<{ payload: Json; senderId: string }> {
  // Notices (a question closed elsewhere) are passed over: the next interaction-request is the question.
  for (let polls = 0; polls < 5; polls++) {
    const reply = await relay.envelopes(phone, phone.cursor, "&wait=20");
    const page = reply.json() as { envelopes: { envelope: Envelope }[]; next_cursor: string };
    phone.cursor = page.next_cursor;
    for (const row of page.envelopes) {
      const payload = (await openEnvelope(row.envelope, phone.device_id, phone.privateKey)) as Json;
      if (payload.payload_kind === "interaction-request") return { payload, senderId: row.envelope.sender_id };
    }
  }
  throw new Error("no question arrived");
}

function answerBody(payload: Json, senderId: string, phone: SimulatedPhone, fields: Record<string, unknown>) {
  return {
    contract_version: "1",
    response_id: randomUUID(),
    interaction_id: payload.interaction.id,
    request_digest: payload.interaction.request_digest,
    nonce: payload.interaction.nonce,
    installation_id: senderId,
    device_id: phone.device_id,
    ...fields,
  };
}

async function setUp() {
  const relay = await startRelay();
  const installation = await relay.enroll("laptop");
  const phone = await pairPhone(relay, installation);
  const dataDir = tempDir();
  let live = await liveBroker(dataDir);
  const providerId = await addRelayProvider(live, relay.url, installation);
  return {
    relay,
    installation,
    phone,
    dataDir,
    providerId,
    live: () => live,
    restart: async () => {
      await live.close();
      live = await liveBroker(dataDir);
      return live;
    },
    close: () => live.close(),
  };
}

describe("relay answer poll against the real relay (docs/relay.md, 'The answer poll')", () => {
  it("a phone's answer settles the question with source relay and its device_id, and the agent's wait returns", async () => {
    const world = await setUp();
    try {
      const asked = await world.live().call("POST", "/v1/interactions/request", {
        agent: "claude",
        project: "notify",
        prompt: "Run the migration on staging?",
      });
      expect(asked.status).toBe(201);
      const waiting = world.live().call("GET", `/v1/interactions/${asked.body.id}/wait?timeout=30`);
      const { payload, senderId } = await nextQuestion(world.relay, world.phone);
      expect(payload.interaction).toMatchObject({ id: asked.body.id, nonce: asked.body.nonce });
      const body = answerBody(payload, senderId, world.phone, { choice_id: "allow" });
      expect((await world.relay.postAnswer(world.phone, body)).status).toBe(201);

      const settled = await waiting;
      expect(settled.status).toBe(200);
      expect(settled.body).toMatchObject({
        status: "answered",
        response: {
          response_id: body.response_id,
          choice_id: "allow",
          source: "relay",
          device_id: world.phone.device_id,
        },
      });

      // Beyond v1: the question's relay gets a notice that it is closed (no digest, no nonce), for other phones.
      // (The question's companion notification may come first: the notice is looked for among what arrives.)
      let closed: Json | undefined;
      for (let polls = 0; polls < 5 && closed === undefined; polls++) {
        const page = (await world.relay.envelopes(world.phone, world.phone.cursor, "&wait=20")).json() as {
          envelopes: { envelope: Envelope }[];
          next_cursor: string;
        };
        world.phone.cursor = page.next_cursor;
        for (const row of page.envelopes) {
          const opened = (await openEnvelope(row.envelope, world.phone.device_id, world.phone.privateKey)) as Json;
          if (opened.notification?.interaction_status !== undefined) closed = opened;
        }
      }
      expect(closed).toMatchObject({
        payload_kind: "notification",
        notification: { interaction_id: asked.body.id, interaction_status: "answered", title: "Answered elsewhere" },
      });
      expect(JSON.stringify(closed)).not.toContain(asked.body.nonce);

      // A text question the same way.
      const text = await world.live().call("POST", "/v1/interactions/request", {
        kind: "text",
        prompt: "Commit message?",
        text_max_length: 50,
      });
      const textWait = world.live().call("GET", `/v1/interactions/${text.body.id}/wait?timeout=30`);
      const second = await nextQuestion(world.relay, world.phone);
      const textBody = answerBody(second.payload, second.senderId, world.phone, { text: "Fix the flaky test" });
      expect((await world.relay.postAnswer(world.phone, textBody)).status).toBe(201);
      expect((await textWait).body).toMatchObject({ status: "answered", response: { text: "Fix the flaky test" } });

      // The cursor is stored only after the answers are settled, and it is the relay's own cursor.
      await until(() => storedPollState(world.dataDir)?.cursor?.startsWith("c1.") === true);
    } finally {
      await world.close();
    }
  });

  it("repeated deliveries replay, a different second answer is refused, and the cursor survives a restart", async () => {
    const world = await setUp();
    try {
      const asked = await world.live().call("POST", "/v1/interactions/request", { prompt: "Deploy?" });
      const waiting = world.live().call("GET", `/v1/interactions/${asked.body.id}/wait?timeout=30`);
      const { payload, senderId } = await nextQuestion(world.relay, world.phone);
      const first = answerBody(payload, senderId, world.phone, { choice_id: "allow" });
      expect((await world.relay.postAnswer(world.phone, first)).status).toBe(201);
      await waiting;
      // The relay accepts a second, different answer (it checks shape only); the broker refuses it with 409 rules.
      const other = answerBody(payload, senderId, world.phone, { choice_id: "deny" });
      expect((await world.relay.postAnswer(world.phone, other)).status).toBe(201);
      await until(() => (world.live().broker.relayPoller.stats(world.providerId)?.refused ?? 0) >= 1);
      const kept = storedPollState(world.dataDir)?.cursor;
      expect(kept).toMatch(/^c1\./);

      // Restart: polling resumes from the stored cursor, so nothing is delivered again.
      const live = await world.restart();
      await until(() => (live.broker.relayPoller.stats(world.providerId)?.polls ?? 0) >= 1);
      expect(live.broker.relayPoller.stats(world.providerId)).toMatchObject({ accepted: 0, replayed: 0, refused: 0 });

      // Forget the cursor (an at-least-once redelivery): the first answer replays, the second is refused again.
      await live.close();
      const { DatabaseSync } = await import("node:sqlite");
      const db = new DatabaseSync(join(world.dataDir, "notify.db"));
      db.exec("UPDATE relay_cursors SET cursor = NULL");
      db.close();
      const again = await world.restart();
      await until(() => {
        const stats = again.broker.relayPoller.stats(world.providerId);
        return (stats?.replayed ?? 0) + (stats?.refused ?? 0) >= 2;
      });
      expect(again.broker.relayPoller.stats(world.providerId)).toMatchObject({ accepted: 0, replayed: 1, refused: 1 });
      const current = await again.call("GET", `/v1/interactions/${asked.body.id}`);
      expect(current.body.response).toMatchObject({ response_id: first.response_id, choice_id: "allow" });
    } finally {
      await world.close();
    }
  });

  it("401 and 403 stop the poll with the cursor kept; saving the provider again resumes it", async () => {
    const world = await setUp();
    try {
      const asked = await world.live().call("POST", "/v1/interactions/request", { prompt: "Deploy?" });
      const { payload, senderId } = await nextQuestion(world.relay, world.phone);
      await world.live().call("POST", `/v1/interactions/${asked.body.id}/cancel`);
      // A settled page moves the cursor (the answer to a cancelled question is refused, and acknowledged).
      expect(
        (await world.relay.postAnswer(world.phone, answerBody(payload, senderId, world.phone, { choice_id: "allow" })))
          .status,
      ).toBe(201);
      await until(() => storedPollState(world.dataDir)?.cursor?.startsWith("c1.") === true);
      const cursor = storedPollState(world.dataDir)?.cursor;

      // 401: a wrong installation token.
      const wrong = await world.live().call("PATCH", `/ui/api/outbound/providers/${world.providerId}`, {
        secrets: { installationToken: "nri_wrong" },
      });
      expect(wrong.status).toBe(200);
      await until(() => storedPollState(world.dataDir)?.stopped === 401);
      expect(storedPollState(world.dataDir)?.cursor).toBe(cursor);

      // 403: the right token, another installation's id.
      const other = await world.relay.enroll("other");
      await world.live().call("PATCH", `/ui/api/outbound/providers/${world.providerId}`, {
        secrets: { installationToken: world.installation.token },
        settings: { url: world.relay.url, installationId: other.installation_id },
      });
      await until(() => storedPollState(world.dataDir)?.stopped === 403);
      expect(storedPollState(world.dataDir)?.cursor).toBe(cursor);
      // Stopped means stopped: a restart does not poll a profile that was refused.
      const live = await world.restart();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(live.broker.relayPoller.stats(world.providerId)?.polls ?? 0).toBe(0);

      // Saving the right settings resumes from the kept cursor.
      await live.call("PATCH", `/ui/api/outbound/providers/${world.providerId}`, {
        settings: { url: world.relay.url, installationId: world.installation.installation_id },
      });
      await until(() => (live.broker.relayPoller.stats(world.providerId)?.polls ?? 0) >= 1);
      await until(() => storedPollState(world.dataDir)?.stopped === null);
      expect(live.broker.relayPoller.stats(world.providerId)).toMatchObject({ accepted: 0, replayed: 0 });

      // The log says why, and never holds a token or a nonce.
      const logs = readdirSync(join(world.dataDir, "logs"))
        .map((name) => readFileSync(join(world.dataDir, "logs", name), "utf8"))
        .join("");
      expect(logs).toContain("relay poll for provider phone stopped: HTTP 401");
      expect(logs).toContain("relay poll for provider phone stopped: HTTP 403");
      for (const secret of [world.installation.token, payload.interaction.nonce, world.phone.token]) {
        expect(logs).not.toContain(secret);
      }
    } finally {
      await world.close();
    }
  });

  it("relay down: the question waits in the outbox and the poll backs off, then both recover", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll();
    const phone = await pairPhone(relay, installation);
    const live = await liveBroker(tempDir());
    try {
      // A relay URL where nothing listens (a closed port): delivery retries, polling backs off.
      const { createServer } = await import("node:net");
      const closed = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, "127.0.0.1", () => {
          const port = (server.address() as { port: number }).port;
          server.close(() => resolve(port));
        });
      });
      const providerId = await addRelayProvider(live, `http://127.0.0.1:${closed}`, installation);
      const asked = await live.call("POST", "/v1/interactions/request", { prompt: "Deploy?" });
      await until(() => (live.broker.relayPoller.stats(providerId)?.failures ?? 0) >= 1);
      expect(live.broker.relayPoller.stats(providerId)?.lastCode).toBe("connection_refused");
      const items = await live.call("GET", "/ui/api/outbound/outbox");
      // The question's own item (its notification half has an item of its own too).
      await until(() => live.broker.outbox.itemsForInteraction(asked.body.id)[0]?.status === "Retry");
      expect(items.status).toBe(200);

      // The relay is reachable again (the URL fixed): publish is idempotent, and the question arrives.
      await live.call("PATCH", `/ui/api/outbound/providers/${providerId}`, {
        settings: { url: relay.url, installationId: installation.installation_id },
      });
      const published = await live.call("POST", `/v1/interactions/${asked.body.id}/publish`);
      expect(published.body).toEqual({ id: asked.body.id, published: 1 });
      expect(live.broker.outbox.itemsForInteraction(asked.body.id)).toHaveLength(1);
      const payload = await nextQuestion(relay, phone);
      expect(payload.payload.interaction.id).toBe(asked.body.id);
    } finally {
      await live.close();
    }
  });
});
