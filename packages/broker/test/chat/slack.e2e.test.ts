// Issue 25: answers from Slack. A real broker process, the real CLI, a loopback Web API and Socket Mode server.
import { readFileSync } from "node:fs";
import { until } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChatBroker, endTest, suiteCalls, WAITING } from "./chat-broker.js";
import { answerOnDesktopAndCancel, askEach } from "./questions.js";
import { type Json, SlackServer } from "./slack-server.js";

const APP_TOKEN = "xapp-1-A0NOTIFY1-1234567890-appsecretappsecretappsecret";
const BOT_TOKEN = "xoxb-1111111111-2222222222-botsecretbotsecretbot";
const CHANNEL = "C0AGENTS1";
const ANN = { id: "U0ANN0001", name: "ann" };
const EVE = { id: "U0EVE0009", name: "eve" };
/** Socket Mode wants an ack within 3 s; a loaded 2-core machine with a broker process gets more. */
const ACK_MS = 15_000;

let slack: SlackServer;
let chat: ChatBroker;

const { call, ask, questionMessage } = suiteCalls({ broker: () => chat, messages: () => slack.posted() });

const updates = (message: Json) =>
  slack.callsOf("chat.update").filter((update) => update.body.ts === message.ts && update.body.channel === CHANNEL);
const ephemerals = () => slack.callsOf("chat.postEphemeral").map((entry) => entry.body);
const outcomeOf = (update: { body: Json }) => update.body.blocks.at(-1).elements[0].text as string;

async function status(id: string): Promise<string> {
  return (await call("GET", `/v1/interactions/${id}`)).body.status;
}

/** Polls an async condition (the broker's HTTP API) until it holds. */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function connection(): Promise<Json> {
  const providers = await call("GET", "/ui/api/outbound/providers");
  return providers.body.find((provider: Json) => provider.name === "team-slack")?.connection;
}

beforeEach(async () => {
  slack = await new SlackServer(APP_TOKEN, BOT_TOKEN).start();
  chat = await ChatBroker.start("notify-chat-slack-", {
    kind: "slack_app",
    name: "team-slack",
    settings: { channel: CHANNEL, allowedUserIds: [ANN.id], apiBaseUrl: slack.apiBaseUrl },
    secrets: { appToken: APP_TOKEN, botToken: BOT_TOKEN },
  });
  await until(() => slack.connections >= 1, 30_000);
});

afterEach(() => endTest(chat, slack), 60_000);

describe("Slack answers (issue 25)", { timeout: 120_000 }, () => {
  it("a choice click settles a waiting notify ask; a stranger's click, another channel and a forged value do not", async () => {
    const waiting = ask("Deploy now?", "--choice", "yes=Yes:ship it", "--choice", "no=No");
    const id = (await waiting.stderrMatching(WAITING, 30_000))[1] as string;
    const message = await questionMessage("Deploy now?");
    const post = slack.callsOf("chat.postMessage").find((entry) => entry.result?.ts === message.ts) as Json;
    expect(post.token).toBe(BOT_TOKEN);
    expect(post.body.channel).toBe(CHANNEL);
    const buttons = message.blocks.find((block: Json) => block.type === "actions").elements;
    expect(buttons.map((button: Json) => button.text.text)).toEqual(["Yes", "No"]);
    expect(message.text).toContain("Yes: ship it");
    const interaction = (await call("GET", `/v1/interactions/${id}`)).body;
    for (const button of buttons) {
      expect(button.value).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(button.value).not.toContain(id);
      expect(JSON.stringify(message)).not.toContain(interaction.nonce);
    }

    const refused = [
      slack.click(message, 0, EVE),
      slack.click(message, 0, ANN, { channel: "C0ELSEWHR" }),
      slack.click(message, 0, ANN, { value: "AAAAAAAAAAAAAAAA" }),
    ];
    for (const envelope of refused) await slack.ack(envelope, ACK_MS);
    await until(() => ephemerals().length >= 3, 30_000);
    expect(ephemerals().map((body) => [body.user, body.text])).toEqual([
      [EVE.id, "Not accepted: you are not allowed to answer."],
      [ANN.id, "Not accepted: this message does not answer questions."],
      [ANN.id, "Not accepted: this button is not one the broker sent."],
    ]);
    expect(await status(id)).toBe("pending");
    expect(updates(message)).toEqual([]);

    await slack.ack(slack.click(message, 0, ANN), ACK_MS);
    const done = await waiting.done;
    expect(done.code).toBe(0);
    expect(done.stdout.trim()).toBe("yes");
    const answered = (await call("GET", `/v1/interactions/${id}`)).body;
    expect(answered.response).toMatchObject({ source: "slack", choice_id: "yes", device_id: `slack:${ANN.id}` });
    await until(() => updates(message).length === 1, 30_000);
    const update = updates(message)[0] as Json;
    expect(update.token).toBe(BOT_TOKEN);
    expect(outcomeOf(update)).toMatch(new RegExp(`^Answered "Yes" by <@${ANN.id}> at \\d\\d:\\d\\d$`));
    // The buttons are gone: the message keeps its text and shows the outcome instead.
    expect(update.body.blocks.some((block: Json) => block.type === "actions")).toBe(false);
    expect(slack.messages.get(`${CHANNEL} ${message.ts}`).text).toContain("Deploy now?");

    // A late click on the other button: already answered, nothing changes.
    await slack.ack(slack.click(message, 1, ANN), ACK_MS);
    await until(() => ephemerals().length >= 4, 30_000);
    expect(ephemerals().at(-1).text).toBe("Already answered: your answer was not recorded.");
    expect((await call("GET", `/v1/interactions/${id}`)).body.response.choice_id).toBe("yes");
    expect(slack.envelopes.every((entry) => entry.ack !== undefined)).toBe(true);
  });

  it("a modal answer and a thread reply settle text questions; strangers are refused in both", async () => {
    const first = ask("Which branch?", "--kind", "text");
    const firstId = (await first.stderrMatching(WAITING, 30_000))[1] as string;
    const message = await questionMessage("Which branch?");
    expect(message.text).toContain("reply in this thread");
    const [button] = message.blocks.find((block: Json) => block.type === "actions").elements;
    expect(button.text.text).toBe("Answer…");

    // A stranger's click opens no modal.
    await slack.ack(slack.click(message, 0, EVE), ACK_MS);
    await slack.ack(slack.click(message, 0, ANN), ACK_MS);
    await until(() => slack.views.length === 1, 30_000);
    const opened = slack.callsOf("views.open")[0] as Json;
    expect(opened.token).toBe(BOT_TOKEN);
    expect(opened.body.trigger_id).toMatch(/^\d+\.T0NOTIFY1\./);
    const view = slack.views[0];
    expect(view.private_metadata).toBe(button.value);

    // The stranger submits the form (forwarded to them somehow): the modal shows an error, nothing settles.
    const refusedAck = await slack.ack(slack.submit(view, EVE, "main"), ACK_MS);
    expect(refusedAck).toEqual({ response_action: "errors", errors: { answer: "You are not allowed to answer." } });
    expect(await status(firstId)).toBe("pending");
    const accepted = await slack.ack(slack.submit(view, ANN, "release/2.1"), ACK_MS);
    expect(accepted).toEqual({});
    const done = await first.done;
    expect(done.stdout.trim()).toBe("release/2.1");
    await until(() => updates(message).length === 1, 30_000);
    expect(outcomeOf(updates(message)[0] as Json)).toMatch(/^Answered "release\/2\.1" by <@U0ANN0001> at/);

    const second = ask("Which region?", "--kind", "text");
    const secondId = (await second.stderrMatching(WAITING, 30_000))[1] as string;
    const thread = await questionMessage("Which region?");
    await slack.ack(slack.threadReply(CHANNEL, thread.ts, EVE, "us-east"), ACK_MS);
    await until(() => ephemerals().some((body) => body.user === EVE.id && body.text.includes("not allowed")), 30_000);
    expect(await status(secondId)).toBe("pending");
    // A reply in the thread of some other message answers nothing.
    await slack.ack(slack.threadReply(CHANNEL, "1600000000.000100", ANN, "nowhere"), ACK_MS);
    expect(await status(secondId)).toBe("pending");
    await slack.ack(slack.threadReply(CHANNEL, thread.ts, ANN, "eu-west"), ACK_MS);
    expect((await second.done).stdout.trim()).toBe("eu-west");
    expect((await call("GET", `/v1/interactions/${secondId}`)).body.response).toMatchObject({
      source: "slack",
      text: "eu-west",
      device_id: `slack:${ANN.id}`,
    });
    await until(() => updates(thread).length === 1, 30_000);
    expect(outcomeOf(updates(thread)[0] as Json)).toMatch(/^Answered "eu-west" by <@U0ANN0001> at/);
    expect(slack.envelopes.every((entry) => entry.ack !== undefined)).toBe(true);
  });

  it("updates the message when the question is answered on the desktop or cancelled; a late click changes nothing", async () => {
    // Slack throttles the first post: the outbox waits out Retry-After and posts again.
    slack.fail("chat.postMessage", { status: 429, retryAfter: 1 }, 1);
    const [first, second] = await askEach(call, "Answered elsewhere?", "Cancelled later?");
    const one = await questionMessage("Answered elsewhere?");
    const two = await questionMessage("Cancelled later?");
    await answerOnDesktopAndCancel(call, first, second);
    expect(slack.callsOf("chat.postMessage:failed")).toHaveLength(1);
    await until(() => updates(one).length === 1 && updates(two).length === 1, 30_000);
    expect(outcomeOf(updates(one)[0] as Json)).toMatch(/^Answered on the desktop at \d\d:\d\d$/);
    expect(outcomeOf(updates(two)[0] as Json)).toBe("Cancelled");
    await slack.ack(slack.click(one, 1, ANN), ACK_MS);
    await until(() => ephemerals().length >= 1, 30_000);
    expect(ephemerals()[0].text).toBe("Already answered: your answer was not recorded.");
    expect((await call("GET", `/v1/interactions/${first.id}`)).body.response.source).toBe("ui");
  });

  it("stops the socket when the provider is disabled and opens it again when it is enabled", async () => {
    const providers = (await call("GET", "/ui/api/outbound/providers")).body;
    const id = providers[0].id;
    expect(slack.open).toBe(true);
    expect((await call("PATCH", `/ui/api/outbound/providers/${id}`, { enabled: false })).status).toBe(200);
    await until(() => !slack.open, 30_000);
    expect(await connection()).toBeUndefined();
    const before = slack.connections;
    expect((await call("PATCH", `/ui/api/outbound/providers/${id}`, { enabled: true })).status).toBe(200);
    await until(() => slack.connections === before + 1 && slack.open, 30_000);
    await eventually(async () => (await connection())?.state === "connected", 30_000);
  });

  it("a broker SIGKILL after settling but before Slack has the ack settles nothing twice; a click while down is not lost", async () => {
    const first = (await call("POST", "/v1/interactions/request", { prompt: "Kill me?" })).body;
    const second = (await call("POST", "/v1/interactions/request", { prompt: "While down?" })).body;
    const one = await questionMessage("Kill me?");
    const two = await questionMessage("While down?");
    slack.loseAcks = 1;
    const cut = slack.click(one, 0, ANN);
    // The broker acks only after the answer is committed: once its ack is on the wire, the answer is durable.
    await until(() => slack.lostAcks.length === 1, 30_000);
    const settled = (await call("GET", `/v1/interactions/${first.id}`)).body;
    expect(settled.response).toMatchObject({ source: "slack", choice_id: "allow" });
    await chat.kill();
    const whileDown = slack.click(two, 1, ANN);

    await chat.spawn();
    // Slack redelivers both unacknowledged envelopes to the new connection.
    await slack.ack(cut, 60_000);
    await slack.ack(whileDown, ACK_MS);
    expect(slack.envelopes.find((entry) => entry.envelope.envelope_id === cut)?.envelope.retry_attempt).toBe(1);
    expect((await call("GET", `/v1/interactions/${first.id}`)).body.response).toEqual(settled.response);
    expect((await call("GET", `/v1/interactions/${second.id}/wait?timeout=30`)).body.response).toMatchObject({
      source: "slack",
      choice_id: "deny",
    });
    // The redelivered click replayed the first answer: nobody was told "already answered".
    expect(ephemerals()).toEqual([]);
    await until(() => updates(one).length >= 1 && updates(two).length >= 1, 30_000);
  });

  it("reconnects after a disconnect envelope and a dropped socket, loses no envelope, and leaks no token", async () => {
    expect((await connection()).state).toBe("connected");
    const first = (await call("POST", "/v1/interactions/request", { prompt: "After a refresh?" })).body;
    const one = await questionMessage("After a refresh?");

    // Slack recycles the connection: the broker opens a new one at once.
    slack.disconnect("refresh_requested");
    await until(() => slack.connections >= 2, 30_000);
    await slack.ack(slack.click(one, 0, ANN), ACK_MS);
    expect((await call("GET", `/v1/interactions/${first.id}/wait?timeout=30`)).body.status).toBe("answered");

    // A dropped socket, a failing connections.open, then a 429 with Retry-After: retried with backoff.
    const second = (await call("POST", "/v1/interactions/request", { prompt: "After a drop?" })).body;
    const two = await questionMessage("After a drop?");
    slack.fail("apps.connections.open", { error: "internal_error" }, 1);
    slack.fail("apps.connections.open", { status: 429, retryAfter: 1 }, 1);
    slack.drop();
    // A click while no socket is open waits at Slack and arrives on the next connection.
    const envelope = slack.click(two, 1, ANN);
    await eventually(async () => (await connection())?.state === "retrying", 30_000);
    expect((await connection()).lastCode).toMatch(/^(socket_closed|slack_internal_error|http_429)$/);
    await until(() => slack.connections >= 3, 60_000);
    await slack.ack(envelope, ACK_MS);
    expect((await call("GET", `/v1/interactions/${second.id}/wait?timeout=30`)).body.response).toMatchObject({
      source: "slack",
      choice_id: "deny",
    });
    await eventually(async () => (await connection())?.state === "connected", 30_000);
    const retried = slack.calls.filter((entry) => entry.method.startsWith("apps.connections.open"));
    expect(retried.map((entry) => entry.method)).toContain("apps.connections.open:failed");
    expect(retried.every((entry) => entry.token === APP_TOKEN)).toBe(true);
    expect(slack.envelopes.every((entry) => entry.ack !== undefined)).toBe(true);

    // No token in the listing, the log, the database or anything else under the data dir, nor on stderr.
    const listing = JSON.stringify((await call("GET", "/ui/api/outbound/providers")).body);
    const secrets = [APP_TOKEN, BOT_TOKEN, "appsecretappsecret", "botsecretbotsecret"];
    const files = chat.files();
    for (const secret of secrets) {
      expect(listing).not.toContain(secret);
      expect(chat.broker.stderr()).not.toContain(secret);
      for (const file of files) expect(readFileSync(file).includes(secret), file).toBe(false);
    }
  });
});
