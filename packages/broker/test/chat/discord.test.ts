// Issue 34, item 2: answers from Discord through the answer surface registry. A broker in this process, a
// loopback Discord (REST API and Gateway: hello, identify, heartbeat, resume, interaction create).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Json, until, untilValue } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { secretShapeProblem } from "../../src/cli/apply/secret-shapes.js";
import { type InProcessChat, startInProcessChat } from "./chat-in-process.js";
import { DiscordServer } from "./discord-server.js";
import { answerOnDesktopAndCancel, askEach, singleChoice } from "./questions.js";

const BOT_TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAwMg.GdSc3x.botsecretbotsecretbotsecretbotsecret42";
const CHANNEL = "1300000000000000001";
const ANN = { id: "1400000000000000001", username: "ann" };
const EVE = { id: "1400000000000000009", username: "eve" };

let discord: DiscordServer;
let chat: InProcessChat;

beforeEach(async () => {
  discord = await new DiscordServer(BOT_TOKEN).start();
  // No jitter: the backoff after failures is exactly 100, 200, 400 ms.
  chat = startInProcessChat({ random: () => 1 });
});

afterEach(async () => {
  await chat.close();
  await discord.close();
});

const start = (settings: Json = {}, token = BOT_TOKEN) =>
  chat.addProvider({
    kind: "discord_app",
    name: "team-discord",
    settings: { channelId: CHANNEL, allowedUserIds: [ANN.id], apiBaseUrl: discord.apiBaseUrl, ...settings },
    secrets: { botToken: token },
  });

/** The message as the broker posted it (POST /channels/{id}/messages), with its id. */
const posted = (prompt: string): Promise<Json> =>
  untilValue("the question message", () => discord.posted().find((message) => message.content.includes(prompt)), {
    timeoutMs: 30_000,
  });
const callback = (id: string): Promise<Json> =>
  untilValue(`the callback of ${id}`, () => discord.callbacks.get(id), { timeoutMs: 30_000 });
const edits = (message: Json) =>
  discord.callsOf("PATCH", new RegExp(`^channels/${CHANNEL}/messages/${message.id}$`)).map((call) => call.body);
const ask = async (body: Json): Promise<Json> => {
  const created = await chat.call("POST", "/v1/interactions/request", body);
  expect(created.status).toBe(201);
  return created.body;
};
const status = async (id: string) => (await chat.call("GET", `/v1/interactions/${id}`)).body.status;

/** Every file under the broker's data dir (database, logs), to check that the token never reached the disk. */
function dataFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? dataFiles(path) : [path];
  });
}

describe("Discord answers (issue 34)", { timeout: 90_000 }, () => {
  it("a tap answers; a user not allowed, another channel and a forged button are refused; the message shows the outcome", async () => {
    await start();
    await chat.untilState("team-discord", "connected");
    // Hello, then identify with the bot token and no intents (interactions need none), then heartbeats.
    expect(discord.connections[0]?.received[0]).toMatchObject({ op: 2, d: { token: BOT_TOKEN, intents: 0 } });
    await until(() => discord.sent(1).length >= 1, 30_000);

    const question = await ask(singleChoice("Deploy *now*?", ["yes", "Yes", "ship it"], ["no", "No"]));
    const message = await posted("Deploy");
    const post = discord.callsOf("POST", new RegExp(`^channels/${CHANNEL}/messages$`))[0];
    expect(post?.authorization).toBe(`Bot ${BOT_TOKEN}`);
    expect(post?.body.allowed_mentions).toEqual({ parse: [] });
    // Agent text is escaped for Discord's markdown; the details are in the text, the labels on the buttons.
    expect(message.content).toContain("Deploy \\*now\\*?");
    expect(message.content).toContain("Yes: ship it");
    const buttons = message.components.flatMap((row: Json) => row.components);
    expect(message.components[0].type).toBe(1);
    expect(buttons.map((button: Json) => [button.type, button.label])).toEqual([
      [2, "Yes"],
      [2, "No"],
    ]);
    for (const button of buttons) {
      expect(button.custom_id).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(JSON.stringify(message)).not.toContain(question.nonce);
    }

    const refused = [
      discord.click(message, 0, EVE),
      discord.click(message, 0, ANN, { channelId: "1300000000000000999" }),
      discord.click(message, 0, ANN, { customId: "AAAAAAAAAAAAAAAA" }),
    ];
    const replies = [];
    for (const id of refused) replies.push(await callback(id));
    expect(replies.map((reply) => [reply.type, reply.data.flags, reply.data.content])).toEqual([
      [4, 64, "Not accepted: you are not allowed to answer."],
      [4, 64, "Not accepted: this message does not answer questions."],
      [4, 64, "Not accepted: this button is not one the broker sent."],
    ]);
    expect(await status(question.id)).toBe("pending");
    expect(edits(message)).toEqual([]);

    expect(await callback(discord.click(message, 0, ANN))).toEqual({ type: 6 });
    const answered = (await chat.call("GET", `/v1/interactions/${question.id}`)).body;
    expect(answered.status).toBe("answered");
    expect(answered.response).toMatchObject({ source: "discord", choice_id: "yes", device_id: `discord:${ANN.id}` });
    // The message is edited to the outcome, its buttons gone; the name is a mention that pings no one.
    await until(() => edits(message).length === 1, 30_000);
    const edit = edits(message)[0] as Json;
    expect(edit.components).toEqual([]);
    expect(edit.allowed_mentions).toEqual({ parse: [] });
    expect(edit.content).toContain("Deploy \\*now\\*?");
    expect(edit.content).toMatch(new RegExp(`\\n\\nAnswered "Yes" by <@${ANN.id}> at \\d\\d:\\d\\d$`));
    const timeline = (await chat.call("GET", `/ui/api/interactions/${question.id}/timeline`)).body;
    expect(JSON.stringify(timeline)).toContain('"source":"discord"');

    // A late tap on the other button: already answered, nothing changes.
    const late = await callback(discord.click(message, 1, ANN));
    expect(late.data.content).toBe("Already answered: your answer was not recorded.");
    expect((await chat.call("GET", `/v1/interactions/${question.id}`)).body.response.choice_id).toBe("yes");

    // The bot token never reached a log line or a file of the broker's.
    expect(chat.lines.join("\n")).not.toContain(BOT_TOKEN);
    for (const file of dataFiles(chat.broker.settings.dataDir)) {
      expect(readFileSync(file).includes(BOT_TOKEN), file).toBe(false);
    }
  });

  it("a text question is answered through a modal; a stranger's submit is refused", async () => {
    await start();
    await chat.untilState("team-discord", "connected");
    const question = await ask({ kind: "text", prompt: "Which branch?" });
    const message = await posted("Which branch?");
    const [button] = message.components[0].components;
    expect(button.label).toBe("Answer…");

    const opened = await callback(discord.click(message, 0, ANN));
    expect(opened.type).toBe(9);
    expect(opened.data.custom_id).toBe(button.custom_id);
    expect(opened.data.components[0].components[0]).toMatchObject({ type: 4, custom_id: "answer", style: 2 });

    const stranger = await callback(discord.submit(message, opened.data, EVE, "main"));
    expect(stranger.data.content).toBe("Not accepted: you are not allowed to answer.");
    expect(await status(question.id)).toBe("pending");

    const accepted = await callback(discord.submit(message, opened.data, ANN, "release/2.1"));
    expect(accepted).toMatchObject({ type: 4, data: { content: "Answer recorded.", flags: 64 } });
    const answered = (await chat.call("GET", `/v1/interactions/${question.id}`)).body;
    expect(answered.response).toMatchObject({ source: "discord", text: "release/2.1" });
    await until(() => edits(message).length === 1, 30_000);
    expect(edits(message)[0]?.content).toMatch(/\n\nAnswered "release\/2\.1" by <@1400000000000000001> at/);
  });

  it("recall: a question answered elsewhere or cancelled has its message edited, as on the other surfaces", async () => {
    await start();
    await chat.untilState("team-discord", "connected");
    const [first, second] = await askEach(chat.call, "Run rm?", "Cancelled later?");
    const one = await posted("Run rm?");
    const two = await posted("Cancelled later?");
    // Permission answers in their colours: allow green (3), deny red (4).
    expect(one.components[0].components.map((button: Json) => [button.label, button.style])).toEqual(
      expect.arrayContaining([["Allow", 3]]),
    );
    await answerOnDesktopAndCancel(chat.call, first, second);
    await until(() => edits(one).length === 1 && edits(two).length === 1, 30_000);
    expect(edits(one)[0]?.content).toMatch(/\n\nAnswered on the desktop at \d\d:\d\d$/);
    expect(edits(two)[0]?.content).toMatch(/\n\nCancelled$/);
    expect(edits(two)[0]?.components).toEqual([]);
  });

  it("a stalled gateway reconnects with backoff and resumes; an event sent while it was away is replayed and answers", async () => {
    await start();
    await chat.untilState("team-discord", "connected");
    await until(() => discord.sent(2).length === 1, 30_000);
    // No heartbeat ACK: the next heartbeat finds the connection a zombie. Two connections in a row stall.
    discord.stalled = true;
    await until(() => discord.connections.length >= 3, 30_000);
    discord.stalled = false;
    await until(() => chat.lines.some((line) => line.includes("retrying: gateway_stalled")), 30_000);
    await chat.untilState("team-discord", "connected");
    // Reconnects resume the session (op 6, with its id and last sequence) instead of identifying again.
    expect(discord.sent(2)).toHaveLength(1);
    const resumes = discord.sent(6);
    expect(resumes.length).toBeGreaterThanOrEqual(2);
    expect(resumes[0]).toMatchObject({ d: { token: BOT_TOKEN, seq: 1 } });
    expect(discord.connections[1]?.url).toMatch(/^\/resume\?/);
    // The shared backoff between attempts (random 1: 100 ms, then 200 ms), on top of the stall's detection.
    const gaps = [1, 2].map(
      (index) =>
        (discord.connections[index]?.openedMs ?? 0) -
        (discord.connections[index - 1]?.closedMs ?? Number.POSITIVE_INFINITY),
    );
    // Measured from the close as the server saw it, after the client began to wait: on a busy machine the server
    // notices the close tens of ms late (a 149 ms second gap was seen at load 11), so the bounds leave 80 ms for it.
    expect(gaps[0]).toBeGreaterThanOrEqual(50);
    expect(gaps[1]).toBeGreaterThanOrEqual(120);
    expect((gaps[1] ?? 0) - (gaps[0] ?? 0)).toBeGreaterThanOrEqual(30);

    // A tap while the socket is down is replayed by the resume and answers.
    const question = await ask(singleChoice("Replay me?", ["ok", "OK"], ["no", "No"]));
    const message = await posted("Replay me?");
    // Two heartbeats on the resumed connection: the first was acknowledged, so the connection counts as healthy.
    await until(
      () => (discord.connections.at(-1)?.received.filter((entry) => entry.op === 1).length ?? 0) >= 2,
      30_000,
    );
    const before = discord.connections.length;
    discord.drop();
    const tap = discord.click(message, 0, ANN);
    await until(() => discord.connections.length > before, 30_000);
    expect(await callback(tap)).toEqual({ type: 6 });
    expect(await status(question.id)).toBe("answered");
  });

  it("a bad token: the Gateway's 4004 shows as retrying; its shape is refused by notify apply", async () => {
    const other = "MTEwMDAwMDAwMDAwMDAwMDAwMw.GdSc3x.otherotherotherotherotherotherother42";
    await start({ gatewayUrl: `${discord.url.replace(/^http/, "ws")}/gateway` }, other);
    await chat.untilState("team-discord", "retrying", "gateway_closed_4004");
    expect(chat.lines.join("\n")).not.toContain(other);
    expect(secretShapeProblem("discord_app", "botToken", "xoxb-not-discord")).toMatch(
      /^botToken does not have the shape discord_app takes/,
    );
    expect(secretShapeProblem("discord_app", "botToken", BOT_TOKEN)).toBeUndefined();
  });
});
