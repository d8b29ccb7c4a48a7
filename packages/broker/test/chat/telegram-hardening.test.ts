// Issue 31 (Hardening 3), items 2 to 5 on Telegram: controls in chat text made visible, malformed updates skipped
// with the offset moving forward only, a 429 retry_after past the timer limit waited (capped), and a stalled
// getUpdates ended by its own deadline. A broker in this process, the loopback Bot API.
import { type Json, until, untilValue } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type InProcessChat, startInProcessChat } from "./chat-in-process.js";
import { singleChoice } from "./questions.js";
import { TelegramServer } from "./telegram-server.js";

const BOT_TOKEN = "123456:hardening_secret_token_0123456789";
const CHAT = 4242;
const ANN = { id: 7, first_name: "Ann" };
const PROVIDER = {
  kind: "telegram",
  name: "bot",
  settings: { chatId: CHAT, answers: true, allowedUserIds: ["7"] },
  secrets: { botToken: BOT_TOKEN },
};
/** Raw controls that must never reach a chat: bidi controls, C0 (tab and newline aside), CR, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const RAW_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

let tg: TelegramServer;
let chat: InProcessChat;

beforeEach(async () => {
  tg = await new TelegramServer(BOT_TOKEN).start();
  chat = startInProcessChat();
});

afterEach(async () => {
  await chat.close();
  await tg.close();
});

const start = () => chat.addProvider({ ...PROVIDER, settings: { ...PROVIDER.settings, apiBaseUrl: tg.url } });
const ask = async (body: Json): Promise<string> => {
  const created = await chat.call("POST", "/v1/interactions/request", body);
  expect(created.status).toBe(201);
  return created.body.id;
};
const questionMessage = (text: string): Promise<Json> =>
  untilValue(`the question message "${text}"`, () => tg.sent().find((message: Json) => message.text.includes(text)), {
    timeoutMs: 30_000,
  });
const answered = async (id: string): Promise<Json> => {
  const waited = await chat.call("GET", `/v1/interactions/${id}/wait?timeout=30`);
  expect(waited.body.status).toBe("answered");
  return waited.body.response;
};
/** A callback_query update as the Bot API sends it, for pushRaw. */
const tapUpdate = (updateId: number, queryId: string, message: Json, data: string): Json => ({
  update_id: updateId,
  callback_query: {
    id: queryId,
    from: { is_bot: false, ...ANN },
    message: { ...message, chat: { id: CHAT, type: "private" } },
    chat_instance: "1",
    data,
  },
});

describe("Telegram hardening (issue 31)", { timeout: 90_000 }, () => {
  it("item 2: sendMessage, the buttons and the edited outcome line show controls as tokens, never raw", async () => {
    await start();
    const prompt = "Run \u202Etxt.exe\u202C now?\r\nthen \u001B[2Jclear\u0085";
    const id = await ask(singleChoice(prompt, ["go", "Go \u2067left\u2069"], ["stop", "Stop\u0007"]));
    const message = await questionMessage("txt.exe");
    expect(message.text).toContain("Run <U+202E>txt.exe<U+202C> now?\nthen <U+001B>[2Jclear<U+0085>");
    const buttons = message.reply_markup.inline_keyboard.map((row: Json[]) => row[0]);
    expect(buttons.map((button: Json) => button.text)).toEqual(["Go <U+2067>left<U+2069>", "Stop<U+0007>"]);
    expect(JSON.stringify(tg.callsOf("sendMessage"))).not.toMatch(/\\u(00[01]|007f|008|009|202|206)/i);
    expect(message.text).not.toMatch(RAW_CONTROL);

    // The display name is the chat user's own choice: it is shown with its controls as tokens too.
    tg.tap(message, buttons[0].callback_data, { id: 7, first_name: "Ann\u202E", last_name: "\u001B]0;x\u0007" });
    expect((await answered(id)).choice_id).toBe("go");
    const edit = await untilValue("the outcome edit", () => tg.callsOf("editMessageText")[0], { timeoutMs: 30_000 });
    expect(edit.text).toMatch(
      /\n\nAnswered "Go <U\+2067>left<U\+2069>" by Ann<U\+202E> <U\+001B>\]0;x<U\+0007> at \d\d:\d\d$/,
    );
    expect(edit.text).not.toMatch(RAW_CONTROL);
  });

  it("item 3: a malformed update is skipped once and the updates behind it are answered; the offset never moves back", async () => {
    await start();
    const first = await ask({ prompt: "Malformed first?" });
    const one = await questionMessage("Malformed first?");
    const [allow, deny] = one.reply_markup.inline_keyboard.map((row: Json[]) => row[0].callback_data);
    // A tap whose message lacks `chat`, and one that lacks `from`: each threw before, and the offset stuck.
    const noChat = tapUpdate(tg.nextId, "cq-no-chat", { message_id: one.message_id, date: 0 }, allow);
    delete noChat.callback_query.message.chat;
    tg.pushRaw(noChat);
    const noFrom = tapUpdate(tg.nextId, "cq-no-from", one, allow);
    delete noFrom.callback_query.from;
    tg.pushRaw(noFrom);
    tg.tap(one, deny, ANN);
    expect((await answered(first)).choice_id).toBe("deny");
    const skipped = chat.lines.filter((line) => line.includes("chat: telegram provider bot skipped malformed update"));
    expect(skipped.map((line) => line.replace(/.*update /, ""))).toEqual([
      String(noChat.update_id),
      String(noFrom.update_id),
    ]);
    const answeredIds = () => tg.callsOf("answerCallbackQuery").map((body: Json) => body.callback_query_id);
    expect(answeredIds()).not.toContain("cq-no-chat");
    expect(answeredIds()).not.toContain("cq-no-from");
    expect((await chat.connection("bot")).state).toBe("connected");

    // One page: a tap, then an update with a lower id. The next poll asks from after the tap, not from the lower id
    // (which would fetch the tap again).
    await ask({ prompt: "Lower id later?" });
    const two = await questionMessage("Lower id later?");
    const high = tg.nextId + 10;
    tg.pushRaw(tapUpdate(high, "cq-high", two, two.reply_markup.inline_keyboard[0][0].callback_data));
    tg.pushRaw({
      update_id: high - 5,
      message: { message_id: 900, from: { is_bot: false, ...ANN }, chat: { id: CHAT, type: "private" }, date: 0 },
    });
    const answeredAt = await untilValue(
      "the answer to the tap",
      () => {
        const index = tg.calls.findIndex(
          (entry) => entry.method === "answerCallbackQuery" && entry.body.callback_query_id === "cq-high",
        );
        return index >= 0 ? index : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const nextPoll = await untilValue(
      "the poll after the page",
      () => tg.calls.slice(answeredAt).find((entry) => entry.method === "getUpdates"),
      { timeoutMs: 30_000 },
    );
    expect(nextPoll.body.offset).toBe(high + 1);
    const stored = () => chat.broker.db.prepare("SELECT next_offset AS offset FROM chat_offsets").get() as Json;
    expect(stored().offset).toBe(high + 1);
  });

  it("item 4: a 429 retry_after past the timer limit is waited (capped), not turned into a hot loop", async () => {
    // 2,147,484 s is just past setTimeout's limit (2^31-1 ms): uncapped, the wait fired at once.
    tg.fail("getUpdates", 429, 1_000, 2_147_484);
    await start();
    await chat.untilState("bot", "retrying", "http_429");
    // A window in which the hot loop made hundreds of calls; a capped wait makes none.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(tg.callsOf("getUpdates:failed")).toHaveLength(1);
    expect(tg.callsOf("getUpdates")).toHaveLength(0);
  });

  it("item 5: a stalled getUpdates ends at its deadline, shows retrying (timeout), and polling resumes", async () => {
    await start();
    await chat.untilState("bot", "connected");
    tg.stall("getUpdates", 1);
    // The deadline is the long poll's 1 s plus requestTimeoutMs (1 s); undici's own would be 300 s.
    await chat.untilState("bot", "retrying", "timeout", 15_000);
    expect(tg.callsOf("getUpdates:stalled")).toHaveLength(1);
    await chat.untilState("bot", "connected");
    const id = await ask({ prompt: "After the stall?" });
    const message = await questionMessage("After the stall?");
    tg.tap(message, message.reply_markup.inline_keyboard[0][0].callback_data, ANN);
    expect((await answered(id)).choice_id).toBe("allow");
    await until(() => tg.callsOf("editMessageText").length === 1, 30_000);
  });
});
