// Issue 37, item 1: the phone's Sessions view is fed by a sealed `sessions` payload the broker sends its phones when
// what the summary shows changes (relay-publisher.ts). A real relay in process, a simulated phone with its own key, a
// real SQLite store; each send is run by hand, so "nothing went" is a fact, not a wait.
import { hostname } from "node:os";
import { type Enrolled, envelopeFor, sqliteRelay } from "@notify/test-kit/relay-harness";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/domain/clock.js";
import type { OutboundRoute, ProviderProfile } from "../../src/outbox/types.js";
import { SessionsRelayPublisher } from "../../src/sessions/relay-publisher.js";
import { SessionRegistry } from "../../src/sessions/sessions.js";
import { openDatabase, unitOfWork } from "../../src/store/database.js";
import type { Json } from "../helpers.js";
import { fetchPayloads, pairPhone, startRelay } from "../relay/relay-harness.js";

/** A registry on an in-memory store and its publisher to one relay provider "phone", with the route `route()` gives. */
function publisherFor(url: string, installation: Enrolled, route: () => OutboundRoute) {
  const db = openDatabase(":memory:");
  const clock = new ManualClock(Date.now());
  const registry = new SessionRegistry(db, clock, unitOfWork(db));
  const profile = {
    id: "prv_phone",
    kind: "relay",
    name: "phone",
    enabled: true,
    settings: { url, installationId: installation.installation_id },
  } as unknown as ProviderProfile;
  const publisher = new SessionsRelayPublisher(
    registry,
    {
      listProfiles: () => [profile],
      listRoutes: () => [route()],
      openSecrets: () => ({ installationToken: installation.token }),
    },
    clock,
  );
  return { db, clock, registry, publisher };
}

describe("the sessions summary sealed to the phones (issue 37, item 1)", () => {
  it("goes when what it shows changes, once; not for a session that only stays busy", {
    timeout: 60_000,
  }, async () => {
    const relay = await startRelay();
    const installation = await relay.enroll("laptop");
    const phone = await pairPhone(relay, installation);
    let route = { providerId: "prv_phone", enabled: true, includeMessage: true } as OutboundRoute;
    const { db, clock, registry, publisher } = publisherFor(relay.url, installation, () => route);
    const summaries = async (): Promise<Json[]> =>
      ((await fetchPayloads(relay, phone, { sessions: true })) as Json[]).filter(
        (payload) => payload.payload_kind === "sessions",
      );
    const observe = (signal: "working" | "finished", extra: Json = {}) =>
      registry.observe({ agent: "claude-code", sessionId: "s-1", signal, ...extra });

    observe("working", { project: "shop", cwd: "/home/ada/shop" });
    await publisher.publish();
    const [first, ...more] = await summaries();
    expect(more).toEqual([]);
    expect(first).toMatchObject({
      payload_kind: "sessions",
      contract_version: "1",
      machine: hostname(),
      sessions: [{ agent: "claude-code", project: "shop", state: "working", open_questions: 0 }],
    });
    // The working directory stays on the machine.
    expect(JSON.stringify(first)).not.toContain("/home/ada");

    // Busy again (a tool ran): only its last-active time moved, so nothing goes.
    clock.advance(5_000);
    observe("working");
    await publisher.publish();
    expect(await summaries()).toEqual([]);

    // Finished: one summary, its last message's first line.
    observe("finished", { lastMessage: "All 412 tests pass.\nDone." });
    await publisher.publish();
    const next = await summaries();
    expect(next).toHaveLength(1);
    expect(next[0]?.sessions).toMatchObject([{ state: "finished", last_message: "All 412 tests pass." }]);

    // A route that carries titles only (IncludeMessage off): the states go, the agent's words do not.
    route = { ...route, includeMessage: false };
    observe("working");
    await publisher.publish();
    const [titlesOnly] = await summaries();
    expect(titlesOnly?.sessions).toMatchObject([{ state: "working" }]);
    expect(JSON.stringify(titlesOnly)).not.toContain("All 412 tests pass");
    // No enabled route to the relay: nothing goes.
    route = { ...route, enabled: false };
    observe("finished");
    await publisher.publish();
    expect(await summaries()).toEqual([]);
    publisher.stop();
    db.close();
  });

  it("is stored for the phone but wakes it with no push (Notify-Push: none): it asks nothing of the person", {
    timeout: 60_000,
  }, async () => {
    const woken: string[] = [];
    const relay = sqliteRelay({ push: { wake: (_device, _subscription, payload) => woken.push(payload.envelope_id) } });
    const url = await relay.listen();
    try {
      const installation = await relay.enroll("laptop");
      const subscription = {
        endpoint: "https://push.example.test/phone",
        keys: { p256dh: Buffer.alloc(65, 4).toString("base64url"), auth: Buffer.alloc(16, 1).toString("base64url") },
      };
      const { generateKeyPairSync } = await import("node:crypto");
      const { publicKey, privateKey } = generateKeyPairSync("x25519");
      const { x } = publicKey.export({ format: "jwk" }) as { x: string };
      const device = await relay.pair(installation, {
        public_key: { kty: "OKP", crv: "X25519", x },
        push_subscription: subscription,
      });
      const route = { providerId: "prv_phone", enabled: true, includeMessage: true } as OutboundRoute;
      const { db, registry, publisher } = publisherFor(url, installation, () => route);
      registry.observe({ agent: "codex", sessionId: "s-9", signal: "working", project: "docs" });
      await publisher.publish();
      const phone = { ...device, privateKey };
      expect(((await fetchPayloads(relay, phone, { sessions: true })) as Json[]).map((p) => p.payload_kind)).toEqual([
        "sessions",
      ]);
      expect(woken).toEqual([]);
      // A question's envelope to the same phone still wakes it.
      const question = await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]));
      expect(woken).toEqual([question.json().envelope_id]);
      publisher.stop();
      db.close();
    } finally {
      relay.app.server.closeAllConnections();
      await relay.close();
      relay.dir.remove();
    }
  });
});
