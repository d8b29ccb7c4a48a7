import { describe, expect, it } from "vitest";
import { TelegramServer } from "../chat/telegram-server.js";
import type { Json, TestBroker } from "../helpers.js";
import { hookRoutes, hookServer, manualBroker, onCleanup, UI } from "./outbox-harness.js";

// Issue 37, item 4 (docs/outbound.md, "Less noise"): `digest_seconds` on a route, through the broker's dispatcher
// driven by hand (manual clock, runDue), to a loopback webhook and a loopback Telegram Bot API.

const BOT_TOKEN = "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_secret";

/** A call to the broker's API (with `X-Notify-UI: 1`), its body as JSON. */
async function api(
  broker: TestBroker,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const reply = await broker.call(method, url, body, UI);
  return { status: reply.status, body: reply.body as Json };
}

async function notify(broker: TestBroker, count: number, extra: Json = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 1; index <= count; index++) {
    const reply = await api(broker, "POST", "/v1/notifications", {
      title: `Build ${index} done`,
      message: "m",
      key: `digest-${index}`,
      ...extra,
    });
    expect(reply.status).toBe(201);
    ids.push(reply.body.id);
  }
  return ids;
}

const outboxItems = async (broker: TestBroker): Promise<Json[]> =>
  (await api(broker, "GET", "/ui/api/outbound/outbox?limit=100")).body.items;

async function telegramBroker(route: Json): Promise<{ broker: TestBroker; tg: TelegramServer }> {
  const tg = await new TelegramServer(BOT_TOKEN).start();
  onCleanup(() => tg.close());
  const broker = manualBroker();
  const provider = await api(broker, "POST", "/ui/api/outbound/providers", {
    kind: "telegram",
    name: "bot",
    settings: { chatId: 4242, apiBaseUrl: tg.url },
    secrets: { botToken: BOT_TOKEN },
    enabled: true,
  });
  expect(provider.status).toBe(201);
  const created = await api(broker, "POST", "/ui/api/outbound/routes", {
    name: "all",
    provider: "bot",
    enabled: true,
    includeMessage: true,
    ...route,
  });
  expect(created.status).toBe(201);
  return { broker, tg };
}

describe("digest routes (digest_seconds)", () => {
  it("is checked and stored: 0-3600 whole seconds, 0 and null put the default back", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    const [id] = await hookRoutes(broker, hook.url, [{ name: "r" }]);
    const patch = (body: Json) => api(broker, "PATCH", `/ui/api/outbound/routes/${id}`, body);
    expect((await patch({ digest_seconds: 3601 })).body.error).toBe(
      "digest_seconds: must be 0-3600 seconds (0: one message per item)",
    );
    expect((await patch({ digest_seconds: 1.5 })).status).toBe(400);
    expect((await patch({ replace_finished: "no" })).body.error).toBe("replace_finished: must be true or false");
    expect((await patch({ digest_seconds: 300, replace_finished: false })).body).toMatchObject({
      digest_seconds: 300,
      replace_finished: false,
    });
    expect(((await api(broker, "GET", "/ui/api/outbound/routes")).body as Json[])[0]).toMatchObject({
      digest_seconds: 300,
    });
    const cleared = (await patch({ digest_seconds: 0, replace_finished: null })).body as Json;
    expect(cleared.digest_seconds).toBeUndefined();
    expect(cleared.replace_finished).toBeUndefined();
  });

  it("a webhook (cannot edit) gets ONE message for ten items, at the window's end", async () => {
    const broker = manualBroker();
    const hook = await hookServer();
    const [id] = await hookRoutes(broker, hook.url, [{ name: "digest" }]);
    expect((await api(broker, "PATCH", `/ui/api/outbound/routes/${id}`, { digest_seconds: 60 })).status).toBe(200);
    await notify(broker, 10);
    await broker.dispatcher.runDue();
    // Inside the window nothing went: every item waits for its end, no attempt counted.
    expect(hook.received).toHaveLength(0);
    const waiting = await outboxItems(broker);
    expect(waiting.map((item) => [item.status, item.attempts, item.lastCode])).toEqual(
      Array(10).fill(["Retry", 0, "digest_window"]),
    );
    broker.clock.advance(59_999);
    await broker.dispatcher.runDue();
    expect(hook.received).toHaveLength(0);
    broker.clock.advance(1);
    await broker.dispatcher.runDue();
    expect(hook.received).toHaveLength(1);
    const body = JSON.parse(hook.received[0]?.body ?? "{}");
    expect(body.notification).toMatchObject({ type: "digest", title: "Notify: 10 items" });
    expect(body.notification.message.split("\n")).toEqual(
      Array.from({ length: 10 }, (_, index) => `• Build ${index + 1} done`),
    );
    expect((await outboxItems(broker)).map((item) => item.status)).toEqual(Array(10).fill("Delivered"));
    // The next item opens the next window.
    await notify(broker, 1, { key: "digest-11", title: "Build 11 done" });
    await broker.dispatcher.runDue();
    broker.clock.advance(60_000);
    await broker.dispatcher.runDue();
    expect(hook.received).toHaveLength(2);
    expect(JSON.parse(hook.received[1]?.body ?? "{}").notification.message).toBe("• Build 11 done");
  });

  it("a failed window send is not repeated for each of its items: they share it, and one later send delivers all", async () => {
    const broker = manualBroker();
    const hook = await hookServer([500]);
    const [id] = await hookRoutes(broker, hook.url, [{ name: "digest" }]);
    expect((await api(broker, "PATCH", `/ui/api/outbound/routes/${id}`, { digest_seconds: 60 })).status).toBe(200);
    await notify(broker, 10);
    await broker.dispatcher.runDue();
    broker.clock.advance(60_000);
    await broker.dispatcher.runDue();
    expect(hook.received).toHaveLength(1);
    const failed = await outboxItems(broker);
    expect(failed.map((item) => [item.status, item.attempts, item.lastCode])).toEqual(
      Array(10).fill(["Retry", 1, "http_500"]),
    );
    broker.clock.advance(10 * 60_000);
    await broker.dispatcher.runDue();
    expect(hook.received).toHaveLength(2);
    expect((await outboxItems(broker)).map((item) => item.status)).toEqual(Array(10).fill("Delivered"));
  });

  it("Telegram gets ONE message for ten items, edited as they join and as they settle", async () => {
    const { broker, tg } = await telegramBroker({ digest_seconds: 600 });
    const ids = await notify(broker, 10);
    await broker.dispatcher.runDue();
    expect(tg.callsOf("sendMessage")).toHaveLength(1);
    const message = tg.sent()[0] as Json;
    const last = () => (tg.callsOf("editMessageText").at(-1)?.text as string | undefined) ?? message.text;
    const lines = Array.from({ length: 10 }, (_, index) => `• Build ${index + 1} done`);
    expect(last()).toBe(`Notify: 10 items\n\n${lines.join("\n")}`);
    expect((await outboxItems(broker)).map((item) => item.status)).toEqual(Array(10).fill("Delivered"));
    // Each settle edits the same message.
    for (const [index, id] of ids.entries()) {
      expect((await api(broker, "POST", `/v1/notifications/${id}/dismiss`, {})).status).toBe(200);
      lines[index] = `✓ Build ${index + 1} done (dismissed)`;
      const open = 9 - index;
      await expect.poll(last, { timeout: 20_000 }).toBe(`Notify: 10 items, ${open} open\n\n${lines.join("\n")}`);
    }
    const edits = tg.callsOf("editMessageText");
    expect(edits.every((edit) => edit.message_id === message.message_id && edit.chat_id === "4242")).toBe(true);
    expect(tg.callsOf("sendMessage")).toHaveLength(1);
  });

  it("Telegram: a session's next 'finished' notification edits its last one (replace_finished, on by default)", async () => {
    const { broker, tg } = await telegramBroker({});
    const finished = (title: string, key: string) =>
      api(broker, "POST", "/v1/notifications", { title, message: "done", type: "completed", key });
    expect((await finished("Claude Code finished in shop", "claude-code:session:a")).status).toBe(201);
    await broker.dispatcher.runDue();
    // Dismissed, so the next one with the same key is a new notification (not a dedup refresh).
    const first = (await outboxItems(broker))[0] as Json;
    await api(broker, "POST", `/v1/notifications/${first.notificationId}/dismiss`, {});
    expect((await finished("Claude Code finished again in shop", "claude-code:session:a")).status).toBe(201);
    expect((await finished("Codex finished in web", "codex:session:b")).status).toBe(201);
    await broker.dispatcher.runDue();
    expect(tg.callsOf("sendMessage").map((body) => body.text)).toEqual([
      "Claude Code finished in shop\n\ndone",
      "Codex finished in web\n\ndone",
    ]);
    expect(tg.callsOf("editMessageText")).toEqual([
      expect.objectContaining({
        message_id: tg.sent()[0]?.message_id,
        text: "Claude Code finished again in shop\n\ndone",
      }),
    ]);
    // Off: every finished notification is its own message.
    const route = ((await api(broker, "GET", "/ui/api/outbound/routes")).body as Json[])[0] as Json;
    await api(broker, "PATCH", `/ui/api/outbound/routes/${route.id}`, { replace_finished: false });
    expect((await finished("Codex finished once more in web", "codex:session:c")).status).toBe(201);
    await broker.dispatcher.runDue();
    expect(tg.callsOf("sendMessage")).toHaveLength(3);
  });
});
