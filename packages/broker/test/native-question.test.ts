import { afterEach, describe, expect, it } from "vitest";
import { type Json, type TestBroker, testBroker } from "./helpers.js";
import { recordingServer } from "./outbox/webhook-server.js";

const UI = { "x-notify-ui": "1" };
const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});

async function open(broker: TestBroker, body: Record<string, unknown>): Promise<Json> {
  const reply = await broker.call("POST", "/v1/interactions/request", body);
  expect(reply.status).toBeLessThan(300);
  return reply.body as Json;
}

async function notificationOf(broker: TestBroker, interactionId: string): Promise<Json[]> {
  const list = (await broker.call("GET", "/v1/notifications")).body as Json[];
  return list.filter((n) => n.metadata?.interaction_id === interactionId);
}

async function answer(broker: TestBroker, question: Json, choice: string): Promise<number> {
  const reply = await broker.call("POST", `/v1/interactions/${question.id}/respond`, {
    response_id: `r-${question.id}`,
    request_digest: question.request_digest,
    nonce: question.nonce,
    choice_id: choice,
  });
  return reply.status;
}

describe("a native question has a notification half (issue 12, item 3)", () => {
  it("permission: a permission_required notification with the prompt; answered resolves it", async () => {
    const broker = testBroker();
    const question = await open(broker, { prompt: "Run rm -rf build?", agent: "ci", project: "web" });
    const [notification] = await notificationOf(broker, question.id);
    expect(notification).toMatchObject({
      type: "permission_required",
      priority: "high",
      status: "active",
      title: "Permission needed from ci",
      message: "Run rm -rf build?",
      agent: "ci",
      project: "web",
      metadata: { interaction_id: question.id },
    });
    expect(JSON.stringify(notification)).not.toContain(question.nonce);
    expect(await answer(broker, question, "allow")).toBe(200);
    expect((await notificationOf(broker, question.id))[0]?.status).toBe("resolved");
  });

  it("single_choice and text are input_required; cancel resolves the notification", async () => {
    const broker = testBroker();
    const choice = await open(broker, {
      kind: "single_choice",
      prompt: "Which env?",
      choices: [
        { id: "a", label: "A" },
        { id: "b", label: "B" },
      ],
    });
    const text = await open(broker, { kind: "text", prompt: "Name?" });
    expect((await notificationOf(broker, choice.id))[0]).toMatchObject({
      type: "input_required",
      title: "Question from unknown",
    });
    expect((await notificationOf(broker, text.id))[0]?.type).toBe("input_required");
    await broker.call("POST", `/v1/interactions/${text.id}/cancel`);
    expect((await notificationOf(broker, text.id))[0]?.status).toBe("resolved");
    expect((await notificationOf(broker, choice.id))[0]?.status).toBe("active");
  });

  it("expiry resolves it; a keyed reuse adds no second notification; a superseded one resolves", async () => {
    const broker = testBroker();
    const first = await open(broker, { prompt: "Deploy?", key: "deploy", ttl_seconds: 30 });
    const again = await open(broker, { prompt: "Deploy?", key: "deploy", ttl_seconds: 30 });
    expect(again.id).toBe(first.id);
    expect(await notificationOf(broker, first.id)).toHaveLength(1);
    expect(((await broker.call("GET", "/v1/notifications")).body as Json[]).length).toBe(1);

    const changed = await open(broker, { prompt: "Deploy now?", key: "deploy", ttl_seconds: 30 });
    expect((await notificationOf(broker, first.id))[0]?.status).toBe("resolved");
    expect((await notificationOf(broker, changed.id))[0]?.status).toBe("active");

    broker.clock.advance(31_000);
    expect(((await broker.call("GET", `/v1/interactions/${changed.id}`)).body as Json).status).toBe("expired");
    expect((await notificationOf(broker, changed.id))[0]?.status).toBe("resolved");
  });

  it("an ARC question keeps its own notification rules (one notification, the ARC one)", async () => {
    const broker = testBroker();
    const reply = await broker.call("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: "e1",
      event_type: "request.created",
      occurred_at: "2026-01-01T00:00:00Z",
      sender: { id: "codex" },
      request: {
        key: "k",
        kind: "permission",
        message: "Allow?",
        response: {
          kind: "permission",
          choices: [
            { id: "allow", label: "Allow" },
            { id: "deny", label: "Deny" },
          ],
          expires_at: "2026-01-01T00:10:00Z",
        },
      },
    });
    expect(reply.status).toBe(201);
    const list = (await broker.call("GET", "/v1/notifications")).body as Json[];
    expect(list).toHaveLength(1);
    expect(list[0].metadata).not.toHaveProperty("interaction_id");
  });
});

describe("the outbound payload names the question, never its nonce", () => {
  it("a native question is delivered to a loopback webhook with its id, kind and choices", async () => {
    const broker = testBroker({}, { dispatcher: { autoRun: false, random: () => 1, attemptTimeoutMs: 2_000 } });
    const hook = await recordingServer();
    servers.push(hook);
    expect(
      (
        await broker.call(
          "POST",
          "/ui/api/outbound/providers",
          { kind: "webhook", name: "hook", settings: { url: hook.url }, enabled: true },
          UI,
        )
      ).status,
    ).toBe(201);
    expect(
      (await broker.call("POST", "/ui/api/outbound/routes", { name: "all", provider: "hook", enabled: true }, UI))
        .status,
    ).toBe(201);

    const question = await open(broker, {
      kind: "single_choice",
      prompt: "Ship build 1432?",
      agent: "claude-code",
      choices: [
        { id: "ship", label: "Ship it", detail: "deploys main now" },
        { id: "wait", label: "Wait" },
      ],
    });
    expect(await broker.dispatcher.runDue()).toBe(1);
    expect(hook.received).toHaveLength(1);
    const body = hook.received[0]?.body ?? "";
    const delivered = JSON.parse(body);
    expect(delivered.notification).toMatchObject({
      type: "input_required",
      title: "Question from claude-code",
      message: "Ship build 1432?",
      interaction: {
        id: question.id,
        kind: "single_choice",
        choices: [
          { id: "ship", label: "Ship it", detail: "deploys main now" },
          { id: "wait", label: "Wait" },
        ],
        expiresAt: question.expires_at,
      },
    });
    expect(body).not.toContain(question.nonce);
    expect(body).not.toContain(question.request_digest);

    // A plain notification carries no interaction.
    await broker.call("POST", "/v1/notifications", { title: "Build done", message: "ok" });
    expect(await broker.dispatcher.runDue()).toBe(1);
    expect(JSON.parse(hook.received[1]?.body ?? "{}").notification).not.toHaveProperty("interaction");
  });
});
