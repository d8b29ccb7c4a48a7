/**
 * The TypeScript producer client (@notify/contracts, ArcProducer) against a real broker on loopback. It lives with
 * the broker tests so the contracts package does not depend on the broker.
 */
import { ArcHttpError, type ArcInteraction, ArcProducer } from "@notify/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { type Json, tempDir } from "../helpers.js";

let running: RunningBroker | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function broker(): Promise<RunningBroker> {
  running = await startBroker({ dataDir: tempDir(), port: 0, env: {} });
  return running;
}

function producer(target: RunningBroker, fetchImpl?: typeof fetch): ArcProducer {
  return new ArcProducer({
    baseUrl: target.url,
    token: target.settings.authToken,
    sender: { id: "codex", name: "Codex CLI" },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

const inMinutes = (minutes: number): string => new Date(Date.now() + minutes * 60_000).toISOString();

const PERMISSION = {
  kind: "permission" as const,
  message: "Allow rm -rf build/?",
  response: {
    kind: "permission" as const,
    choices: [
      { id: "allow", label: "Allow" },
      { id: "deny", label: "Deny" },
    ],
    expires_at: inMinutes(10),
  },
};

/** Answers as the local UI, CLI or relay would: POST /v1/interactions/{id}/respond. */
async function respond(target: RunningBroker, interaction: ArcInteraction, choiceId: string): Promise<Response> {
  return fetch(`${target.url}/v1/interactions/${interaction.id}/respond`, {
    method: "POST",
    headers: { authorization: `Bearer ${target.settings.authToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      response_id: "tap-1",
      request_digest: interaction.request_digest,
      nonce: interaction.nonce,
      choice_id: choiceId,
      source: "desktop",
    }),
  });
}

describe("ArcProducer against a running broker (docs/arc.md, waiting for an answer)", () => {
  it("asks, waits, and receives the answer given through /respond; the condition resolves", async () => {
    const target = await broker();
    const client = producer(target);
    const asked = await client.create({ ...PERMISSION, key: "deploy" });
    expect(asked.status).toBe(201);
    expect(asked.notification).toMatchObject({ key: "deploy", type: "permission_required", status: "active" });
    const interaction = asked.interaction as ArcInteraction;
    expect(interaction).toMatchObject({ key: "deploy", status: "pending", prompt: PERMISSION.message });

    const waiting = client.waitForAnswer(interaction.id, { pollTimeoutSeconds: 1 });
    // Let at least one poll time out (the loop must wait again), then answer.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await respond(target, interaction, "deny")).status).toBe(200);
    const answered = await waiting;
    expect(answered).toMatchObject({
      id: interaction.id,
      status: "answered",
      response: { response_id: "tap-1", choice_id: "deny", source: "desktop" },
    });
    const notification = (await (
      await fetch(`${target.url}/v1/notifications/${asked.notification?.id}`, {
        headers: { authorization: `Bearer ${target.settings.authToken}` },
      })
    ).json()) as Json;
    expect(notification.status).toBe("resolved");
  });

  it("create, in-place create, update and resolve return the broker's statuses and records", async () => {
    const target = await broker();
    const client = producer(target);
    const first = await client.create({ key: "build", kind: "information", message: "Building" });
    expect(first.status).toBe(201);
    expect(first.interaction).toBeNull();
    const again = await client.create({ key: "build", kind: "information", message: "Still building" });
    expect(again.status).toBe(200);
    expect(again.notification?.id).toBe(first.notification?.id);
    const updated = await client.update("build", { kind: "failure", message: "Build failed", priority: "critical" });
    expect(updated.status).toBe(200);
    expect(updated.notification).toMatchObject({ id: first.notification?.id, type: "error", priority: "critical" });
    const resolved = await client.resolve("build", "not_needed");
    expect(resolved).toMatchObject({ status: 200, notification: { status: "resolved" }, interaction: null });
    expect((await client.resolve("build")).status).toBe(200);
  });

  it("resolve withdraws the open question: the waiter returns it as cancelled", async () => {
    const target = await broker();
    const client = producer(target);
    const asked = await client.create({ ...PERMISSION, key: "deploy" });
    const waiting = client.waitForAnswer((asked.interaction as ArcInteraction).id, { pollTimeoutSeconds: 5 });
    await client.resolve("deploy");
    expect((await waiting).status).toBe("cancelled");
  });

  it("an update that changes the question ends the wait on the old one as superseded", async () => {
    const target = await broker();
    const client = producer(target);
    const asked = await client.create({ ...PERMISSION, key: "deploy" });
    const waiting = client.waitForAnswer((asked.interaction as ArcInteraction).id, { pollTimeoutSeconds: 5 });
    const updated = await client.update("deploy", { ...PERMISSION, message: "Allow rm -rf dist/?" });
    expect((await waiting).status).toBe("superseded");
    expect(updated.interaction?.status).toBe("pending");
    expect(updated.interaction?.id).not.toBe(asked.interaction?.id);
  });

  it("a deadline returns the still pending interaction; an aborted signal rejects", async () => {
    const target = await broker();
    const client = producer(target);
    const asked = await client.create({ ...PERMISSION, key: "deploy" });
    const id = (asked.interaction as ArcInteraction).id;
    const started = Date.now();
    const pending = await client.waitForAnswer(id, { deadline: new Date(Date.now() + 500), pollTimeoutSeconds: 30 });
    expect(pending.status).toBe("pending");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await client.waitForAnswer(id, { deadline: new Date(Date.now() - 1) })).status).toBe("pending");

    const controller = new AbortController();
    const aborted = client.waitForAnswer(id, { signal: controller.signal, pollTimeoutSeconds: 30 });
    setTimeout(() => controller.abort(new Error("stop waiting")), 50);
    await expect(aborted).rejects.toThrow("stop waiting");
  });

  it("errors are ArcHttpError {status, error}: 404 update, 400 invalid event, 409 reused event_id, 401 bad token", async () => {
    const target = await broker();
    const client = producer(target);
    const failure = async (promise: Promise<unknown>): Promise<ArcHttpError> => {
      const error = await promise.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ArcHttpError);
      return error as ArcHttpError;
    };
    expect(await failure(client.update("ghost", { kind: "information", message: "m" }))).toMatchObject({
      status: 404,
      error: "notification not found",
    });
    const invalid = await failure(client.create({ kind: "information", message: "m".repeat(4001) }));
    expect(invalid.status).toBe(400);
    expect(invalid.error).toContain("$.request.message");
    expect(invalid.message).toContain("HTTP 400");

    await client.create({ key: "k", kind: "information", message: "one" }, { eventId: "evt-1" });
    const replay = await client.create({ key: "k", kind: "information", message: "one" }, { eventId: "evt-1" });
    expect(replay.status).toBe(200);
    expect(
      await failure(client.create({ key: "k", kind: "information", message: "two" }, { eventId: "evt-1" })),
    ).toMatchObject({
      status: 409,
    });

    const stranger = new ArcProducer({ baseUrl: target.url, token: "wrong", sender: { id: "codex" } });
    expect(await failure(stranger.resolve("k"))).toMatchObject({ status: 401, error: "unauthorized" });
    expect(await failure(client.waitForAnswer("int_000000000000000000000000"))).toMatchObject({
      status: 404,
      error: "interaction not found",
    });
  });

  it("fills the envelope: arc_version 0.2, a UUID event_id, occurred_at now, sender, context and extensions", async () => {
    const target = await broker();
    const sent: { url: string; init: RequestInit }[] = [];
    const recording: typeof fetch = async (input, init) => {
      sent.push({ url: String(input), init: init ?? {} });
      return fetch(input, init);
    };
    const client = new ArcProducer({
      baseUrl: `${target.url}/`,
      token: target.settings.authToken,
      sender: { id: "codex", version: "1.2.3" },
      fetch: recording,
    });
    const before = Date.now();
    const result = await client.create(
      { kind: "completion", message: "Done" },
      {
        context: { project: "notify", pid: 42 },
        extensions: { "x-notify": { notification_type: "deploy_gate" }, "x-acme": { trace: "t-1" } },
      },
    );
    expect(result.status).toBe(201);
    expect(result.notification).toMatchObject({ type: "deploy_gate", project: "notify", pid: 42 });
    await client.create({ kind: "completion", message: "Done" });

    expect(sent).toHaveLength(2);
    const [first, second] = sent as [{ url: string; init: RequestInit }, { url: string; init: RequestInit }];
    expect(first.url).toBe(`${target.url}/v1/events`);
    expect(first.init.method).toBe("POST");
    expect(first.init.headers).toMatchObject({
      authorization: `Bearer ${target.settings.authToken}`,
      "content-type": "application/json",
    });
    const event = JSON.parse(first.init.body as string) as Json;
    expect(event).toEqual({
      arc_version: "0.2",
      event_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      event_type: "request.created",
      occurred_at: expect.any(String),
      sender: { id: "codex", version: "1.2.3" },
      request: { kind: "completion", message: "Done" },
      context: { project: "notify", pid: 42 },
      extensions: { "x-notify": { notification_type: "deploy_gate" }, "x-acme": { trace: "t-1" } },
    });
    expect(Date.parse(event.occurred_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(event.occurred_at)).toBeLessThanOrEqual(Date.now());
    // A fresh event_id per call: the second create is a second condition, not a replay.
    expect((JSON.parse(second.init.body as string) as Json).event_id).not.toBe(event.event_id);
  });
});
