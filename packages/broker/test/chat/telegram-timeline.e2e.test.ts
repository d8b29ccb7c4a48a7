// Issue 37 item 3, "Receipts": a question sent to Telegram and answered there has both hops on its timeline: the
// message sent, and the message edited to show the outcome (docs/routing.md, "The delivery timeline"). A real broker
// process, the real CLI and a loopback Bot API.
import { type Json, until, untilValue } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChatBroker, endTest, suiteCalls, WAITING } from "./chat-broker.js";
import { TelegramServer } from "./telegram-server.js";

const BOT_TOKEN = "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_secret";
const CHAT = 4242;
const ANN = { id: 7, first_name: "Ann" };

let tg: TelegramServer;
let chat: ChatBroker;
const { call, ask, questionMessage } = suiteCalls({ broker: () => chat, messages: () => tg.sent() });

beforeEach(async () => {
  tg = await new TelegramServer(BOT_TOKEN).start();
  chat = await ChatBroker.start("notify-chat-timeline-", {
    kind: "telegram",
    name: "phone-bot",
    settings: { chatId: CHAT, answers: true, allowedUserIds: [ANN.id], apiBaseUrl: tg.url },
    secrets: { botToken: BOT_TOKEN },
  });
});

afterEach(() => endTest(chat, tg), 60_000);

describe("Telegram hops on the timeline (issue 37 item 3)", { timeout: 120_000 }, () => {
  it("sent to Telegram, answered there, and the message edited to the outcome: in that order", async () => {
    const waiting = ask("Deploy now?", "--choice", "yes=Yes", "--choice", "no=No");
    const id = (await waiting.stderrMatching(WAITING))[1] as string;
    const message = await questionMessage("Deploy now?");
    tg.tap(message, message.reply_markup.inline_keyboard[0][0].callback_data, ANN);
    expect((await waiting.done).code).toBe(0);
    await until(
      () => tg.callsOf("editMessageText").some((edit: Json) => edit.message_id === message.message_id),
      30_000,
    );
    const lines = await untilValue(
      "the edit on the timeline",
      async () => {
        const entries = (await call("GET", `/ui/api/interactions/${id}/timeline`)).body.entries as Json[];
        const words = entries.map((entry) =>
          entry.event === "delivery"
            ? `delivery ${entry.outcome} ${entry.route.provider_kind}`
            : entry.event === "edited"
              ? `edited ${entry.surface}`
              : entry.event === "settled"
                ? `settled ${entry.status} ${entry.source}`
                : entry.event,
        );
        return words.includes("edited telegram") ? words : undefined;
      },
      { timeoutMs: 30_000, everyMs: 200 },
    );
    expect(lines).toEqual(["created", "delivery sent telegram", "settled answered telegram", "edited telegram"]);
  });
});
