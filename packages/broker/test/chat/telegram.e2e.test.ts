// Issue 25: answers from Telegram. A real broker process, the real CLI, and a loopback Bot API.
import { readFileSync } from "node:fs";
import { type Json, until } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChatBroker, endTest, suiteCalls, WAITING } from "./chat-broker.js";
import { answerOnDesktopAndCancel, askEach } from "./questions.js";
import { TelegramServer } from "./telegram-server.js";

const BOT_TOKEN = "123456:AAbbCCddEEffGGhhIIjjKKllMMnn_secret";
const CHAT = 4242;
const ANN = { id: 7, first_name: "Ann" };
const STRANGER = { id: 99, first_name: "Eve" };

let tg: TelegramServer;
let chat: ChatBroker;

const { call, ask, questionMessage } = suiteCalls({ broker: () => chat, messages: () => tg.sent() });

const edits = (messageId: number) =>
  tg.callsOf("editMessageText").filter((edit: Json) => edit.message_id === messageId);
const callbackTexts = () => tg.callsOf("answerCallbackQuery").map((answer: Json) => answer.text as string);

beforeEach(async () => {
  tg = await new TelegramServer(BOT_TOKEN).start();
  chat = await ChatBroker.start("notify-chat-tg-", {
    kind: "telegram",
    name: "phone-bot",
    settings: { chatId: CHAT, answers: true, allowedUserIds: [ANN.id], apiBaseUrl: tg.url },
    secrets: { botToken: BOT_TOKEN },
  });
});

afterEach(() => endTest(chat, tg), 60_000);

describe("Telegram answers (issue 25)", { timeout: 120_000 }, () => {
  it("a choice tap settles a waiting notify ask; strangers, other chats and forged handles settle nothing", async () => {
    const waiting = ask("Deploy now?", "--choice", "yes=Yes:ship it", "--choice", "no=No");
    const id = (await waiting.stderrMatching(WAITING))[1] as string;
    const message = await questionMessage("Deploy now?");
    const buttons = message.reply_markup.inline_keyboard.map((row: Json[]) => row[0]);
    expect(buttons.map((button: Json) => button.text)).toEqual(["Yes", "No"]);
    expect(message.text).toContain("Yes: ship it");
    // The handle names nothing: no nonce, no digest, no interaction id.
    const interaction = (await call("GET", `/v1/interactions/${id}`)).body;
    for (const button of buttons) {
      expect(button.callback_data).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(button.callback_data).not.toContain(id);
      expect(interaction.request_digest).not.toContain(button.callback_data);
    }

    tg.tap(message, buttons[0].callback_data, STRANGER);
    tg.tap(message, buttons[0].callback_data, ANN, CHAT + 1);
    tg.tap(message, "AAAAAAAAAAAAAAAA", ANN);
    await until(() => callbackTexts().length >= 3, 30_000);
    expect(callbackTexts()).toEqual([
      "Not accepted: you are not allowed to answer.",
      "Not accepted: this chat does not answer questions.",
      "Not accepted: this button is not one the broker sent.",
    ]);
    expect((await call("GET", `/v1/interactions/${id}`)).body.status).toBe("pending");

    tg.tap(message, buttons[0].callback_data, ANN);
    const done = await waiting.done;
    expect(done.code).toBe(0);
    expect(done.stdout.trim()).toBe("yes");
    const answered = (await call("GET", `/v1/interactions/${id}`)).body;
    expect(answered.response).toMatchObject({ source: "telegram", choice_id: "yes", device_id: "telegram:7" });
    await until(() => edits(message.message_id).length === 1, 30_000);
    expect(edits(message.message_id)[0].text).toMatch(/Answered "Yes" by Ann at \d\d:\d\d$/);
    expect(edits(message.message_id)[0].reply_markup).toBeUndefined();

    // A late tap on the other button: already answered, nothing changes.
    tg.tap(message, buttons[1].callback_data, ANN);
    await until(() => callbackTexts().length >= 5, 30_000);
    expect(callbackTexts().at(-1)).toBe("Already answered: your answer was not recorded.");
    expect((await call("GET", `/v1/interactions/${id}`)).body.response.choice_id).toBe("yes");
  });

  it("a reply to a text question settles notify ask with the text", async () => {
    const waiting = ask("Which branch?", "--kind", "text");
    await waiting.stderrMatching(WAITING);
    const message = await questionMessage("Which branch?");
    const sent = tg.callsOf("sendMessage").find((body: Json) => body.result?.message_id === message.message_id);
    expect(sent.reply_markup).toMatchObject({ force_reply: true });
    tg.reply(message.message_id, "not from Eve", STRANGER, CHAT);
    tg.reply(message.message_id, "release/2.1", ANN, CHAT);
    const done = await waiting.done;
    expect(done.stdout.trim()).toBe("release/2.1");
    await until(() => edits(message.message_id).length === 1, 30_000);
    expect(edits(message.message_id)[0].text).toMatch(/Answered "release\/2.1" by Ann at/);
  });

  it("an MCP form's field, asked in the chat: a reply outside its schema is refused with the field's words (issue 36)", async () => {
    const field = { name: "age", title: "Age", type: "integer", required: true, minimum: 18, maximum: 120 };
    const context = await call("POST", "/v1/contexts", {
      kind: "form",
      form: "f-telegram",
      server: "signup",
      mode: "form",
      message: "Sign up",
      fields: [field],
      field: "age",
    });
    expect(context.status).toBe(201);
    const created = await call("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: "form-field-telegram",
      event_type: "request.created",
      occurred_at: new Date().toISOString(),
      sender: { id: "claude-code" },
      request: {
        key: "form-field-telegram",
        kind: "question",
        title: "signup asks Claude Code: field 1 of 1",
        message: "Age (required; a whole number from 18 to 120)",
        response: { kind: "text", text_max_length: 2000, expires_at: new Date(Date.now() + 600_000).toISOString() },
      },
      extensions: { "x-notify-context": { id: context.body?.id } },
    });
    expect(created.status).toBe(201);
    const id = (created.body as Json).interaction.id as string;
    const message = await questionMessage("Age (required; a whole number from 18 to 120)");
    tg.reply(message.message_id, "17", ANN, CHAT);
    const refusal = () =>
      tg
        .callsOf("sendMessage")
        .find((body: Json) => body.reply_parameters !== undefined && /Not accepted/.test(body.text));
    await until(() => refusal() !== undefined, 30_000);
    expect(refusal().text).toBe("Not accepted: Age must be at least 18.");
    expect((await call("GET", `/v1/interactions/${id}`)).body?.status).toBe("pending");
    tg.reply(message.message_id, "40", ANN, CHAT);
    // The message is edited once the answer is taken.
    await until(() => edits(message.message_id).length === 1, 30_000);
    expect((await call("GET", `/v1/interactions/${id}`)).body?.response.text).toBe("40");
  });

  it("edits the message when the question is answered on the desktop or cancelled", async () => {
    const [first, second] = await askEach(call, "Answered elsewhere?", "Cancelled later?");
    const one = await questionMessage("Answered elsewhere?");
    const two = await questionMessage("Cancelled later?");
    await answerOnDesktopAndCancel(call, first, second);
    await until(() => edits(one.message_id).length === 1 && edits(two.message_id).length === 1, 30_000);
    expect(edits(one.message_id)[0].text).toMatch(/Answered on the desktop at \d\d:\d\d$/);
    expect(edits(two.message_id)[0].text).toMatch(/Cancelled$/);
    // A tap on the answered one: already answered, shown, nothing settled.
    tg.tap(one, one.reply_markup.inline_keyboard[1][0].callback_data, ANN);
    await until(() => callbackTexts().length >= 1, 30_000);
    expect(callbackTexts()[0]).toBe("Already answered: your answer was not recorded.");
    expect((await call("GET", `/v1/interactions/${first.id}`)).body.response.source).toBe("ui");
  });

  it("a broker SIGKILL after settling but before the offset is stored settles nothing twice; one while down loses nothing", async () => {
    const first = (await call("POST", "/v1/interactions/request", { prompt: "Kill me?" })).body;
    const second = (await call("POST", "/v1/interactions/request", { prompt: "While down?" })).body;
    const one = await questionMessage("Kill me?");
    const two = await questionMessage("While down?");
    tg.holdCallbacks = true;
    tg.tap(one, one.reply_markup.inline_keyboard[0][0].callback_data, ANN);
    // Settled, then stuck on answerCallbackQuery: the offset is not stored yet.
    await until(() => tg.callsOf("answerCallbackQuery").length === 1, 30_000);
    const settled = (await call("GET", `/v1/interactions/${first.id}`)).body;
    expect(settled.status).toBe("answered");
    await chat.kill();
    tg.holdCallbacks = false;
    tg.tap(two, two.reply_markup.inline_keyboard[1][0].callback_data, ANN);

    await chat.spawn();
    const settledLater = await call("GET", `/v1/interactions/${second.id}/wait?timeout=30`);
    expect(settledLater.body.status).toBe("answered");
    const again = (await call("GET", `/v1/interactions/${first.id}`)).body;
    expect(again.response).toEqual(settled.response);
    expect((await call("GET", `/v1/interactions/${second.id}`)).body.response).toMatchObject({
      source: "telegram",
      choice_id: "deny",
    });
    // The redelivered tap replayed the first answer: recorded, not "already answered".
    await until(() => callbackTexts().length >= 3, 30_000);
    expect(callbackTexts().slice(1)).toEqual(["Answer recorded.", "Answer recorded."]);
    await until(() => tg.confirmedOffset > 1001, 30_000);
  });

  it("honours 429 retry_after and 5xx on getUpdates and sendMessage, and no token reaches a log or response", async () => {
    tg.fail("sendMessage", 429, 1, 1);
    tg.fail("getUpdates", 502, 2);
    tg.fail("getUpdates", 429, 1, 2);
    const waiting = ask("After throttling?", "--choice", "a=A", "--choice", "b=B");
    const id = (await waiting.stderrMatching(WAITING))[1] as string;
    const message = await questionMessage("After throttling?");
    tg.tap(message, message.reply_markup.inline_keyboard[1][0].callback_data, ANN);
    expect((await waiting.done).stdout.trim()).toBe("b");
    const failedAt = tg.calls.findIndex((entry) => entry.method === "getUpdates:failed");
    expect(failedAt).toBeGreaterThanOrEqual(0);
    const providers = await call("GET", "/ui/api/outbound/providers");
    expect(JSON.stringify(providers.body)).not.toContain("AAbbCCdd");
    expect(providers.body[0].connection).toMatchObject({ state: "connected" });
    expect((await call("GET", `/v1/interactions/${id}`)).body.response.source).toBe("telegram");
    // Nothing under the data dir (database, logs, config) holds the token's secret half.
    const secret = BOT_TOKEN.split(":")[1] as string;
    for (const file of chat.files()) expect(readFileSync(file).includes(secret), file).toBe(false);
    expect(chat.broker.stderr()).not.toContain(secret);
  });
});
