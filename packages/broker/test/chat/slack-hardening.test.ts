// Issue 31 (Hardening 3), items 2, 4 and 5 on Slack: the outcome line's text made visible and escaped for mrkdwn,
// a 429 Retry-After past the timer limit waited (capped), and a socket that must be `wss://` (loopback `ws://` only
// beside a loopback apiBaseUrl), say `hello` in time, and not be recycled in a loop. A broker in this process, the
// loopback Web API and Socket Mode server.
import { type Json, until, untilValue } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type InProcessChat, startInProcessChat } from "./chat-in-process.js";
import { singleChoice } from "./questions.js";
import { SlackServer } from "./slack-server.js";

const APP_TOKEN = "xapp-1-A0NOTIFY1-1234567890-hardeningappsecret";
const BOT_TOKEN = "xoxb-1111111111-2222222222-hardeningbotsecret";
const ANN = { id: "U0ANN0001", name: "ann" };

let slack: SlackServer;
let chat: InProcessChat;

beforeEach(async () => {
  slack = await new SlackServer(APP_TOKEN, BOT_TOKEN).start();
  // No jitter: the backoff between recycled sockets is exactly 100, 200, 400, 800, 1000 ms.
  chat = startInProcessChat({ random: () => 1 });
});

afterEach(async () => {
  await chat.close();
  await slack.close();
});

const start = () =>
  chat.addProvider({
    kind: "slack_app",
    name: "team-slack",
    settings: { channel: "C0AGENTS1", allowedUserIds: [ANN.id], apiBaseUrl: slack.apiBaseUrl },
    secrets: { appToken: APP_TOKEN, botToken: BOT_TOKEN },
  });

describe("Slack hardening (issue 31)", { timeout: 90_000 }, () => {
  it("item 2: the post and the outcome line show controls as tokens, and mrkdwn in a label stays text", async () => {
    await start();
    await until(() => slack.connections >= 1, 30_000);
    const created = await chat.call(
      "POST",
      "/v1/interactions/request",
      singleChoice("Ship \u202Eit\u202C?\u001B[0m", ["all", "<!channel> \u2066now"], ["no", "No"]),
    );
    expect(created.status).toBe(201);
    const message = await untilValue(
      "the question message",
      () => slack.posted().find((posted: Json) => posted.text.includes("Ship")),
      { timeoutMs: 30_000 },
    );
    // mrkdwn: the tokens' `<` and `>` are escaped like any text, and Slack shows them as `<U+202E>`.
    const shown = "Ship &lt;U+202E&gt;it&lt;U+202C&gt;?&lt;U+001B&gt;[0m";
    expect(message.text).toContain(shown);
    expect(message.blocks[0].text.text).toContain(shown);
    const buttons = message.blocks.find((block: Json) => block.type === "actions").elements;
    expect(buttons[0].text).toEqual({ type: "plain_text", text: "<!channel> <U+2066>now" });

    await slack.ack(slack.click(message, 0, ANN), 15_000);
    const update = await untilValue("the outcome update", () => slack.callsOf("chat.update")[0], { timeoutMs: 30_000 });
    // The label is agent text: escaped for mrkdwn (no channel ping), its controls shown; the name is a mention.
    const line = update.body.blocks.at(-1).elements[0].text as string;
    expect(line).toMatch(/^Answered "&lt;!channel&gt; &lt;U\+2066&gt;now" by <@U0ANN0001> at \d\d:\d\d$/);
    expect(update.body.text).toMatch(/\n\nAnswered "&lt;!channel&gt; &lt;U\+2066&gt;now" by <@U0ANN0001> at/);
  });

  it("item 4: a 429 Retry-After past the timer limit on apps.connections.open is waited (capped)", async () => {
    slack.fail("apps.connections.open", { status: 429, retryAfter: 2_147_484 }, 1_000);
    await start();
    await chat.untilState("team-slack", "retrying", "http_429");
    // A window in which the uncapped wait (fired at once) and the loop's backoff made several calls; now none.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(slack.callsOf("apps.connections.open:failed")).toHaveLength(1);
  });

  it("item 5: a plain ws:// socket URL off loopback is refused; a loopback one is taken beside a loopback apiBaseUrl", async () => {
    slack.rewriteSocketUrl = (url) => url.replace("ws://127.0.0.1", "ws://wss-only.invalid");
    await start();
    await chat.untilState("team-slack", "retrying", "socket_url_insecure");
    expect(slack.upgrades).toBe(0);
    slack.rewriteSocketUrl = undefined;
    await chat.untilState("team-slack", "connected");
    expect(slack.connections).toBe(1);
  });

  it("item 5: a socket that never says hello ends at its deadline and shows retrying (socket_timeout)", async () => {
    slack.silent = true;
    await start();
    await chat.untilState("team-slack", "retrying", "socket_timeout", 15_000);
    expect(slack.upgrades).toBeGreaterThanOrEqual(1);
    slack.silent = false;
    await chat.untilState("team-slack", "connected");
  });

  it("item 5: disconnect envelopes in a row are reconnected with a backoff, shown as retrying", async () => {
    slack.disconnectOnHello = true;
    await start();
    await chat.untilState("team-slack", "retrying", "slack_disconnect");
    const before = slack.connections;
    // A window in which immediate reconnects made a connection every few milliseconds.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(slack.connections - before).toBeLessThanOrEqual(4);
    slack.disconnectOnHello = false;
    await chat.untilState("team-slack", "connected");
  });
});
