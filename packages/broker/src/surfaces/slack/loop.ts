import { cappedServerDelayMs } from "@notify/contracts/retry";
import { readableText } from "../../outbox/providers/readable-text.js";
import { truncate } from "../../outbox/providers/text-limits.js";
import {
  answerFromChat,
  isAccepted,
  loopSecrets,
  pendingQuestion,
  SurfaceFailure,
  unlessAccepted,
  vetTap,
} from "../chat-loop.js";
import { outcomeLine } from "../question-text.js";
import { outcomeReply } from "../settle.js";
import { socketSession } from "../socket-session.js";
import { secureSocketUrl } from "../socket-url.js";
import type { SurfaceLoopContext } from "../supervisor.js";
import { APP_TOKEN, BOT_TOKEN, slackAccount, slackApi } from "./api.js";
import { escapeMrkdwn, messageBlocks } from "./send.js";

/** A Socket Mode envelope (https://api.slack.com/apis/socket-mode): the parts the broker reads. */
interface Envelope {
  type?: string;
  envelope_id?: string;
  reason?: string;
  payload?: Record<string, unknown>;
}

interface SlackUser {
  id?: string;
}

const str = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** The Socket Mode URL `apps.connections.open` gave, if the broker may connect to it (socket-url.ts). */
export function socketUrl(value: string, apiBaseUrl: string): { url: string } | { refused: string } {
  return secureSocketUrl(value, apiBaseUrl, "slack_bad_reply");
}

/**
 * The Socket Mode connection of one `slack_app` provider: `apps.connections.open` with the app-level token gives
 * a WebSocket URL; `hello` means connected; every envelope is acknowledged with its `envelope_id` once handled (an
 * answer is committed before its ack, so Slack redelivers what a crash cut off, and the answer's response id,
 * taken from the action, replays instead of answering twice). A dropped socket throws, and the supervisor retries
 * with backoff.
 *
 * A `disconnect` envelope (Slack recycling the connection) opens a new connection at once. When connections keep
 * ending that way less than `maxBackoffMs` after they opened, the second such in a row and each after it wait a
 * backoff first, shown as `retrying (slack_disconnect)`, so a server that disconnects every socket cannot make a
 * loop of it. Every Web API call, and each socket until its `hello`, has a deadline of `requestTimeoutMs`.
 */
export async function slackLoop(context: SurfaceLoopContext): Promise<void> {
  const { profile, signal, store } = context;
  const base = profile.settings.apiBaseUrl as string;
  const allowed = new Set(profile.settings.allowedUserIds as string[]);
  const secrets = loopSecrets(context);
  const appToken = secrets.appToken ?? "";
  const botToken = secrets.botToken ?? "";
  if (!APP_TOKEN.test(appToken) || !BOT_TOKEN.test(botToken)) throw new SurfaceFailure("provider_secret_invalid");
  const account = slackAccount(botToken);

  context.setEditor(account, async (row, interaction, editSignal) => {
    // mrkdwn: the label or answer text escaped; the name is a `<@U…>` mention.
    const line = outcomeLine(interaction, "slack", escapeMrkdwn);
    const reply = await slackApi(
      base,
      botToken,
      "chat.update",
      {
        channel: row.conversation,
        ts: row.message,
        text: `${escapeMrkdwn(readableText(row.body))}\n\n${line}`,
        blocks: messageBlocks(row.body, {
          type: "context",
          elements: [{ type: "mrkdwn", text: line }],
        }),
      },
      context.within(editSignal),
    );
    if (reply.ok) return true;
    return reply.code === "slack_message_not_found" || reply.code === "slack_cant_update_message";
  });

  const ephemeral = (channel: string | undefined, user: string | undefined, text: string) =>
    channel && user
      ? slackApi(base, botToken, "chat.postEphemeral", { channel, user, text }, context.within()).catch(() => undefined)
      : Promise.resolve(undefined);

  /** block_actions: a choice button answers; the text button opens the answer modal. */
  const blockActions = async (payload: Record<string, unknown>): Promise<void> => {
    const user = (payload.user ?? {}) as SlackUser;
    const container = (payload.container ?? {}) as Record<string, unknown>;
    const channel = str((payload.channel as { id?: unknown } | undefined)?.id) ?? str(container.channel_id);
    const ts = str((payload.message as { ts?: unknown } | undefined)?.ts) ?? str(container.message_ts);
    const action = ((payload.actions as Record<string, unknown>[] | undefined) ?? [])[0] ?? {};
    const value = str(action.value);
    const tap = vetTap(context, "slack", {
      account,
      allowed,
      message: channel && ts ? store.message(account, channel, ts) : undefined,
      userId: user.id,
      handle: value ? store.handle(value) : undefined,
    });
    const tell = (text: string) => ephemeral(channel, user.id, text);
    if ("refused" in tap) {
      await tell(tap.refused);
      return;
    }
    const { handle, userId } = tap;
    if (handle.choiceId === undefined) {
      const interaction = await pendingQuestion(context, handle.interactionId, tell);
      if (!interaction) return;
      await slackApi(
        base,
        botToken,
        "views.open",
        {
          trigger_id: str(payload.trigger_id),
          view: {
            type: "modal",
            callback_id: "notify_answer",
            private_metadata: value,
            title: { type: "plain_text", text: "Answer" },
            submit: { type: "plain_text", text: "Send" },
            close: { type: "plain_text", text: "Cancel" },
            blocks: [
              {
                type: "section",
                text: { type: "mrkdwn", text: escapeMrkdwn(truncate(readableText(interaction.prompt), 3000)) },
              },
              {
                type: "input",
                block_id: "answer",
                label: { type: "plain_text", text: "Your answer" },
                element: {
                  type: "plain_text_input",
                  action_id: "answer",
                  multiline: true,
                  max_length: Math.min(3000, interaction.text_max_length),
                },
              },
            ],
          },
        },
        context.within(),
      );
      return;
    }
    const responseId = `slack_${account.slice(6)}_${str(action.action_ts) ?? ts}_${userId}`;
    // The outcome line names the person by a `<@U…>` mention.
    const reply = { responseId, userId, name: `<@${userId}>`, choiceId: handle.choiceId };
    await answerFromChat(context, handle.interactionId, reply, unlessAccepted(tell));
  };

  /** view_submission of the answer modal: returns the ack's payload (errors shown in the modal), if any. */
  const viewSubmission = async (payload: Record<string, unknown>): Promise<Record<string, unknown> | undefined> => {
    const user = (payload.user ?? {}) as SlackUser;
    const view = (payload.view ?? {}) as Record<string, unknown>;
    if (view.callback_id !== "notify_answer") return undefined;
    const refuse = (reason: string) => ({ response_action: "errors", errors: { answer: reason } });
    if (!user.id || !allowed.has(user.id)) return refuse("You are not allowed to answer.");
    const value = str(view.private_metadata);
    const handle = value ? store.handle(value) : undefined;
    if (!handle || handle.account !== account || handle.choiceId !== undefined) {
      return refuse("This form is not one the broker sent.");
    }
    const values = (view.state as { values?: Record<string, Record<string, { value?: unknown }>> } | undefined)?.values;
    const text = str(values?.answer?.answer?.value);
    if (text === undefined) return refuse("An answer is required.");
    const responseId = `slack_${account.slice(6)}_${str(view.id) ?? value}`;
    const reply = { responseId, userId: user.id, name: `<@${user.id}>`, text };
    const outcome = await answerFromChat(context, handle.interactionId, reply, undefined);
    return isAccepted(outcome) ? undefined : refuse(outcomeReply(outcome));
  };

  /** events_api: a reply in a question message's thread answers a text question. */
  const event = async (payload: Record<string, unknown>): Promise<void> => {
    const body = (payload.event ?? {}) as Record<string, unknown>;
    if (body.type !== "message" || body.subtype !== undefined || body.bot_id !== undefined) return;
    const channel = str(body.channel);
    const thread = str(body.thread_ts);
    const text = str(body.text);
    if (!channel || !thread || !text || thread === str(body.ts)) return;
    const message = store.message(account, channel, thread);
    if (!message) return;
    const user = str(body.user);
    if (!user || !allowed.has(user)) {
      context.logger.info(`chat: slack provider ${profile.name} refused a reply by user ${user ?? "?"}`);
      await ephemeral(channel, user, "Not accepted: you are not allowed to answer.");
      return;
    }
    const reply = { responseId: `slack_${account.slice(6)}_${str(body.ts)}`, userId: user, name: `<@${user}>`, text };
    await answerFromChat(
      context,
      message.interactionId,
      reply,
      unlessAccepted((text) => ephemeral(channel, user, text)),
    );
  };

  const handle = async (envelope: Envelope): Promise<Record<string, unknown> | undefined> => {
    const payload = envelope.payload ?? {};
    if (envelope.type === "interactive") {
      if (payload.type === "block_actions") await blockActions(payload);
      else if (payload.type === "view_submission") return viewSubmission(payload);
    } else if (envelope.type === "events_api") {
      await event(payload);
    }
    return undefined;
  };

  /** Connections in a row ended by `disconnect` less than `maxBackoffMs` after they opened. */
  let quickDisconnects = 0;
  while (!signal.aborted) {
    const opened = await slackApi<{ url?: string }>(base, appToken, "apps.connections.open", {}, context.within());
    if (signal.aborted) return;
    if (!opened.ok) {
      // 429 honoured (up to MAX_SERVER_DELAY_MS), shown as retrying while it waits; the supervisor's backoff
      // comes on top of the requested wait.
      if (opened.retryAfterMs !== undefined) {
        context.report("retrying", opened.code);
        await context.sleep(cappedServerDelayMs(opened.retryAfterMs));
      }
      throw new SurfaceFailure(opened.code);
    }
    const target = socketUrl(str(opened.result.url) ?? "", base);
    if ("refused" in target) throw new SurfaceFailure(target.refused);
    const startedMs = performance.now();
    const reason = await connection(target.url, context, handle);
    if (signal.aborted) return;
    if (reason !== "disconnect") throw new SurfaceFailure(reason);
    quickDisconnects = performance.now() - startedMs < context.timings.maxBackoffMs ? quickDisconnects + 1 : 0;
    if (quickDisconnects > 1) {
      context.report("retrying", "slack_disconnect");
      await context.sleep(context.backoff(quickDisconnects - 1));
    }
  }
}

/**
 * One WebSocket session; resolves with why it ended: `disconnect` (Slack asked for a new connection),
 * `socket_closed` (dropped), `socket_timeout` (no `hello` within `requestTimeoutMs`), `aborted`. Envelopes are
 * handled one at a time, in order.
 */
function connection(
  url: string,
  context: SurfaceLoopContext,
  handle: (envelope: Envelope) => Promise<Record<string, unknown> | undefined>,
): Promise<string> {
  return socketSession<string>(url, context, (session) => ({
    timedOut: "socket_timeout",
    aborted: "aborted",
    closed: () => "socket_closed",
    message(payload) {
      const envelope = payload as Envelope;
      if (envelope.type === "hello") {
        session.greeted();
        context.report("connected");
        return;
      }
      if (envelope.type === "disconnect") {
        session.queue(() => session.end("disconnect"));
        return;
      }
      const id = str(envelope.envelope_id);
      session.queue(async () => {
        let ackPayload: Record<string, unknown> | undefined;
        try {
          ackPayload = await handle(envelope);
        } catch {
          // A closed database during shutdown: no ack, Slack sends it again to the next connection.
          return;
        }
        if (id !== undefined) session.send(ackPayload ? { envelope_id: id, payload: ackPayload } : { envelope_id: id });
      });
    },
  }));
}
