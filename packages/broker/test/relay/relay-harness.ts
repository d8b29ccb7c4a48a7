import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { type Envelope, openEnvelope } from "@notify/contracts/relay-envelope";
import { type Enrolled, type Paired, type RelayHarness, sqliteRelay } from "@notify/test-kit/relay-harness";
import { afterEach, expect } from "vitest";
import type { OutboundPayload } from "../../src/outbox/types.js";
import { type TestBroker, testBroker } from "../helpers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

export const UI = { "x-notify-ui": "1" };

/** A notification as the outbox hands it to an adapter (for calling the relay adapter directly). */
export const notificationFor = (id: string): OutboundPayload => ({
  id,
  title: "Build finished",
  type: "completed",
  priority: "normal",
  agent: "claude",
  createdAt: new Date().toISOString(),
});

/** A simulated phone: an X25519 key pair from node:crypto, paired through the relay's claim route. */
export interface SimulatedPhone extends Paired {
  privateKey: KeyObject;
  cursor?: string;
}

/** The real relay app (SQLite, in-process) listening on 127.0.0.1:0, closed after the test. */
export async function startRelay(): Promise<RelayHarness & { url: string }> {
  const relay = sqliteRelay();
  const url = await relay.listen();
  cleanups.push(async () => {
    // A broker closed mid-poll in this same process can leave a socket the relay still counts as busy (see
    // /work/notes/phone.md); the test's relay is closed hard so that never holds the suite.
    relay.app.server.closeAllConnections();
    await relay.close();
  });
  return Object.assign(relay, { url });
}

export async function pairPhone(relay: RelayHarness, installation: Enrolled, name = "Pixel"): Promise<SimulatedPhone> {
  const { publicKey, privateKey } = generateKeyPairSync("x25519");
  const jwk = publicKey.export({ format: "jwk" }) as { kty: string; crv: string; x: string };
  const { code } = await relay.pairCode(installation);
  const claim = await relay.request({
    url: "/v1/pairings/claim",
    body: { code, device_name: name, public_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } },
  });
  expect(claim.status).toBe(201);
  return { ...(claim.json() as Paired), privateKey };
}

/**
 * The envelopes waiting for a phone, opened with its private key (the cursor advances). The machine's sessions
 * summaries (issue 37, item 1: sent whenever a session changes) are left out unless `sessions` asks for them.
 */
export async function fetchPayloads(
  relay: RelayHarness,
  phone: SimulatedPhone,
  { sessions = false }: { sessions?: boolean } = {},
): Promise<unknown[]> {
  const reply = await relay.envelopes(phone, phone.cursor);
  expect(reply.status).toBe(200);
  const page = reply.json() as { envelopes: { envelope: Envelope }[]; next_cursor: string };
  phone.cursor = page.next_cursor;
  const opened = await Promise.all(
    page.envelopes.map((row) => openEnvelope(row.envelope, phone.device_id, phone.privateKey)),
  );
  return sessions
    ? opened
    : opened.filter((payload) => (payload as { payload_kind?: unknown }).payload_kind !== "sessions");
}

/**
 * A broker (manual clock set to now, dispatcher run by hand) with an enabled relay provider "phone" for
 * `installation` and one enabled route "questions" (IncludeMessage as given).
 */
export async function relayBroker(
  relayUrl: string,
  installation: Enrolled,
  route: { includeMessage?: boolean } = {},
  autoRun = false,
): Promise<TestBroker> {
  const broker = testBroker({}, { dispatcher: { autoRun, random: () => 1, attemptTimeoutMs: 5000 } });
  broker.clock.set(Date.now());
  const provider = await broker.call(
    "POST",
    "/ui/api/outbound/providers",
    {
      kind: "relay",
      name: "phone",
      enabled: true,
      settings: { url: relayUrl, installationId: installation.installation_id },
      secrets: { installationToken: installation.token },
    },
    UI,
  );
  expect(provider.status).toBe(201);
  const created = await broker.call(
    "POST",
    "/ui/api/outbound/routes",
    { name: "questions", provider: "phone", enabled: true, ...route },
    UI,
  );
  expect(created.status).toBe(201);
  return broker;
}
