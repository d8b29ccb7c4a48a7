// Issue 25, what the clock drives: a question that expires unanswered has its chat message edited to "Expired"
// (the spec's shortest TTL is 30 s), and the state of settled questions is pruned after the retention. The broker
// runs in-process on a manual clock; the chat apps are the loopback servers.

import { until } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/domain/clock.js";
import type { ChatTimings } from "../../src/surfaces/supervisor.js";
import type { Json } from "../helpers.js";
import { type InProcessChat, startInProcessChat } from "./chat-in-process.js";
import { SlackServer } from "./slack-server.js";
import { TelegramServer } from "./telegram-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

/** A broker in this process on a manual clock (the chat timings of chat-in-process.ts, a 15 s call deadline). */
function start(chat: ChatTimings = {}): InProcessChat & { clock: ManualClock } {
  const clock = new ManualClock(Date.now());
  const started = startInProcessChat({ requestTimeoutMs: 15_000, ...chat }, { clock, prefix: "notify-chat-expiry-" });
  closers.push(() => started.close());
  return { ...started, clock };
}

async function route(call: (method: string, url: string, body?: unknown) => Promise<Json>, provider: string) {
  const reply = await call("POST", "/ui/api/outbound/routes", { name: "all", provider, enabled: true });
  expect(reply.status).toBe(201);
}

describe("the outcome edit of an expired question (issue 25)", { timeout: 60_000 }, () => {
  it("edits the Telegram message to Expired once the shortest TTL passes", async () => {
    const tg = await new TelegramServer("123456:expiry_secret_token_0123456789").start();
    closers.push(() => tg.close());
    const { clock, call } = start();
    const provider = await call("POST", "/ui/api/outbound/providers", {
      kind: "telegram",
      name: "bot",
      settings: { chatId: 4242, answers: true, allowedUserIds: [7], apiBaseUrl: tg.url },
      secrets: { botToken: "123456:expiry_secret_token_0123456789" },
      enabled: true,
    });
    expect(provider.status).toBe(201);
    await route(call, "bot");
    const created = await call("POST", "/v1/interactions/request", { prompt: "Expire me?", ttl_seconds: 30 });
    expect(created.status).toBe(201);
    await until(() => tg.sent().some((message: Json) => message.text.includes("Expire me?")), 30_000);
    const message = tg.sent().find((sent: Json) => sent.text.includes("Expire me?"));
    // The loop is polling (its editor is registered) before the question runs out.
    await until(() => tg.callsOf("getUpdates").length > 0, 30_000);
    expect(tg.callsOf("editMessageText")).toEqual([]);

    clock.advance(29_000);
    expect((await call("GET", `/v1/interactions/${created.body.id}`)).body.status).toBe("pending");
    clock.advance(2_000);
    expect((await call("GET", `/v1/interactions/${created.body.id}`)).body.status).toBe("expired");
    await until(() => tg.callsOf("editMessageText").length === 1, 30_000);
    const edit = tg.callsOf("editMessageText")[0];
    expect(edit).toMatchObject({ chat_id: "4242", message_id: message.message_id });
    expect(edit.text).toBe(`${message.text}\n\nExpired`);
    expect(edit.reply_markup).toBeUndefined();
  });

  it("updates the Slack message to Expired", async () => {
    const slack = await new SlackServer("xapp-1-A0X-1-expiryappsecret", "xoxb-1-2-expirybotsecret").start();
    closers.push(() => slack.close());
    const { clock, call } = start();
    const provider = await call("POST", "/ui/api/outbound/providers", {
      kind: "slack_app",
      name: "slack",
      settings: { channel: "C0AGENTS1", allowedUserIds: ["U0ANN0001"], apiBaseUrl: slack.apiBaseUrl },
      secrets: { appToken: "xapp-1-A0X-1-expiryappsecret", botToken: "xoxb-1-2-expirybotsecret" },
      enabled: true,
    });
    expect(provider.status).toBe(201);
    await route(call, "slack");
    await until(() => slack.connections >= 1, 30_000);
    const created = await call("POST", "/v1/interactions/request", { prompt: "Expire in Slack?", ttl_seconds: 30 });
    await until(() => slack.posted().some((message: Json) => message.text.includes("Expire in Slack?")), 30_000);
    const message = slack.posted().find((posted: Json) => posted.text.includes("Expire in Slack?"));
    clock.advance(31_000);
    expect((await call("GET", `/v1/interactions/${created.body.id}`)).body.status).toBe("expired");
    await until(() => slack.callsOf("chat.update").length === 1, 30_000);
    const update = slack.callsOf("chat.update")[0]?.body;
    expect(update).toMatchObject({ channel: "C0AGENTS1", ts: message.ts });
    expect(update.blocks.at(-1)).toEqual({ type: "context", elements: [{ type: "mrkdwn", text: "Expired" }] });
  });
});

describe("pruning the chat state of settled questions (issue 25)", { timeout: 60_000 }, () => {
  it("forgets the handles and messages of settled questions after the retention, keeps pending ones, and the offsets of deleted providers", async () => {
    const token = "123456:prune_secret_token_0123456789";
    const tg = await new TelegramServer(token).start();
    closers.push(() => tg.close());
    const { broker, lines, clock, call } = start({ retentionMs: 60_000, pruneEveryMs: 1_000 });
    const provider = await call("POST", "/ui/api/outbound/providers", {
      kind: "telegram",
      name: "bot",
      settings: { chatId: 4242, answers: true, allowedUserIds: [7], apiBaseUrl: tg.url },
      secrets: { botToken: token },
      enabled: true,
    });
    await route(call, "bot");
    const settled = (await call("POST", "/v1/interactions/request", { prompt: "Settle me?" })).body;
    const pending = (await call("POST", "/v1/interactions/request", { prompt: "Still open?", ttl_seconds: 3600 })).body;
    await until(() => tg.sent().length === 2, 30_000);
    const message = tg.sent().find((sent: Json) => sent.text.includes("Settle me?"));
    const ann = { id: 7, first_name: "Ann" };
    tg.tap(message, message.reply_markup.inline_keyboard[0][0].callback_data, ann);
    await until(() => tg.callsOf("editMessageText").length === 1, 30_000);
    const rows = (table: string) =>
      broker.db.prepare(`SELECT interaction_id AS id FROM ${table} ORDER BY interaction_id`).all() as { id: string }[];
    expect(rows("chat_handles").filter((row) => row.id === settled.id)).toHaveLength(2);
    await until(() => broker.db.prepare("SELECT count(*) AS n FROM chat_offsets").get()?.n === 1, 30_000);

    // Past the retention: the settled question's state goes, the pending one (older still) stays.
    clock.advance(61_000);
    await until(() => lines.some((line) => line.includes("chat: pruned 2 button handles and 1 messages")), 30_000);
    expect(new Set(rows("chat_handles").map((row) => row.id))).toEqual(new Set([pending.id]));
    expect(rows("chat_messages").map((row) => row.id)).toEqual([pending.id]);
    // A tap on the pruned button is refused as unknown and settles nothing.
    tg.tap(message, message.reply_markup.inline_keyboard[1][0].callback_data, ann);
    await until(() => tg.callsOf("answerCallbackQuery").length === 2, 30_000);
    expect(tg.callsOf("answerCallbackQuery")[1].text).toBe("Not accepted: this button is not one the broker sent.");
    expect((await call("GET", `/v1/interactions/${settled.id}`)).body.response.choice_id).toBe("allow");

    // A deleted provider's getUpdates offset goes at the next prune.
    expect((await call("DELETE", `/ui/api/outbound/providers/${provider.body.id}`)).status).toBe(204);
    clock.advance(1_000);
    await until(() => broker.db.prepare("SELECT count(*) AS n FROM chat_offsets").get()?.n === 0, 30_000);
  });
});
