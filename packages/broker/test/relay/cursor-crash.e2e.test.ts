// docs/relay.md, "The answer poll", step 3: the broker keeps its cursor in durable local state. A broker
// process killed with SIGKILL resumes from the stored cursor: answers it already settled (and refusals it already
// logged) are not read again, and an answer posted while it was down is settled after the restart.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Envelope } from "@notify/contracts/relay-envelope";
import { openEnvelope } from "@notify/contracts/relay-envelope";
import { ENROLLMENT_TOKEN, until } from "@notify/test-kit";
import { spawnBroker } from "@notify/test-kit/broker-process";
import { describe, expect, it } from "vitest";
import { type Json, tempDir } from "../helpers.js";
import { storedPollState } from "./broker-client.js";
import { type SimulatedPhone, startRelay } from "./relay-harness.js";

type Relay = Awaited<ReturnType<typeof startRelay>>;

async function questions(
  relay: Relay,
  phone: SimulatedPhone,
  count: number,
): Promise<{ payload: Json; senderId: string }[]> {
  const found: { payload: Json; senderId: string }[] = [];
  while (found.length < count) {
    const page = (await relay.envelopes(phone, phone.cursor, "&wait=20")).json() as {
      envelopes: { envelope: Envelope }[];
      next_cursor: string;
    };
    phone.cursor = page.next_cursor;
    for (const row of page.envelopes) {
      const payload = (await openEnvelope(row.envelope, phone.device_id, phone.privateKey)) as Json;
      if (payload.payload_kind === "interaction-request") found.push({ payload, senderId: row.envelope.sender_id });
    }
  }
  return found;
}

const answer = (question: { payload: Json; senderId: string }, phone: SimulatedPhone, choice: string) => ({
  contract_version: "1",
  response_id: randomUUID(),
  interaction_id: question.payload.interaction.id,
  request_digest: question.payload.interaction.request_digest,
  nonce: question.payload.interaction.nonce,
  choice_id: choice,
  installation_id: question.senderId,
  device_id: phone.device_id,
});

describe("relay cursor across a broker SIGKILL", () => {
  it("resumes from the stored cursor and settles what arrived while it was down", async () => {
    const relay = await startRelay();
    const dataDir = tempDir();
    let broker = await spawnBroker(dataDir);
    const token = (JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")) as { authToken: string }).authToken;
    const call = async (port: number, method: string, path: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          "x-notify-ui": "1",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    try {
      const enrolled = await call(broker.port, "POST", "/ui/api/relay/enroll", {
        url: relay.url,
        enrollmentToken: ENROLLMENT_TOKEN,
      });
      expect(enrolled.status).toBe(201);
      const installationId = enrolled.body.settings.installationId as string;
      // The phone joins through the broker's pairing route (the device list is then read fresh).
      const pairing = await call(broker.port, "POST", "/ui/api/relay/pairings");
      const phone = await pairPhoneWithCode(relay, pairing.body.code);
      const first = await call(broker.port, "POST", "/v1/interactions/request", { prompt: "First?" });
      const second = await call(broker.port, "POST", "/v1/interactions/request", { prompt: "Second?" });
      // The two deliveries run side by side, so the phone may see them in either order.
      const seen = await questions(relay, phone, 2);
      const q1 = seen.find((q) => q.payload.interaction.id === first.body.id);
      const q2 = seen.find((q) => q.payload.interaction.id === second.body.id);
      expect(q1).toBeDefined();
      expect(q2).toBeDefined();

      const settled = call(broker.port, "GET", `/v1/interactions/${first.body.id}/wait?timeout=30`);
      expect((await relay.postAnswer(phone, answer(q1 as Json, phone, "allow"))).status).toBe(201);
      expect((await settled).body.status).toBe("answered");
      // A different second answer is refused (and logged once) before the crash.
      expect((await relay.postAnswer(phone, answer(q1 as Json, phone, "deny"))).status).toBe(201);
      const logs = () =>
        readdirSync(join(dataDir, "logs"))
          .map((name) => readFileSync(join(dataDir, "logs", name), "utf8"))
          .join("");
      await until(() => logs().includes(`relay answer for ${first.body.id} refused: HTTP 409`), 10_000);
      await until(() => storedPollState(dataDir)?.cursor != null);
      const cursor = storedPollState(dataDir)?.cursor;

      broker.child.kill("SIGKILL");
      expect((await broker.exited).signal).toBe("SIGKILL");
      // Answered while the broker is down.
      expect((await relay.postAnswer(phone, answer(q2 as Json, phone, "allow"))).status).toBe(201);

      broker = await spawnBroker(dataDir);
      const resumed = await call(broker.port, "GET", `/v1/interactions/${second.body.id}/wait?timeout=30`);
      expect(resumed.body).toMatchObject({
        status: "answered",
        response: { source: "relay", device_id: phone.device_id },
      });
      await until(() => storedPollState(dataDir)?.cursor !== cursor);
      // Not read again: the refusal of the first question's second answer is logged once, by the first process.
      expect(logs().split(`relay answer for ${first.body.id} refused`).length - 1).toBe(1);
      expect(installationId).toMatch(/^ins_/);
    } finally {
      broker.child.kill("SIGKILL");
      await broker.exited;
    }
  });
});

async function pairPhoneWithCode(relay: Relay, code: string): Promise<SimulatedPhone> {
  const { generateKeyPairSync } = await import("node:crypto");
  const { publicKey, privateKey } = generateKeyPairSync("x25519");
  const { x } = publicKey.export({ format: "jwk" }) as { x: string };
  const claim = await relay.request({
    url: "/v1/pairings/claim",
    body: { code, device_name: "Pixel", public_key: { kty: "OKP", crv: "X25519", x } },
  });
  expect(claim.status).toBe(201);
  return { ...(claim.json() as { device_id: string; token: string; owner_id: string }), privateKey };
}
