// Issue 35, "Must show" (the chat apps): a finished turn's follow-up answered from Slack and Discord, against a real
// broker (in process, its chat loops running) and a real `notify hook claude-code Stop` process whose stdout must
// become the reply as `{"decision":"block","reason":...}` (docs/hooks.md, "Follow-ups"):
// 1. Slack (`slack_app`, loopback Web API and Socket Mode): the "Answer…" modal, and a reply in the message's thread;
// 2. Discord (`discord_app`, loopback REST API and Gateway): the "Answer…" modal;
// 3. withdrawn: a prompt typed in the terminal (the session's UserPromptSubmit hook) edits both chat messages to end
//    with "Withdrawn: no reply needed".
// And the guard rail ("Who may reply"): a chat user not in allowedUserIds, whether through the modal or the thread,
// never reaches the agent: the hook keeps waiting with nothing on stdout, and the allowed reply that follows is the
// one the agent gets.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { timelineLine } from "@notify/contracts/ui-timeline-words";
import { type Json, tempDir, until, untilValue } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageWith } from "../../chat/chat-broker.js";
import { DiscordServer } from "../../chat/discord-server.js";
import { SlackServer } from "../../chat/slack-server.js";
import type { CliProcess, CliResult } from "../../cli/cli-harness.js";
import { type LiveBroker, liveBroker } from "../../relay/broker-client.js";
import { claude } from "../fixtures.js";
import { spawnHook } from "../hook-harness.js";

/** The line the Stop hook writes once its follow-up question is open. */
const FOLLOW_UP = /waiting up to \d+ s for a follow-up to interaction (int_\S+)/;
/** A wait across the broker, the loopback chat apps and the hook process on a loaded 2-core machine. */
const E2E_WAIT_MS = 30_000;
const FOLLOW_UP_CONFIG = { followUp: { waitSeconds: 120 } };

const SLACK_APP_TOKEN = "xapp-1-A0NOTIFY1-1234567890-appsecretappsecretappsecret";
const SLACK_BOT_TOKEN = "xoxb-1111111111-2222222222-botsecretbotsecretbot";
const SLACK_CHANNEL = "C0AGENTS1";
const SLACK_ANN = { id: "U0ANN0001", name: "ann" };
const SLACK_EVE = { id: "U0EVE0009", name: "eve" };

const DISCORD_BOT_TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAwMg.GdSc3x.botsecretbotsecretbotsecretbotsecret42";
const DISCORD_CHANNEL = "1300000000000000001";
const DISCORD_ANN = { id: "1400000000000000001", username: "ann" };
const DISCORD_EVE = { id: "1400000000000000009", username: "eve" };

type StopHook = { hook: CliProcess; stdout: () => string };

/** Every hook process started, so a failed test leaves none waiting behind it. */
const spawned: CliProcess[] = [];

/** A Stop hook of Claude Code for its own session, whose last message (the question's prompt) is `message`. */
function stopHook(target: string[], session: string, message: string): StopHook {
  const hook = spawnHook(["claude-code", "Stop", ...target], {
    ...claude.stop.input,
    session_id: session,
    last_assistant_message: message,
  });
  spawned.push(hook);
  let stdout = "";
  hook.child.stdout?.on("data", (chunk: string) => {
    stdout += chunk;
  });
  return { hook, stdout: () => stdout };
}

/** The next prompt typed in the terminal of `session`: Claude Code's UserPromptSubmit hook. */
function userPromptSubmit(target: string[], session: string, prompt: string): CliProcess {
  const { stop_hook_active: _active, last_assistant_message: _last, ...common } = claude.stop.input;
  const hook = spawnHook(["claude-code", "UserPromptSubmit", ...target], {
    ...common,
    session_id: session,
    hook_event_name: "UserPromptSubmit",
    prompt,
  });
  spawned.push(hook);
  return hook;
}

/** The hook has printed nothing and is still waiting for its follow-up. */
function stillWaiting(stop: StopHook): void {
  expect(stop.stdout()).toBe("");
  expect(stop.hook.child.exitCode).toBeNull();
}

/** A process's end, within the e2e deadline. */
function ended(process: CliProcess, what: string): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${E2E_WAIT_MS} ms`)), E2E_WAIT_MS);
  });
  return Promise.race([process.done, deadline]).finally(() => clearTimeout(timer));
}

/** `text` matched as itself in a RegExp. */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const block = (reason: string) => ({ decision: "block", reason });

/** The line the item's timeline shows for how its question was settled. */
async function settledLine(live: LiveBroker, id: string): Promise<string> {
  const { entries } = (await live.call("GET", `/ui/api/interactions/${id}/timeline`)).body as { entries: Json[] };
  const settled = entries.find((entry) => entry.event === "settled");
  return timelineLine(settled as never, (iso) => iso);
}

describe("a follow-up answered from Slack and Discord (issue 35)", () => {
  // One broker (in process, its chat loops running) with two routes, to Slack and to Discord: each follow-up goes to
  // both; the first valid reply wins and both messages show the outcome.
  let live: LiveBroker;
  let target: string[];
  let slack: SlackServer;
  let discord: DiscordServer;

  const interaction = async (id: string): Promise<Json> => (await live.call("GET", `/v1/interactions/${id}`)).body;
  /** The Slack message's chat.update calls, in order. */
  const slackUpdates = (message: Json): Json[] =>
    slack
      .callsOf("chat.update")
      .filter((update) => update.body.ts === message.ts && update.body.channel === SLACK_CHANNEL)
      .map((update) => update.body);
  /** The outcome line of a Slack update: its last block, a context. */
  const slackOutcome = (update: Json): string => update.blocks.at(-1).elements[0].text;
  const slackEphemerals = () => slack.callsOf("chat.postEphemeral").map((entry) => entry.body);
  /** The Discord message's edits (PATCH), in order. */
  const discordEdits = (message: Json): Json[] =>
    discord
      .callsOf("PATCH", new RegExp(`^channels/${DISCORD_CHANNEL}/messages/${message.id}$`))
      .map((call) => call.body);
  const discordMessage = (prompt: string): Promise<Json> =>
    untilValue("the Discord message", () => discord.posted().find((message) => message.content.includes(prompt)), {
      timeoutMs: E2E_WAIT_MS,
    });
  const discordCallback = (id: string): Promise<Json> =>
    untilValue(`the callback of interaction ${id}`, () => discord.callbacks.get(id), { timeoutMs: E2E_WAIT_MS });
  /** The last edit of a chat message once `done` holds for it. */
  const lastEdit = (what: string, edits: () => Json[], done: (edit: Json) => boolean): Promise<Json> =>
    untilValue(
      what,
      () => {
        const edit = edits().at(-1);
        return edit !== undefined && done(edit) ? edit : undefined;
      },
      { timeoutMs: E2E_WAIT_MS, detail: () => JSON.stringify(edits()) },
    );

  beforeAll(async () => {
    slack = await new SlackServer(SLACK_APP_TOKEN, SLACK_BOT_TOKEN).start();
    discord = await new DiscordServer(DISCORD_BOT_TOKEN).start();
    const dataDir = tempDir("follow-up-chat-");
    writeFileSync(join(dataDir, "config.json"), JSON.stringify(FOLLOW_UP_CONFIG));
    live = await liveBroker(dataDir);
    target = ["--port", String(live.broker.port), "--data-dir", dataDir];
    const providers = [
      {
        kind: "slack_app",
        name: "team-slack",
        enabled: true,
        settings: { channel: SLACK_CHANNEL, allowedUserIds: [SLACK_ANN.id], apiBaseUrl: slack.apiBaseUrl },
        secrets: { appToken: SLACK_APP_TOKEN, botToken: SLACK_BOT_TOKEN },
      },
      {
        kind: "discord_app",
        name: "team-discord",
        enabled: true,
        settings: { channelId: DISCORD_CHANNEL, allowedUserIds: [DISCORD_ANN.id], apiBaseUrl: discord.apiBaseUrl },
        secrets: { botToken: DISCORD_BOT_TOKEN },
      },
    ];
    for (const provider of providers) {
      expect((await live.call("POST", "/ui/api/outbound/providers", provider)).status).toBe(201);
      const route = { name: provider.name, provider: provider.name, includeMessage: true, enabled: true };
      expect((await live.call("POST", "/ui/api/outbound/routes", route)).status).toBe(201);
    }
    // Both answer loops connected (Slack's hello, Discord's READY), so a tap is not sent to a socket not yet open.
    for (const name of ["team-slack", "team-discord"]) {
      await untilValue(
        `${name} connected`,
        async () => {
          const listed = (await live.call("GET", "/ui/api/outbound/providers")).body as Json[];
          return listed.find((provider) => provider.name === name)?.connection?.state === "connected"
            ? true
            : undefined;
        },
        { timeoutMs: E2E_WAIT_MS },
      );
    }
  }, 90_000);

  afterAll(async () => {
    for (const hook of spawned) if (hook.child.exitCode === null) hook.child.kill();
    await live?.close();
    await slack?.close();
    await discord?.close();
  });

  it("Slack, the answer modal: a user not allowed is refused; Ann's reply goes to the agent and both messages show it", async () => {
    const prompt = "Refactored the billing module; 3 files changed.";
    const stop = stopHook(target, "s-slack-modal", prompt);
    const id = (await stop.hook.stderrMatching(FOLLOW_UP, E2E_WAIT_MS))[1] as string;
    expect(await interaction(id)).toMatchObject({ status: "pending", kind: "text", prompt });
    // The follow-up reaches the channel: a message whose text carries the agent's last message, with "Answer…".
    const message = await messageWith(() => slack.posted(), prompt);
    expect(message.channel).toBe(SLACK_CHANNEL);
    expect(message.text).toContain("Claude Code finished");
    const [button] = message.blocks.find((entry: Json) => entry.type === "actions").elements;
    expect(button.text.text).toBe("Answer…");
    const other = await discordMessage(prompt);

    // Eve's tap opens no modal (she is told why, privately); Ann's does.
    const told = slackEphemerals().length;
    await slack.ack(slack.click(message, 0, SLACK_EVE), E2E_WAIT_MS);
    expect(slackEphemerals().slice(told)).toEqual([
      {
        channel: SLACK_CHANNEL,
        user: SLACK_EVE.id,
        text: "Not accepted: you are not allowed to answer.",
      },
    ]);
    expect(slack.views).toHaveLength(0);
    await slack.ack(slack.click(message, 0, SLACK_ANN), E2E_WAIT_MS);
    await until(() => slack.views.length === 1, E2E_WAIT_MS);
    const view = slack.views[0] as Json;
    expect(view.private_metadata).toBe(button.value);

    // Eve submits the form (forwarded to her somehow): the modal shows an error, and the agent hears nothing.
    const refused = await slack.ack(slack.submit(view, SLACK_EVE, "Delete the production database."), E2E_WAIT_MS);
    // The answer is committed before its ack: had Eve's counted, the question would be answered by now.
    expect((await interaction(id)).status).toBe("pending");
    stillWaiting(stop);
    expect(refused).toEqual({ response_action: "errors", errors: { answer: "You are not allowed to answer." } });
    expect(slackUpdates(message)).toEqual([]);

    const reply = "Now add a test for the rounding of refunds.";
    expect(await slack.ack(slack.submit(view, SLACK_ANN, reply), E2E_WAIT_MS)).toEqual({});
    const result = await ended(stop.hook, "the Stop hook");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(block(reply));
    expect(result.stderr).toContain("a reply from slack goes to the agent");
    expect((await interaction(id)).response).toMatchObject({
      source: "slack",
      text: reply,
      device_id: `slack:${SLACK_ANN.id}`,
    });
    expect(await settledLine(live, id)).toBe("Reply from slack: sent to the agent");

    // The Slack message keeps the agent's text and shows who replied instead of its button; Discord's says where.
    const update = await lastEdit(
      "the Slack message updated",
      () => slackUpdates(message),
      () => true,
    );
    expect(slackOutcome(update)).toMatch(
      new RegExp(`^Answered "${literal(reply)}" by <@${SLACK_ANN.id}> at \\d\\d:\\d\\d$`),
    );
    expect(update.text).toContain(prompt);
    expect(update.blocks.some((entry: Json) => entry.type === "actions")).toBe(false);
    const edit = await lastEdit(
      "the Discord message edited",
      () => discordEdits(other),
      () => true,
    );
    expect(edit.content).toMatch(new RegExp(`\\n\\nAnswered "${literal(reply)}" in Slack at \\d\\d:\\d\\d$`));
    expect(edit.components).toEqual([]);
  }, 90_000);

  it("Slack, a reply in the message's thread: a user not allowed is refused; Ann's reply goes to the agent", async () => {
    const prompt = "Migrated the CI to the new runners; all green.";
    const stop = stopHook(target, "s-slack-thread", prompt);
    const id = (await stop.hook.stderrMatching(FOLLOW_UP, E2E_WAIT_MS))[1] as string;
    const message = await messageWith(() => slack.posted(), prompt);
    expect(message.text).toContain("reply in this thread");

    // The broker acknowledges an envelope once it has handled it: Eve's reply has been refused by then.
    const told = slackEphemerals().length;
    const eve = slack.threadReply(SLACK_CHANNEL, message.ts, SLACK_EVE, "Delete the production database.");
    await slack.ack(eve, E2E_WAIT_MS);
    expect((await interaction(id)).status).toBe("pending");
    stillWaiting(stop);
    expect(slackEphemerals().slice(told)).toEqual([
      { channel: SLACK_CHANNEL, user: SLACK_EVE.id, text: "Not accepted: you are not allowed to answer." },
    ]);

    const reply = "Pin the runner image to a digest.";
    await slack.ack(slack.threadReply(SLACK_CHANNEL, message.ts, SLACK_ANN, reply), E2E_WAIT_MS);
    const result = await ended(stop.hook, "the Stop hook");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(block(reply));
    expect(result.stderr).toContain("a reply from slack goes to the agent");
    expect((await interaction(id)).response).toMatchObject({
      source: "slack",
      text: reply,
      device_id: `slack:${SLACK_ANN.id}`,
    });
    expect(await settledLine(live, id)).toBe("Reply from slack: sent to the agent");
    const update = await lastEdit(
      "the Slack message updated",
      () => slackUpdates(message),
      () => true,
    );
    expect(slackOutcome(update)).toMatch(
      new RegExp(`^Answered "${literal(reply)}" by <@${SLACK_ANN.id}> at \\d\\d:\\d\\d$`),
    );
  }, 90_000);

  it("Discord, the answer modal: a user not allowed is refused; Ann's reply goes to the agent and both messages show it", async () => {
    const prompt = "Split the settings page into three tabs.";
    const stop = stopHook(target, "s-discord", prompt);
    const id = (await stop.hook.stderrMatching(FOLLOW_UP, E2E_WAIT_MS))[1] as string;
    const message = await discordMessage(prompt);
    expect(message.channel_id).toBe(DISCORD_CHANNEL);
    expect(message.content).toContain("Claude Code finished");
    const [button] = message.components[0].components;
    expect(button.label).toBe("Answer…");
    const other = await messageWith(() => slack.posted(), prompt);

    // Eve's tap opens no modal; Ann's does.
    const eveTap = await discordCallback(discord.click(message, 0, DISCORD_EVE));
    expect(eveTap).toMatchObject({ type: 4, data: { content: "Not accepted: you are not allowed to answer." } });
    const opened = await discordCallback(discord.click(message, 0, DISCORD_ANN));
    expect(opened.type).toBe(9);
    expect(opened.data.custom_id).toBe(button.custom_id);

    // Eve submits the modal (its custom id seen somehow): refused, and the agent hears nothing.
    const refused = await discordCallback(
      discord.submit(message, opened.data, DISCORD_EVE, "Delete the production database."),
    );
    // An answer is settled before its callback: had Eve's counted, the question would be answered by now.
    expect((await interaction(id)).status).toBe("pending");
    stillWaiting(stop);
    expect(refused).toMatchObject({ type: 4, data: { content: "Not accepted: you are not allowed to answer." } });
    expect(discordEdits(message)).toEqual([]);

    const reply = "Keep the old URLs working with redirects.";
    const accepted = await discordCallback(discord.submit(message, opened.data, DISCORD_ANN, reply));
    expect(accepted).toMatchObject({ type: 4, data: { content: "Answer recorded.", flags: 64 } });
    const result = await ended(stop.hook, "the Stop hook");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(block(reply));
    expect(result.stderr).toContain("a reply from discord goes to the agent");
    expect((await interaction(id)).response).toMatchObject({
      source: "discord",
      text: reply,
      device_id: `discord:${DISCORD_ANN.id}`,
    });
    expect(await settledLine(live, id)).toBe("Reply from discord: sent to the agent");

    const edit = await lastEdit(
      "the Discord message edited",
      () => discordEdits(message),
      () => true,
    );
    expect(edit.content).toContain("Split the settings page into three tabs.");
    expect(edit.content).toMatch(
      new RegExp(`\\n\\nAnswered "${literal(reply)}" by <@${DISCORD_ANN.id}> at \\d\\d:\\d\\d$`),
    );
    expect(edit.components).toEqual([]);
    const update = await lastEdit(
      "the Slack message updated",
      () => slackUpdates(other),
      () => true,
    );
    expect(slackOutcome(update)).toMatch(new RegExp(`^Answered "${literal(reply)}" in Discord at \\d\\d:\\d\\d$`));
  }, 90_000);

  it("withdrawn: a prompt typed in the terminal ends the wait and edits both chat messages", async () => {
    const session = "s-withdrawn";
    const prompt = "Renamed the config loader; the docs still say the old name.";
    const stop = stopHook(target, session, prompt);
    const id = (await stop.hook.stderrMatching(FOLLOW_UP, E2E_WAIT_MS))[1] as string;
    const slackMessage = await messageWith(() => slack.posted(), prompt);
    const discordMsg = await discordMessage(prompt);

    const typed = await ended(userPromptSubmit(target, session, "never mind, fix the docs"), "UserPromptSubmit");
    expect(typed.code, typed.stderr).toBe(0);
    // The Stop hook prints nothing: the turn ends as it always did.
    const result = await ended(stop.hook, "the Stop hook");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("");
    expect((await interaction(id)).status).toBe("cancelled");
    expect(await settledLine(live, id)).toBe("Withdrawn: no reply needed");

    const withdrawn = "Withdrawn: no reply needed";
    const update = await lastEdit(
      "the Slack message withdrawn",
      () => slackUpdates(slackMessage),
      () => true,
    );
    expect(slackOutcome(update)).toBe(withdrawn);
    expect(update.text.endsWith(withdrawn)).toBe(true);
    expect(update.blocks.some((entry: Json) => entry.type === "actions")).toBe(false);
    const edit = await lastEdit(
      "the Discord message withdrawn",
      () => discordEdits(discordMsg),
      () => true,
    );
    expect(edit.content.endsWith(`\n\n${withdrawn}`)).toBe(true);
    expect(edit.components).toEqual([]);

    // A late reply changes nothing: the question is closed.
    await slack.ack(slack.threadReply(SLACK_CHANNEL, slackMessage.ts, SLACK_ANN, "too late"), E2E_WAIT_MS);
    expect((await interaction(id)).status).toBe("cancelled");
  }, 90_000);
});
