// Issue 37 item 3, "Receipts" (docs/relay.md, "Receipts" and "Receipts on the broker"): a real relay (SQLite,
// in-process on loopback) and a real broker (listening, its dispatcher and relay polls running). A simulated phone
// (an X25519 key from node:crypto) fetches the question, reports it shown and opened, and answers: each hop is on the
// item's timeline. A route whose phone never fetches is flagged after `receipts.warnAfterSeconds` (1 s here) on the
// Outbound page's route and in `notify doctor`, and the flag goes once the phone fetches.
import type { Envelope } from "@notify/contracts/relay-envelope";
import { openEnvelope } from "@notify/contracts/relay-envelope";
import type { ItemTimeline, TimelineEntry, UnfetchedRoutes } from "@notify/contracts/ui";
import { untilValue } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../cli/cli-harness.js";
import type { Json } from "../helpers.js";
import { pairPhone, type SimulatedPhone, startRelay } from "./relay-harness.js";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type Relay = Awaited<ReturnType<typeof startRelay>>;

/** The page's own calls: bearer and the UI header its changes carry. */
async function ui<T = Json>(broker: CliBroker, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${broker.broker.url}/ui/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${broker.token}`,
      "x-notify-ui": "1",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.ok, `${method} ${path}: ${response.status} ${text}`).toBe(true);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A broker with `receipts.warnAfterSeconds` 1, enrolled at a real relay, its route "questions", and one phone. */
async function world() {
  const relay = await startRelay();
  const installation = await relay.enroll("laptop");
  const phone = await pairPhone(relay, installation);
  const broker = await startCliBroker({ receipts: { warnAfterSeconds: 1 } });
  closers.push(() => broker.close());
  await ui(broker, "POST", "/outbound/providers", {
    kind: "relay",
    name: "phone",
    enabled: true,
    settings: { url: relay.url, installationId: installation.installation_id },
    secrets: { installationToken: installation.token },
  });
  const route = await ui<{ id: string }>(broker, "POST", "/outbound/routes", {
    name: "questions",
    provider: "phone",
    enabled: true,
    includeMessage: true,
  });
  const ask = async (prompt: string): Promise<string> => {
    const asked = await broker.api<{ id: string }>("POST", "/v1/interactions/request", { agent: "claude", prompt });
    expect(asked.status).toBe(201);
    return asked.body.id;
  };
  return { relay, phone, broker, routeId: route.id, ask };
}

/** The phone's fetch: the next page (held up to 20 s), its cursor kept; the question envelope of `id`, if there. */
async function fetchPage(relay: Relay, phone: SimulatedPhone, id: string): Promise<string | undefined> {
  const page = (await relay.envelopes(phone, phone.cursor, "&wait=20")).json() as {
    envelopes: { envelope_id: string; envelope: Envelope }[];
    next_cursor: string;
  };
  phone.cursor = page.next_cursor;
  for (const row of page.envelopes) {
    const payload = (await openEnvelope(row.envelope, phone.device_id, phone.privateKey)) as Json;
    if (payload.payload_kind === "interaction-request" && payload.interaction.id === id) return row.envelope_id;
  }
  return undefined;
}

const report = (relay: Relay, phone: SimulatedPhone, envelopeId: string, state: "shown" | "opened") =>
  relay.request({
    url: `/v1/envelopes/${envelopeId}/receipts`,
    headers: { authorization: `Bearer ${phone.token}` },
    body: { state },
  });

const words = (entry: TimelineEntry) =>
  entry.event === "receipt"
    ? `receipt ${entry.state}`
    : entry.event === "delivery"
      ? `delivery ${entry.outcome}`
      : entry.event === "settled"
        ? `settled ${entry.status}`
        : entry.event;

describe("receipts through a real relay (issue 37 item 3)", () => {
  it("the phone's fetch, shown and opened reach the question's timeline, in order", async () => {
    const { relay, phone, broker, ask } = await world();
    const id = await ask("Deploy to staging?");
    let envelopeId: string | undefined;
    for (let polls = 0; polls < 5 && envelopeId === undefined; polls++) envelopeId = await fetchPage(relay, phone, id);
    expect(envelopeId).toBeDefined();
    // The next fetch sends the cursor back: the relay records `fetched` (nothing new has to arrive for that).
    await relay.envelopes(phone, phone.cursor);
    expect((await report(relay, phone, envelopeId as string, "shown")).status).toBe(201);
    expect((await report(relay, phone, envelopeId as string, "opened")).status).toBe(201);

    const timeline = await untilValue(
      "the opened receipt on the timeline",
      async () => {
        const read = await ui<ItemTimeline>(broker, "GET", `/interactions/${id}/timeline`);
        return read.entries.some((entry) => entry.event === "receipt" && entry.state === "opened") ? read : undefined;
      },
      { timeoutMs: 30_000, everyMs: 200 },
    );
    // The question goes with its companion notification (two envelopes, each fetched); shown and opened are the
    // question's card's, once each, all after the item reached the relay.
    const receipts = timeline.entries.filter((entry) => entry.event === "receipt");
    for (const receipt of receipts) {
      expect(receipt).toMatchObject({
        device_id: phone.device_id,
        route: { id: expect.any(String), name: "questions", provider_kind: "relay" },
      });
    }
    const lines = timeline.entries.map(words);
    expect(lines[0]).toBe("created");
    expect(lines.filter((line) => line === "receipt shown")).toHaveLength(1);
    expect(lines.filter((line) => line === "receipt opened")).toHaveLength(1);
    const sent = lines.indexOf("delivery sent");
    const fetched = lines.lastIndexOf("receipt fetched");
    expect(sent).toBeGreaterThan(0);
    expect(fetched).toBeGreaterThan(sent);
    expect(lines.indexOf("receipt shown")).toBeGreaterThan(fetched);
    expect(lines.indexOf("receipt opened")).toBeGreaterThan(lines.indexOf("receipt shown"));
    expect(lines.at(-1)).toBe("receipt opened");
  }, 60_000);

  it("a phone that never fetches flags its route after receipts.warnAfterSeconds, on the page and in doctor", async () => {
    const { relay, phone, broker, routeId, ask } = await world();
    const quiet = await ui<UnfetchedRoutes>(broker, "GET", "/relay/unfetched");
    expect(quiet).toEqual({ warn_after_seconds: 1, routes: [] });
    const id = await ask("Merge the release branch?");
    // Handed to the relay, and no phone fetches it: flagged once a second has passed (and the receipt poll runs).
    const flagged = await untilValue(
      "the route flagged",
      async () => {
        const read = await ui<UnfetchedRoutes>(broker, "GET", "/relay/unfetched");
        return read.routes.length > 0 ? read : undefined;
      },
      { timeoutMs: 30_000, everyMs: 200 },
    );
    expect(flagged.routes).toEqual([
      {
        route_id: routeId,
        route_name: "questions",
        provider_id: expect.any(String),
        // The question and its companion notification: two envelopes, neither fetched.
        unfetched: 2,
        oldest_at: expect.any(String),
      },
    ]);
    const doctor = await runCli(["doctor", "--json", ...broker.target], cliEnv({ DBUS_SESSION_BUS_ADDRESS: "" }));
    const relayCheck = (
      JSON.parse(doctor.stdout) as { checks: { name: string; status: string; detail: string }[] }
    ).checks.find((check) => check.name === "relay");
    expect(relayCheck).toMatchObject({ status: "warn" });
    expect(relayCheck?.detail).toContain("route questions: 2 deliveries not fetched by any phone after 1 s");

    // The phone fetches (and sends the cursor back): the flag goes.
    let envelopeId: string | undefined;
    for (let polls = 0; polls < 5 && envelopeId === undefined; polls++) envelopeId = await fetchPage(relay, phone, id);
    await relay.envelopes(phone, phone.cursor);
    await untilValue(
      "the flag gone",
      async () =>
        (await ui<UnfetchedRoutes>(broker, "GET", "/relay/unfetched")).routes.length === 0 ? true : undefined,
      { timeoutMs: 30_000, everyMs: 200 },
    );
  }, 90_000);
});
