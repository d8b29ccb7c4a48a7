import { cappedServerDelayMs } from "@notify/contracts/retry";
import { readableText } from "../../outbox/providers/readable-text.js";
import { truncate } from "../../outbox/providers/text-limits.js";
import { outcomeLine, rememberName } from "../question-text.js";
import { outcomeReply, type SettleOutcome, settleFromChat } from "../settle.js";
import { secureSocketUrl } from "../socket-url.js";
import type { SurfaceLoopContext } from "../supervisor.js";
import { APP_TOKEN, BOT_TOKEN, slackAccount, slackApi } from "./api.js";
import { escapeMrkdwn, messageBlocks } from "./send.js";

class SlackFailure extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/** A Socket Mode envelope (https://api.slack.com/apis/socket-mode): the parts the broker reads. */
interface Envelope {
  type?: string;
  envelope_id?: string;
  reason?: string;
  payload?: Record<string, unknown>;
}

interface SlackUser {
  id?: string;
  name?: string;
  username?: string;
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
  let secrets: Record<string, string>;
  try {
    secrets = context.outbound.openSecrets(profile.id);
  } catch {
    throw new SlackFailure("provider_secrets_unreadable");
  }
  const appToken = secrets.appToken ?? "";
  const botToken = secrets.botToken ?? "";
  if (!APP_TOKEN.test(appToken) || !BOT_TOKEN.test(botToken)) throw new SlackFailure("provider_secret_invalid");
  const account = slackAccount(botToken);
  const { requestTimeoutMs } = context.timings;
  /** The loop's signal with the deadline of one call (undici's own is 300 s). */
  const within = (...signals: AbortSignal[]) =>
    AbortSignal.any([signal, ...signals, AbortSignal.timeout(requestTimeoutMs)]);

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
      within(editSignal),
    );
    if (reply.ok) return true;
    return reply.code === "slack_message_not_found" || reply.code === "slack_cant_update_message";
  });

  const ephemeral = (channel: string | undefined, user: string | undefined, text: string) =>
    channel && user
      ? slackApi(base, botToken, "chat.postEphemeral", { channel, user, text }, within()).catch(() => undefined)
      : Promise.resolve(undefined);

  const settle = (
    interactionId: string,
    responseId: string,
    user: SlackUser,
    answer: { choiceId?: string; text?: string },
  ) => {
    rememberName(responseId, `<@${user.id}>`);
    return settleFromChat(context.interactions, context.unit, interactionId, {
      responseId,
      source: "slack",
      deviceId: `slack:${user.id}`,
      ...answer,
    });
  };

  const after = (outcome: SettleOutcome, interactionId: string) => {
    if (outcome.kind !== "refused") context.close(interactionId);
  };

  /** block_actions: a choice button answers; the text button opens the answer modal. */
  const blockActions = async (payload: Record<string, unknown>): Promise<void> => {
    const user = (payload.user ?? {}) as SlackUser;
    const container = (payload.container ?? {}) as Record<string, unknown>;
    const channel = str((payload.channel as { id?: unknown } | undefined)?.id) ?? str(container.channel_id);
    const ts = str((payload.message as { ts?: unknown } | undefined)?.ts) ?? str(container.message_ts);
    const action = ((payload.actions as Record<string, unknown>[] | undefined) ?? [])[0] ?? {};
    const message = channel && ts ? store.message(account, channel, ts) : undefined;
    if (!message) {
      context.logger.info(`chat: slack provider ${profile.name} refused a button outside its question messages`);
      await ephemeral(channel, user.id, "Not accepted: this message does not answer questions.");
      return;
    }
    if (!user.id || !allowed.has(user.id)) {
      context.logger.info(`chat: slack provider ${profile.name} refused a tap by user ${user.id ?? "?"}`);
      await ephemeral(channel, user.id, "Not accepted: you are not allowed to answer.");
      return;
    }
    const value = str(action.value);
    const handle = value ? store.handle(value) : undefined;
    if (!handle || handle.account !== account || handle.interactionId !== message.interactionId) {
      context.logger.info(`chat: slack provider ${profile.name} refused an unknown button`);
      await ephemeral(channel, user.id, "Not accepted: this button is not one the broker sent.");
      return;
    }
    if (handle.choiceId === undefined) {
      const interaction = context.interactions.find(handle.interactionId);
      if (interaction?.status !== "pending") {
        await ephemeral(
          channel,
          user.id,
          interaction?.status === "answered" ? "Already answered." : "This question is closed.",
        );
        context.close(handle.interactionId);
        return;
      }
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
        within(),
      );
      return;
    }
    const responseId = `slack_${account.slice(6)}_${str(action.action_ts) ?? ts}_${user.id}`;
    const outcome = await settle(handle.interactionId, responseId, user, { choiceId: handle.choiceId });
    if (outcome.kind !== "accepted" && outcome.kind !== "replayed")
      await ephemeral(channel, user.id, outcomeReply(outcome));
    after(outcome, handle.interactionId);
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
    const outcome = await settle(handle.interactionId, `slack_${account.slice(6)}_${str(view.id) ?? value}`, user, {
      text,
    });
    after(outcome, handle.interactionId);
    if (outcome.kind === "accepted" || outcome.kind === "replayed") return undefined;
    return refuse(outcomeReply(outcome));
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
    const outcome = await settle(
      message.interactionId,
      `slack_${account.slice(6)}_${str(body.ts)}`,
      { id: user },
      { text },
    );
    if (outcome.kind !== "accepted" && outcome.kind !== "replayed")
      await ephemeral(channel, user, outcomeReply(outcome));
    after(outcome, message.interactionId);
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
    const opened = await slackApi<{ url?: string }>(base, appToken, "apps.connections.open", {}, within());
    if (signal.aborted) return;
    if (!opened.ok) {
      // 429 honoured (up to MAX_SERVER_DELAY_MS), shown as retrying while it waits; the supervisor's backoff
      // comes on top of the requested wait.
      if (opened.retryAfterMs !== undefined) {
        context.report("retrying", opened.code);
        await context.sleep(cappedServerDelayMs(opened.retryAfterMs));
      }
      throw new SlackFailure(opened.code);
    }
    const target = socketUrl(str(opened.result.url) ?? "", base);
    if ("refused" in target) throw new SlackFailure(target.refused);
    const startedMs = performance.now();
    const reason = await connection(target.url, context, handle);
    if (signal.aborted) return;
    if (reason !== "disconnect") throw new SlackFailure(reason);
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
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    let chain = Promise.resolve();
    let ended = false;
    // A server that takes the connection and never says hello is a failure, not "connecting" for ever.
    const helloTimer = setTimeout(() => end("socket_timeout"), context.timings.requestTimeoutMs);
    const end = (reason: string) => {
      if (ended) return;
      ended = true;
      clearTimeout(helloTimer);
      context.signal.removeEventListener("abort", onAbort);
      try {
        socket.close();
      } catch {
        // already closed
      }
      resolve(reason);
    };
    const onAbort = () => end("aborted");
    context.signal.addEventListener("abort", onAbort, { once: true });
    socket.addEventListener("message", (message) => {
      let envelope: Envelope;
      try {
        envelope = JSON.parse(String(message.data)) as Envelope;
      } catch {
        return;
      }
      if (envelope.type === "hello") {
        clearTimeout(helloTimer);
        context.report("connected");
        return;
      }
      if (envelope.type === "disconnect") {
        chain = chain.then(() => end("disconnect"));
        return;
      }
      const id = str(envelope.envelope_id);
      chain = chain.then(async () => {
        let ackPayload: Record<string, unknown> | undefined;
        try {
          ackPayload = await handle(envelope);
        } catch {
          // A closed database during shutdown: no ack, Slack sends it again to the next connection.
          return;
        }
        if (id !== undefined && !ended) {
          socket.send(JSON.stringify(ackPayload ? { envelope_id: id, payload: ackPayload } : { envelope_id: id }));
        }
      });
    });
    socket.addEventListener("close", () => {
      chain = chain.then(() => end("socket_closed"));
    });
    socket.addEventListener("error", () => {
      chain = chain.then(() => end("socket_closed"));
    });
  });
}
