import { cappedServerDelayMs } from "@notify/contracts/retry";
import { readableText } from "../../outbox/providers/readable-text.js";
import { truncate } from "../../outbox/providers/text-limits.js";
import { outcomeLine, rememberName } from "../question-text.js";
import { outcomeReply, type SettleOutcome, settleFromChat } from "../settle.js";
import { secureSocketUrl } from "../socket-url.js";
import type { SurfaceLoopContext } from "../supervisor.js";
import { BOT_TOKEN, discordAccount, discordApi } from "./api.js";
import { discordText, NO_MENTIONS } from "./send.js";

/** Gateway opcodes (https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway). */
const OP = {
  dispatch: 0,
  heartbeat: 1,
  identify: 2,
  resume: 6,
  reconnect: 7,
  invalidSession: 9,
  hello: 10,
  heartbeatAck: 11,
} as const;

/** Interaction types and callback types (https://discord.com/developers/docs/interactions/receiving-and-responding). */
const COMPONENT = 3;
const MODAL_SUBMIT = 5;
const REPLY = 4;
const DEFERRED_UPDATE = 6;
const MODAL = 9;
const EPHEMERAL = 64;

/** Close codes after which the same identify can never work (bad token, shards, version, intents). */
const FATAL_CLOSE = new Set([4004, 4010, 4011, 4012, 4013, 4014]);

class DiscordFailure extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

interface Payload {
  op?: unknown;
  d?: unknown;
  s?: unknown;
  t?: unknown;
}

interface DiscordUser {
  id?: unknown;
}

/** A session the Gateway can resume: its id, where to resume it, the last event handled. */
interface Session {
  id: string;
  resumeUrl: string | undefined;
  seq: number | null;
}

const str = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The text a modal submit carries in its input `answer` (in an action row, or in a label component). */
function submitted(components: unknown): string | undefined {
  if (!Array.isArray(components)) return undefined;
  for (const entry of components) {
    const component = record(entry);
    if (component.custom_id === "answer" && typeof component.value === "string") return component.value;
    const inner = submitted(component.components) ?? submitted(component.component ? [component.component] : []);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/**
 * The Gateway connection of one `discord_app` provider (issue 34, item 2): `gatewayUrl`, or the URL `GET
 * /gateway/bot` names; on HELLO it heartbeats every `heartbeat_interval` and identifies (intents 0: interactions
 * need none), or resumes the session it had (its `resume_gateway_url`, last sequence). INTERACTION_CREATE events
 * are handled one at a time, in order: a tap on a choice answers (`source` = `discord`, response id from the
 * interaction, so a replayed event replays the answer), the "Answer…" button opens a modal, and the modal's
 * submit answers a text question. Only `allowedUserIds`, in `channelId`, on a message the broker sent, with a
 * button it made, may answer; anyone else is told so privately (an ephemeral reply).
 *
 * A connection that ends is reconnected with the shared backoff and resumed where it can be: no HELLO within
 * `requestTimeoutMs` (`gateway_timeout`), no heartbeat ACK before the next heartbeat (`gateway_stalled`: a zombie
 * connection), a dropped socket, an invalid session (identified anew). RECONNECT (op 7) resumes at once. A close
 * code that no retry can mend (4004 bad token, 4014 intents...) throws, and the supervisor backs off.
 */
export async function discordLoop(context: SurfaceLoopContext): Promise<void> {
  const { profile, signal, store } = context;
  const base = profile.settings.apiBaseUrl as string;
  const channelId = profile.settings.channelId as string;
  const allowed = new Set(profile.settings.allowedUserIds as string[]);
  let token: string;
  try {
    token = context.outbound.openSecrets(profile.id).botToken ?? "";
  } catch {
    throw new DiscordFailure("provider_secrets_unreadable");
  }
  if (!BOT_TOKEN.test(token)) throw new DiscordFailure("provider_secret_invalid");
  const account = discordAccount(token);
  const { requestTimeoutMs } = context.timings;
  const within = (...signals: AbortSignal[]) =>
    AbortSignal.any([signal, ...signals, AbortSignal.timeout(requestTimeoutMs)]);

  context.setEditor(account, async (row, interaction, editSignal) => {
    const line = outcomeLine(interaction, "discord");
    const body = discordText(row.body, Math.max(1, 2000 - line.length - 2));
    const reply = await discordApi(
      base,
      token,
      "PATCH",
      `channels/${row.conversation}/messages/${row.message}`,
      { content: `${body}\n\n${line}`, components: [], allowed_mentions: NO_MENTIONS },
      within(editSignal),
    );
    // Gone (10008 unknown message, 404): nothing more to edit. Anything else is tried again on the next rescan.
    return reply.ok || reply.status === 404 || reply.errorCode === 10008;
  });

  /** The interaction callback: one per interaction, within 3 s of it. */
  const respond = (interaction: Record<string, unknown>, response: Record<string, unknown>) =>
    discordApi(
      base,
      token,
      "POST",
      `interactions/${str(interaction.id)}/${str(interaction.token)}/callback`,
      response,
      within(),
    ).catch(() => undefined);
  const tell = (interaction: Record<string, unknown>, text: string) =>
    respond(interaction, {
      type: REPLY,
      data: { content: discordText(text), flags: EPHEMERAL, allowed_mentions: NO_MENTIONS },
    });

  const settle = (
    interactionId: string,
    responseId: string,
    userId: string,
    answer: { choiceId?: string; text?: string },
  ) => {
    rememberName(responseId, `<@${userId}>`);
    return settleFromChat(context.interactions, context.unit, interactionId, {
      responseId,
      source: "discord",
      deviceId: `discord:${userId}`,
      ...answer,
    });
  };
  const after = (outcome: SettleOutcome, interactionId: string) => {
    if (outcome.kind !== "refused") context.close(interactionId);
  };
  const accepted = (outcome: SettleOutcome) => outcome.kind === "accepted" || outcome.kind === "replayed";

  /** One INTERACTION_CREATE: a button (component) or the answer modal's submit. */
  const interact = async (interaction: Record<string, unknown>): Promise<void> => {
    if (!str(interaction.id) || !str(interaction.token)) return;
    const user = record(record(interaction.member).user ?? interaction.user) as DiscordUser;
    const userId = str(user.id);
    const channel = str(interaction.channel_id) ?? str(record(interaction.channel).id);
    const messageId = str(record(interaction.message).id);
    const data = record(interaction.data);
    const handleId = str(data.custom_id);
    if (interaction.type !== COMPONENT && interaction.type !== MODAL_SUBMIT) return;
    const message = channel === channelId && messageId ? store.message(account, channel, messageId) : undefined;
    if (!message) {
      context.logger.info(`chat: discord_app provider ${profile.name} refused a button outside its question messages`);
      await tell(interaction, "Not accepted: this message does not answer questions.");
      return;
    }
    if (!userId || !allowed.has(userId)) {
      context.logger.info(`chat: discord_app provider ${profile.name} refused a tap by user ${userId ?? "?"}`);
      await tell(interaction, "Not accepted: you are not allowed to answer.");
      return;
    }
    const handle = handleId ? store.handle(handleId) : undefined;
    if (!handle || handle.account !== account || handle.interactionId !== message.interactionId) {
      context.logger.info(`chat: discord_app provider ${profile.name} refused an unknown button`);
      await tell(interaction, "Not accepted: this button is not one the broker sent.");
      return;
    }
    const responseId = `discord_${account.slice("discord:".length)}_${str(interaction.id)}`;
    if (interaction.type === MODAL_SUBMIT) {
      const text = submitted(data.components);
      if (handle.choiceId !== undefined || text === undefined || text === "") {
        await tell(interaction, "Not accepted: an answer is required.");
        return;
      }
      const outcome = await settle(handle.interactionId, responseId, userId, { text });
      await tell(interaction, outcomeReply(outcome));
      after(outcome, handle.interactionId);
      return;
    }
    if (handle.choiceId === undefined) {
      // The text question's button: the modal, while the question is open.
      const question = context.interactions.find(handle.interactionId);
      if (question?.status !== "pending") {
        await tell(interaction, question?.status === "answered" ? "Already answered." : "This question is closed.");
        context.close(handle.interactionId);
        return;
      }
      await respond(interaction, {
        type: MODAL,
        data: {
          custom_id: handleId,
          title: "Answer",
          components: [
            {
              type: 1,
              components: [
                {
                  type: 4,
                  custom_id: "answer",
                  style: 2,
                  label: truncate(readableText(question.prompt), 45),
                  max_length: Math.min(4000, question.text_max_length),
                  required: true,
                },
              ],
            },
          ],
        },
      });
      return;
    }
    const outcome = await settle(handle.interactionId, responseId, userId, { choiceId: handle.choiceId });
    // Accepted: the message is edited to the outcome (the editor above); otherwise the tapper is told why.
    if (accepted(outcome)) await respond(interaction, { type: DEFERRED_UPDATE });
    else await tell(interaction, outcomeReply(outcome));
    after(outcome, handle.interactionId);
  };

  let session: Session | undefined;
  let failures = 0;
  /** Connections in a row ended by RECONNECT less than `maxBackoffMs` after they opened. */
  let quickReconnects = 0;
  while (!signal.aborted) {
    let url = session?.resumeUrl ?? (profile.settings.gatewayUrl as string | undefined);
    if (url === undefined) {
      const found = await discordApi<{ url?: unknown }>(base, token, "GET", "gateway/bot", undefined, within());
      if (signal.aborted) return;
      if (!found.ok) {
        if (found.status === 401 || found.status === 403) throw new DiscordFailure(found.code);
        failures++;
        context.report("retrying", found.code);
        await context.sleep(Math.max(context.backoff(failures), cappedServerDelayMs(found.retryAfterMs)));
        continue;
      }
      url = str(found.result?.url) ?? "";
    }
    const target = secureSocketUrl(url, base, "discord_bad_reply");
    if ("refused" in target) throw new DiscordFailure(target.refused);
    const gateway = new URL(target.url);
    gateway.searchParams.set("v", "10");
    gateway.searchParams.set("encoding", "json");
    const startedMs = performance.now();
    const end = await connection(gateway.toString(), context, token, session, {
      ready: (next) => {
        session = next;
      },
      // Only a connection whose heartbeat is acknowledged ends the backoff: one that resumes and then stalls
      // again and again waits longer each time.
      healthy: () => {
        failures = 0;
      },
      handled: (seq) => {
        if (session && seq !== undefined) session.seq = seq;
      },
      interact,
    });
    if (signal.aborted) return;
    if (end.forget) session = undefined;
    if (FATAL_CLOSE.has(end.closeCode ?? 0)) throw new DiscordFailure(end.reason);
    if (end.reason === "gateway_reconnect") {
      quickReconnects = performance.now() - startedMs < context.timings.maxBackoffMs ? quickReconnects + 1 : 0;
      if (quickReconnects <= 1) continue;
    }
    failures++;
    // A session that three reconnects in a row could not resume is given up: the next one identifies.
    if (failures >= 3) session = undefined;
    context.report("retrying", end.reason);
    await context.sleep(context.backoff(failures));
  }
}

interface Ending {
  /** `gateway_timeout`, `gateway_stalled`, `gateway_reconnect`, `gateway_invalid_session`, `gateway_closed_<code>`. */
  reason: string;
  closeCode?: number;
  /** The session cannot be resumed: identify anew next time. */
  forget: boolean;
}

interface Handlers {
  ready(session: Session): void;
  /** The first heartbeat ACK after READY or RESUMED. */
  healthy(): void;
  /** An event was handled: its sequence number is the one to resume after. */
  handled(seq: number | undefined): void;
  interact(interaction: Record<string, unknown>): Promise<void>;
}

/** One Gateway WebSocket session; resolves with why it ended. */
function connection(
  url: string,
  context: SurfaceLoopContext,
  token: string,
  session: Session | undefined,
  on: Handlers,
): Promise<Ending> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    let chain = Promise.resolve();
    let ended = false;
    let heartbeat: NodeJS.Timeout | undefined;
    let acked = true;
    let ready = false;
    let healthy = false;
    let seq: number | null = session?.seq ?? null;
    const helloTimer = setTimeout(
      () => end({ reason: "gateway_timeout", forget: false }),
      context.timings.requestTimeoutMs,
    );
    const send = (payload: Record<string, unknown>) => {
      if (!ended && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload));
    };
    const end = (ending: Ending) => {
      if (ended) return;
      ended = true;
      clearTimeout(helloTimer);
      clearTimeout(heartbeat);
      context.signal.removeEventListener("abort", onAbort);
      try {
        // Not 1000/1001: those end the session on Discord's side, and it is to be resumed.
        socket.close(ending.reason === "aborted" ? 1000 : 4000);
      } catch {
        // already closed
      }
      resolve(ending);
    };
    const onAbort = () => end({ reason: "aborted", forget: false });
    context.signal.addEventListener("abort", onAbort, { once: true });
    const beat = () => {
      if (!acked) {
        end({ reason: "gateway_stalled", forget: false });
        return;
      }
      acked = false;
      send({ op: OP.heartbeat, d: seq });
    };
    socket.addEventListener("message", (message) => {
      let payload: Payload;
      try {
        payload = JSON.parse(String(message.data)) as Payload;
      } catch {
        return;
      }
      switch (payload.op) {
        case OP.hello: {
          clearTimeout(helloTimer);
          const interval = Number(record(payload.d).heartbeat_interval);
          const every = Number.isFinite(interval) ? Math.min(Math.max(interval, 50), 300_000) : 41_250;
          // The first heartbeat after a random part of the interval (so reconnecting bots do not beat together).
          const first = setTimeout(() => {
            beat();
            heartbeat = setInterval(beat, every);
          }, every * Math.random());
          heartbeat = first;
          if (session) send({ op: OP.resume, d: { token, session_id: session.id, seq: session.seq } });
          else
            send({
              op: OP.identify,
              d: { token, intents: 0, properties: { os: process.platform, browser: "notify", device: "notify" } },
            });
          return;
        }
        case OP.heartbeatAck:
          acked = true;
          if (ready && !healthy) {
            healthy = true;
            on.healthy();
          }
          return;
        case OP.heartbeat:
          send({ op: OP.heartbeat, d: seq });
          return;
        case OP.reconnect:
          chain = chain.then(() => end({ reason: "gateway_reconnect", forget: false }));
          return;
        case OP.invalidSession:
          chain = chain.then(() => end({ reason: "gateway_invalid_session", forget: payload.d !== true }));
          return;
        case OP.dispatch:
          break;
        default:
          return;
      }
      const eventSeq = typeof payload.s === "number" && Number.isSafeInteger(payload.s) ? payload.s : undefined;
      const data = record(payload.d);
      chain = chain.then(async () => {
        if (ended) return;
        if (payload.t === "READY") {
          const id = str(data.session_id);
          if (id) on.ready({ id, resumeUrl: str(data.resume_gateway_url), seq: eventSeq ?? null });
          ready = true;
          context.report("connected");
        } else if (payload.t === "RESUMED") {
          on.ready(session as Session);
          ready = true;
          context.report("connected");
        } else if (payload.t === "INTERACTION_CREATE") {
          try {
            await on.interact(data);
          } catch {
            // A closed database during shutdown: the sequence stays, a resume replays the event.
            return;
          }
        }
        if (eventSeq !== undefined) {
          seq = eventSeq;
          on.handled(eventSeq);
        }
      });
    });
    socket.addEventListener("close", (event) => {
      const code = (event as CloseEvent).code;
      chain = chain.then(() =>
        end({
          reason: `gateway_closed_${code}`,
          closeCode: code,
          // An invalid sequence or a timed-out session cannot be resumed.
          forget: code === 4007 || code === 4009,
        }),
      );
    });
    socket.addEventListener("error", () => {
      chain = chain.then(() => end({ reason: "gateway_closed", forget: false }));
    });
  });
}
