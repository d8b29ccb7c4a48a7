// docs/relay.md, "Outbox items for questions": the outbox carries any deliverable, a notification to a provider route
// or an interaction to a relay route (issue 14). These tests pin the generic item: its migration, its listing, and its
// way through the dispatcher.
import { describe, expect, it } from "vitest";
import type { InteractionDto } from "../../src/interactions/types.js";
import { createMemoryLogger } from "../../src/log/logger.js";
import { Dispatcher } from "../../src/outbox/dispatcher.js";
import { InteractionOutbox } from "../../src/outbox/interaction-outbox.js";
import { OutboundService } from "../../src/outbox/outbound-service.js";
import { webhookAdapter } from "../../src/outbox/providers/webhook.js";
import type { DeliveryResult, ProviderAdapter } from "../../src/outbox/types.js";
import { SecretSealer } from "../../src/secrets/sealer.js";
import { unitOfWork } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrations.js";
import { SqliteOutboundStore } from "../../src/store/outbound-store.js";
import { SqliteOutboxStore } from "../../src/store/outbox-store.js";
import type { Json } from "../helpers.js";
import { databaseAt, hookServer, manualBroker } from "./outbox-harness.js";

/** A provider kind that carries questions, recording what it is given. */
function questionCarrier(results: DeliveryResult[] = []) {
  const questions: InteractionDto[] = [];
  const notifications: string[] = [];
  const adapter: ProviderAdapter = {
    kind: "carrier",
    parseSettings: () => ({}),
    secrets: { required: [], optional: [] },
    send: async (payload) => {
      notifications.push(payload.title);
      return { ok: true };
    },
    sendInteraction: async (interaction) => {
      questions.push(interaction);
      return results.shift() ?? { ok: true };
    },
  };
  return { adapter, questions, notifications };
}

/** A broker, plus an outbound service, question outbox and dispatcher over its database that know `adapters`. */
function withAdapters(adapters: ProviderAdapter[]) {
  const broker = manualBroker();
  const unit = unitOfWork(broker.db);
  const outbound = new OutboundService(
    new SqliteOutboundStore(broker.db),
    broker.outbox,
    new SecretSealer(broker.dataDir),
    new Map(adapters.map((adapter) => [adapter.kind, adapter])),
    broker.clock,
    unit,
    { questionOf: () => undefined, interaction: (id) => broker.interactions.find(id) },
  );
  const dispatcher = new Dispatcher(broker.outbox, outbound, broker.clock, unit, createMemoryLogger(), {
    autoRun: false,
    random: () => 1,
    attemptTimeoutMs: 5_000,
  });
  const questions = new InteractionOutbox(
    outbound,
    broker.outbox,
    broker.clock,
    unit,
    () => undefined,
    (id) => dispatcher.retry(id),
  );
  return { broker, outbound, questions, dispatcher };
}

const ask = (broker: ReturnType<typeof manualBroker>, prompt = "Deploy to production?") =>
  broker.interactions.request({
    agent: "claude",
    project: "notify",
    kind: "permission",
    prompt,
    choices: [
      { id: "allow", label: "Allow" },
      { id: "deny", label: "Deny" },
    ],
    text_max_length: 500,
    ttl_seconds: 600,
  }).interaction;

describe("generic outbox items (migration 6)", () => {
  it("keeps every item written before migration 6 as a notification item", () => {
    const db = databaseAt(5);
    db.prepare(`INSERT INTO outbox (notification_seq, route_id, provider_id, include_message, status,
      next_attempt_ms, created_ms, updated_ms) VALUES (2, 'rte_a', 'prv_a', 1, 'Pending', 0, 0, 0)`).run();
    migrate(db);
    const [item] = new SqliteOutboxStore(db).list({ limit: 10 });
    expect(item).toMatchObject({ subject: "notification", notificationId: "ntf_bbb", payload: { title: "second" } });
  });

  it("sends an interaction item through sendInteraction with the question as it is at send time", async () => {
    const carrier = questionCarrier();
    const { broker, outbound, questions, dispatcher } = withAdapters([carrier.adapter]);
    outbound.saveProfile({ kind: "carrier", name: "phone", enabled: true });
    outbound.saveRoute({ name: "questions", provider: "phone", enabled: true });
    const interaction = ask(broker);
    expect(questions.enqueueNew(interaction)).toBe(1);

    const [listed] = broker.outbox.list({ limit: 10 });
    expect(listed).toMatchObject({
      subject: "interaction",
      interactionId: interaction.id,
      status: "Pending",
      payload: { id: interaction.id, title: "Deploy to production?", type: "permission_required", agent: "claude" },
    });
    // A listing is a summary: the nonce and the digest stay in the interaction.
    expect(JSON.stringify(listed)).not.toContain(interaction.nonce);
    expect(JSON.stringify(listed)).not.toContain(interaction.request_digest);

    expect(await dispatcher.runDue()).toBe(1);
    expect(carrier.questions).toEqual([interaction]);
    expect(carrier.notifications).toEqual([]);
    expect(broker.outbox.list({ limit: 10 })[0]?.status).toBe("Delivered");
  });

  it("publish is idempotent per interaction and provider, and revives a dead letter", async () => {
    const carrier = questionCarrier([{ ok: false, retryable: false, code: "http_400", status: 400 }]);
    const { broker, outbound, questions, dispatcher } = withAdapters([carrier.adapter]);
    outbound.saveProfile({ kind: "carrier", name: "phone", enabled: true });
    // Two matching routes to one provider still make one item.
    outbound.saveRoute({ name: "one", provider: "phone", enabled: true });
    outbound.saveRoute({ name: "two", provider: "phone", enabled: true });
    const interaction = ask(broker);
    expect(questions.publish(interaction)).toBe(1);
    expect(questions.publish(interaction)).toBe(1);
    expect(broker.outbox.itemsForInteraction(interaction.id)).toHaveLength(1);
    await dispatcher.runDue();
    expect(broker.outbox.list({ limit: 10 })[0]).toMatchObject({ status: "DeadLetter", lastCode: "http_400" });
    expect(questions.publish(interaction)).toBe(1);
    expect(await dispatcher.runDue()).toBe(1);
    expect(broker.outbox.itemsForInteraction(interaction.id)).toEqual([
      expect.objectContaining({ status: "Delivered" }),
    ]);
    expect(carrier.questions).toHaveLength(2);
  });

  it("never enqueues a question for a route with IncludeMessage off, a disabled route, or a kind without questions", async () => {
    const carrier = questionCarrier();
    const hook = await hookServer();
    const { broker, outbound, questions } = withAdapters([carrier.adapter, webhookAdapter]);
    outbound.saveProfile({ kind: "carrier", name: "phone", enabled: true });
    outbound.saveRoute({ name: "titles-only", provider: "phone", enabled: true, includeMessage: false });
    outbound.saveRoute({ name: "off", provider: "phone", enabled: false });
    outbound.saveProfile({ kind: "webhook", name: "hook", settings: { url: hook.url }, enabled: true });
    outbound.saveRoute({ name: "hooked", provider: "hook", enabled: true });
    expect(questions.configured()).toBe(false);
    const interaction = ask(broker);
    expect(questions.enqueueNew(interaction)).toBe(0);
    expect(questions.publish(interaction)).toBe(0);
    expect(broker.outbox.itemsForInteraction(interaction.id)).toEqual([]);
  });

  it("dead-letters an interaction item on a kind that cannot carry questions, sending nothing", async () => {
    const hook = await hookServer();
    const { broker, outbound, dispatcher } = withAdapters([webhookAdapter]);
    const profile = outbound.saveProfile({ kind: "webhook", name: "hook", settings: { url: hook.url }, enabled: true });
    const route = outbound.saveRoute({ name: "hooked", provider: "hook", enabled: true });
    const interaction = ask(broker);
    broker.outbox.enqueueInteraction(interaction.id, { id: route.id, providerId: profile.id, includeMessage: true }, 0);
    await dispatcher.runDue();
    expect(broker.outbox.list({ limit: 10 })[0]).toMatchObject({
      status: "DeadLetter",
      lastCode: "provider_kind_unsupported",
    });
    expect(hook.received).toEqual([]);
  });

  it("lists notification and interaction items side by side over /ui/api", async () => {
    const carrier = questionCarrier();
    const { broker, outbound, questions } = withAdapters([carrier.adapter]);
    outbound.saveProfile({ kind: "carrier", name: "phone", enabled: true });
    outbound.saveRoute({ name: "questions", provider: "phone", enabled: true });
    questions.enqueueNew(ask(broker, "Which branch?"));
    const listed = (await broker.call("GET", "/ui/api/outbound/outbox")).body as Json;
    expect(listed.items.map((item: Json) => [item.subject, item.payload.title])).toEqual([
      ["interaction", "Which branch?"],
    ]);
  });
});
