import { cappedServerDelayMs } from "@notify/contracts/retry";
import { readableText } from "../../outbox/providers/readable-text.js";
import { truncate } from "../../outbox/providers/text-limits.js";
import { answerFromChat, isAccepted, loopSecrets, pendingQuestion, SurfaceFailure, vetTap } from "../chat-loop.js";
import { outcomeLine } from "../question-text.js";
import { outcomeReply } from "../settle.js";
import { socketSession } from "../socket-session.js";
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

interface Payload {
  op?: unknown;
  d?: unknown;
  s?: unknown;
  t?: unknown;
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
  const token = loopSecrets(context).botToken ?? "";
  if (!BOT_TOKEN.test(token)) throw new SurfaceFailure("provider_secret_invalid");
  const account = discordAccount(token);

  context.setEditor(account, async (row, interaction, editSignal) => {
    const line = outcomeLine(interaction, "discord");
    const body = discordText(row.body, Math.max(1, 2000 - line.length - 2));
    const reply = await discordApi(
      base,
      token,
      "PATCH",
      `channels/${row.conversation}/messages/${row.message}`,
      { content: `${body}\n\n${line}`, components: [], allowed_mentions: NO_MENTIONS },
      context.within(editSignal),
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
      context.within(),
    ).catch(() => undefined);

  /** One INTERACTION_CREATE: a button (component) or the answer modal's submit. */
  const interact = async (interaction: Record<string, unknown>): Promise<void> => {
    if (!str(interaction.id) || !str(interaction.token)) return;
    const channel = str(interaction.channel_id) ?? str(record(interaction.channel).id);
    const messageId = str(record(interaction.message).id);
    const data = record(interaction.data);
    const handleId = str(data.custom_id);
    if (interaction.type !== COMPONENT && interaction.type !== MODAL_SUBMIT) return;
    const tap = vetTap(context, "discord_app", {
      account,
      allowed,
      message: channel === channelId && messageId ? store.message(account, channel, messageId) : undefined,
      userId: str(record(record(interaction.member).user ?? interaction.user).id),
      handle: handleId ? store.handle(handleId) : undefined,
    });
    /** A reply only the person sees. */
    const tell = (text: string) =>
      respond(interaction, {
        type: REPLY,
        data: { content: discordText(text), flags: EPHEMERAL, allowed_mentions: NO_MENTIONS },
      });
    if ("refused" in tap) {
      await tell(tap.refused);
      return;
    }
    const { handle, userId } = tap;
    // The outcome line names the person by a `<@…>` mention (which pings no one: NO_MENTIONS).
    const reply = {
      responseId: `discord_${account.slice("discord:".length)}_${str(interaction.id)}`,
      userId,
      name: `<@${userId}>`,
    };
    if (interaction.type === MODAL_SUBMIT) {
      const text = submitted(data.components);
      if (handle.choiceId !== undefined || text === undefined || text === "") {
        await tell("Not accepted: an answer is required.");
        return;
      }
      await answerFromChat(context, handle.interactionId, { ...reply, text }, (outcome) => tell(outcomeReply(outcome)));
      return;
    }
    if (handle.choiceId === undefined) {
      // The text question's button: the modal, while the question is open.
      const question = await pendingQuestion(context, handle.interactionId, tell);
      if (!question) return;
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
    // Accepted: the message is edited to the outcome (the editor above); otherwise the tapper is told why.
    await answerFromChat(context, handle.interactionId, { ...reply, choiceId: handle.choiceId }, (outcome) =>
      isAccepted(outcome) ? respond(interaction, { type: DEFERRED_UPDATE }) : tell(outcomeReply(outcome)),
    );
  };

  let session: Session | undefined;
  let failures = 0;
  /** Connections in a row ended by RECONNECT less than `maxBackoffMs` after they opened. */
  let quickReconnects = 0;
  while (!signal.aborted) {
    let url = session?.resumeUrl ?? (profile.settings.gatewayUrl as string | undefined);
    if (url === undefined) {
      const found = await discordApi<{ url?: unknown }>(base, token, "GET", "gateway/bot", undefined, context.within());
      if (signal.aborted) return;
      if (!found.ok) {
        if (found.status === 401 || found.status === 403) throw new SurfaceFailure(found.code);
        failures++;
        context.report("retrying", found.code);
        await context.sleep(Math.max(context.backoff(failures), cappedServerDelayMs(found.retryAfterMs)));
        continue;
      }
      url = str(found.result?.url) ?? "";
    }
    const target = secureSocketUrl(url, base, "discord_bad_reply");
    if ("refused" in target) throw new SurfaceFailure(target.refused);
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
    if (FATAL_CLOSE.has(end.closeCode ?? 0)) throw new SurfaceFailure(end.reason);
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
  let heartbeat: NodeJS.Timeout | undefined;
  let acked = true;
  let ready = false;
  let healthy = false;
  let seq: number | null = session?.seq ?? null;
  return socketSession<Ending>(url, context, (socket) => {
    const beat = () => {
      if (!acked) {
        socket.end({ reason: "gateway_stalled", forget: false });
        return;
      }
      acked = false;
      socket.send({ op: OP.heartbeat, d: seq });
    };
    return {
      timedOut: { reason: "gateway_timeout", forget: false },
      aborted: { reason: "aborted", forget: false },
      closed: (code) =>
        code === undefined
          ? { reason: "gateway_closed", forget: false }
          : // An invalid sequence or a timed-out session cannot be resumed.
            { reason: `gateway_closed_${code}`, closeCode: code, forget: code === 4007 || code === 4009 },
      // Not 1000/1001 but to stop: those end the session on Discord's side, and it is to be resumed.
      closeCode: (ending) => (ending.reason === "aborted" ? 1000 : 4000),
      stop: () => clearTimeout(heartbeat),
      message(received) {
        const payload = received as Payload;
        switch (payload.op) {
          case OP.hello: {
            socket.greeted();
            const interval = Number(record(payload.d).heartbeat_interval);
            const every = Number.isFinite(interval) ? Math.min(Math.max(interval, 50), 300_000) : 41_250;
            // The first heartbeat after a random part of the interval (so reconnecting bots do not beat together).
            heartbeat = setTimeout(() => {
              beat();
              heartbeat = setInterval(beat, every);
            }, every * Math.random());
            if (session) socket.send({ op: OP.resume, d: { token, session_id: session.id, seq: session.seq } });
            else
              socket.send({
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
            socket.send({ op: OP.heartbeat, d: seq });
            return;
          case OP.reconnect:
            socket.queue(() => socket.end({ reason: "gateway_reconnect", forget: false }));
            return;
          case OP.invalidSession:
            socket.queue(() => socket.end({ reason: "gateway_invalid_session", forget: payload.d !== true }));
            return;
          case OP.dispatch:
            break;
          default:
            return;
        }
        const eventSeq = typeof payload.s === "number" && Number.isSafeInteger(payload.s) ? payload.s : undefined;
        const data = record(payload.d);
        socket.queue(async () => {
          if (socket.ended) return;
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
      },
    };
  });
}
