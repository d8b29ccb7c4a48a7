/**
 * Property tests of POST /v1/events (docs/arc.md through docs/api.md, "POST /v1/events") with fast-check. The
 * arbitraries live with the contracts tests (packages/test-kit/src/arc-arbitraries.ts) so both packages test the same
 * events.
 */

import {
  anyEvent,
  type Json,
  mutated,
  requestCreated,
  requestResolved,
  requestUpdated,
  responseSubmitted,
  withOneValueReplaced,
} from "@notify/test-kit/arc-arbitraries";
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Reply, type TestBroker, testBroker } from "../helpers.js";

// biome-ignore lint/suspicious/noExplicitAny: replies are read loosely, as the arbitraries build them.
type Loose = any;

/** Generated events reach 4000-character strings of 4-byte characters; the body limit is not under test here. */
const SETTINGS = { maxRequestBodyBytes: 8 * 1024 * 1024 };

const KINDS: Record<string, { type: string; priority: string; label: string }> = {
  information: { type: "info", priority: "normal", label: "Information" },
  question: { type: "input_required", priority: "high", label: "Question" },
  permission: { type: "permission_required", priority: "high", label: "Permission needed" },
  blocked: { type: "blocked", priority: "high", label: "Blocked" },
  failure: { type: "error", priority: "high", label: "Failure" },
  completion: { type: "completed", priority: "normal", label: "Completed" },
};

const post = (broker: TestBroker, body: unknown): Promise<Reply> => broker.call("POST", "/v1/events", body);

async function counts(broker: TestBroker): Promise<[number, number]> {
  const notifications = (await broker.call("GET", "/v1/notifications?limit=500")).body as Json[];
  const interactions = (await broker.call("GET", "/v1/interactions?limit=500")).body as Json[];
  return [notifications.length, interactions.length];
}

function expectWellFormed(reply: Reply): void {
  expect(reply.status, reply.text).toBeLessThan(500);
  const body = reply.body as Json;
  if (reply.status < 300) expect(Object.keys(body).sort()).toEqual(["interaction", "notification"]);
  else expect(typeof body.error).toBe("string");
}

/** The event's identity fingerprint as docs/arc.md defines it: RFC 8785 JSON of everything but occurred_at. */
function fingerprint(event: Json): string {
  const { occurred_at: _omit, ...rest } = event;
  return canonicalize(rest) as string;
}

/** Points a response.submitted at the open question under its key: its digest, nonce and a fitting answer. */
async function bindAnswer(broker: TestBroker, event: Json): Promise<void> {
  const key = (event.request as Json).key;
  const pending = (await broker.call("GET", "/v1/interactions?pending=true&limit=500")).body as Json[];
  const open = pending.find((interaction) => interaction.key === key) as Loose;
  if (!open) return;
  const { choice_id: _choice, text: _text, ...response } = event.response as Json;
  event.response =
    open.kind === "text"
      ? { ...response, digest: open.request_digest, nonce: open.nonce, text: "ok" }
      : { ...response, digest: open.request_digest, nonce: open.nonce, choice_id: open.choices[0].id };
}

describe("valid events through the broker (docs/arc.md via docs/api.md, 'POST /v1/events')", () => {
  it("every valid request.created gets 201 (new) or 200 (in place / replay) and projects as documented", async () => {
    const broker = testBroker(SETTINGS);
    const seen = new Map<string, string>();
    const activeKeys = new Set<string>();
    await fc.assert(
      fc.asyncProperty(requestCreated({ forBroker: true }), async (event) => {
        const request = event.request as Json;
        const sender = event.sender as Json;
        const identity = `${sender.id}\u0000${event.event_id}`;
        const prior = seen.get(identity);
        const reply = await post(broker, event);
        expectWellFormed(reply);
        if (prior !== undefined) {
          // The same sender and event pair: a retry (200) or, for a different event, a producer error (409).
          expect(reply.status).toBe(prior === fingerprint(event) ? 200 : 409);
          return;
        }
        seen.set(identity, fingerprint(event));
        const key = request.key as string | undefined;
        expect(reply.status, reply.text).toBe(key !== undefined && activeKeys.has(key) ? 200 : 201);
        if (key !== undefined) activeKeys.add(key);

        const { notification, interaction } = reply.body as Loose;
        const kind = KINDS[request.kind as string] as { type: string; priority: string; label: string };
        const notifyType = ((event.extensions as Json | undefined)?.["x-notify"] as Json | undefined)
          ?.notification_type;
        expect(notification).toMatchObject({
          agent: sender.id,
          type: notifyType ?? kind.type,
          priority: request.priority ?? kind.priority,
          title: request.title ?? `${kind.label} from ${sender.name ?? sender.id}`,
          message: request.message,
          status: "active",
        });
        expect(notification.key).toBe(key);
        expect((notification.metadata as Json).arc).toMatchObject({ event_id: event.event_id, kind: request.kind });
        // Stored exactly as returned.
        expect((await broker.call("GET", `/v1/notifications/${notification.id}`)).body).toEqual(notification);

        if (request.response === undefined) {
          expect(interaction).toBeNull();
        } else {
          const spec = request.response as Json;
          expect(interaction).toMatchObject({ kind: spec.kind, prompt: request.message, status: "pending" });
          expect(interaction.expires_at).toBe(new Date(Date.parse(spec.expires_at as string)).toISOString());
          expect((await broker.call("GET", `/v1/interactions/${interaction.id}`)).body).toEqual(interaction);
        }
      }),
      { numRuns: 150, endOnFailure: true },
    );
  });

  it("valid events of every type, on a shared pool of keys, never get a 5xx and keep the lifecycle invariants", async () => {
    const broker = testBroker(SETTINGS);
    const allowed: Record<string, number[]> = {
      "request.created": [200, 201, 409],
      "request.updated": [200, 404, 409],
      "request.resolved": [200, 404, 409],
      "response.submitted": [200, 400, 404, 409],
    };
    const withSharedKey = fc
      .tuple(anyEvent({ forBroker: true }), fc.option(fc.constantFrom("k1", "k2", "k3"), { freq: 2 }), fc.boolean())
      .map(([event, key, bind]) => ({
        event: key === null ? event : { ...event, request: { ...(event.request as Json), key } },
        bind,
      }));
    await fc.assert(
      fc.asyncProperty(fc.array(withSharedKey, { minLength: 1, maxLength: 6 }), async (steps) => {
        for (const { event, bind } of steps) {
          // Half the answers are bound to the open question under their key, so acceptance paths run too.
          if (bind && event.event_type === "response.submitted") await bindAnswer(broker, event);
          const reply = await post(broker, event);
          expectWellFormed(reply);
          expect(allowed[event.event_type as string], `${event.event_type} → ${reply.status} ${reply.text}`).toContain(
            reply.status,
          );
        }
        // docs/arc.md, "Questions": one open question per condition key, and it belongs to an active condition.
        const notifications = (await broker.call("GET", "/v1/notifications?limit=500")).body as Json[];
        const interactions = (await broker.call("GET", "/v1/interactions?pending=true&limit=500")).body as Json[];
        const activeKeys = notifications.filter((n) => n.status === "active" && n.key !== undefined).map((n) => n.key);
        expect(new Set(activeKeys).size).toBe(activeKeys.length);
        const pendingKeys = interactions.filter((i) => i.key !== undefined).map((i) => i.key);
        expect(new Set(pendingKeys).size).toBe(pendingKeys.length);
        for (const key of pendingKeys) expect(activeKeys).toContain(key);
      }),
      { numRuns: 60 },
    );
  });

  it.each([
    ["request.updated", requestUpdated({ forBroker: true })],
    ["request.resolved", requestResolved({ forBroker: true })],
    ["response.submitted", responseSubmitted({ forBroker: true })],
  ])("a valid %s for a key that was never used is 404 and stores nothing", async (_type, events) => {
    const broker = testBroker(SETTINGS);
    await fc.assert(
      fc.asyncProperty(events, async (event) => {
        const reply = await post(broker, event);
        expect(reply.status, reply.text).toBe(404);
        expect(await counts(broker)).toEqual([0, 0]);
      }),
      { numRuns: 40 },
    );
  });
});

describe("invalid input through the broker", () => {
  it("every single-field mutation that breaks the schema gets 400 and stores nothing", async () => {
    const broker = testBroker(SETTINGS);
    await fc.assert(
      fc.asyncProperty(mutated(anyEvent({ forBroker: true })), async ({ mutation, value }) => {
        const reply = await post(broker, value);
        expect(reply.status, `${mutation}: ${reply.text}`).toBe(400);
        expect(typeof (reply.body as Json).error).toBe("string");
        expect(await counts(broker)).toEqual([0, 0]);
      }),
      { numRuns: 200 },
    );
  });

  it("arbitrary JSON bodies never get a 5xx (and never store anything)", async () => {
    const broker = testBroker(SETTINGS);
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const reply = await post(broker, JSON.stringify(value));
        expectWellFormed(reply);
        expect(reply.status).toBe(400);
      }),
      { numRuns: 150 },
    );
    expect(await counts(broker)).toEqual([0, 0]);
  });

  it("arbitrary strings as bodies (mostly not JSON) never get a 5xx", async () => {
    const broker = testBroker(SETTINGS);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 200 }), async (text) => {
        const reply = await post(broker, text);
        expect(reply.status, reply.text).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
    expect(await counts(broker)).toEqual([0, 0]);
  });

  it("a valid event with one subtree replaced by arbitrary JSON never gets a 5xx", async () => {
    const broker = testBroker(SETTINGS);
    await fc.assert(
      fc.asyncProperty(
        anyEvent({ forBroker: true }),
        fc.jsonValue({ maxDepth: 2 }),
        fc.nat(),
        async (event, junk, pick) => {
          const copy = withOneValueReplaced(event, junk, pick);
          const reply = await post(broker, copy);
          expectWellFormed(reply);
        },
      ),
      { numRuns: 150 },
    );
  });
});
