import type { InteractionDto } from "../interactions/types.js";
import type { HandleRow, MessageRow } from "../store/chat-store.js";
import { rememberName } from "./question-text.js";
import { type ChatAnswer, outcomeReply, type SettleOutcome, settleFromChat } from "./settle.js";
import type { SurfaceLoopContext } from "./supervisor.js";
import { wordsOf } from "./surface.js";

/**
 * What the chat apps' answer loops (telegram/, slack/, discord/ `loop.ts`) share: how they fail, read their
 * secrets, vet a tap and settle an answer.
 */

/** What stops a chat loop: its code is what the listings show (`retrying (code)`), never a secret. */
export class SurfaceFailure extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/** The provider's secrets; unreadable ones fail the loop (`provider_secrets_unreadable`), which is retried. */
export function loopSecrets(context: SurfaceLoopContext): Record<string, string> {
  try {
    return context.outbound.openSecrets(context.profile.id);
  } catch {
    throw new SurfaceFailure("provider_secrets_unreadable");
  }
}

/** Whether the person's answer counts: accepted now, or the replay of their own earlier one. */
export function isAccepted(outcome: SettleOutcome): boolean {
  return outcome.kind === "accepted" || outcome.kind === "replayed";
}

/** A `tell` for answerFromChat: the person hears why an answer did not count (one that counts shows on the message). */
export function unlessAccepted(tell: (text: string) => Promise<unknown>): (outcome: SettleOutcome) => Promise<void> {
  return async (outcome) => {
    if (!isAccepted(outcome)) await tell(outcomeReply(outcome));
  };
}

/** An answer a person gave in this loop's chat app. */
export interface ChatReply {
  /** Derived from the update, so a replayed update replays the answer (settle.ts). */
  responseId: string;
  /** The chat app's user id: the device is `<source>:<user id>`. */
  userId: string;
  /** How the outcome line names the person, escaped for the app's markup (rememberName). */
  name: string;
  choiceId?: string;
  text?: string;
}

/**
 * Settles `reply` through the one answer path (settleFromChat) with the surface's `source` word; `tell` then
 * shows the person the outcome, and, unless it was refused, the question's messages on every surface are edited
 * to it (the supervisor's close).
 */
export async function answerFromChat(
  context: SurfaceLoopContext,
  interactionId: string,
  reply: ChatReply,
  tell?: (outcome: SettleOutcome) => Promise<unknown>,
): Promise<SettleOutcome> {
  const { responseId, userId, name, choiceId, text } = reply;
  const source = wordsOf(context.profile.kind).source;
  rememberName(responseId, name);
  const settled: ChatAnswer = {
    response_id: responseId,
    source,
    device_id: `${source}:${userId}`,
    ...(choiceId === undefined ? {} : { choice_id: choiceId }),
    ...(text === undefined ? {} : { text }),
  };
  const outcome = await settleFromChat(context.interactions, context.unit, interactionId, settled);
  await tell?.(outcome);
  if (outcome.kind !== "refused") context.close(interactionId);
  return outcome;
}

/** A tap on a button (or the submit of a form a button opened), as the chat app reported it. */
export interface Tap {
  /** The posting account (`slack:…`, `discord:…`). */
  account: string;
  allowed: ReadonlySet<string>;
  /** The question message tapped on, if this account posted it where the loop listens. */
  message: MessageRow | undefined;
  userId: string | undefined;
  /** The button's handle, looked up. */
  handle: HandleRow | undefined;
}

/**
 * Whether a tap may answer: on a question message the broker posted, by one of `allowed`, on a button the broker
 * made for that question. A refusal is logged (`chat: <app> provider <name> refused …`, no text of the person's)
 * and worded for the person.
 */
export function vetTap(
  context: SurfaceLoopContext,
  app: string,
  tap: Tap,
): { refused: string } | { message: MessageRow; handle: HandleRow; userId: string } {
  const { message, userId, handle } = tap;
  const refuse = (what: string, reply: string) => {
    context.logger.info(`chat: ${app} provider ${context.profile.name} refused ${what}`);
    return { refused: `Not accepted: ${reply}` };
  };
  if (!message) return refuse("a button outside its question messages", "this message does not answer questions.");
  if (!userId || !tap.allowed.has(userId)) {
    return refuse(`a tap by user ${userId ?? "?"}`, "you are not allowed to answer.");
  }
  if (!handle || handle.account !== tap.account || handle.interactionId !== message.interactionId) {
    return refuse("an unknown button", "this button is not one the broker sent.");
  }
  return { message, handle, userId };
}

/**
 * The question a text question's button opens the answer form for, while it is pending. Otherwise the person is
 * told it is answered or closed (`tell`) and its messages are edited to the outcome.
 */
export async function pendingQuestion(
  context: SurfaceLoopContext,
  interactionId: string,
  tell: (text: string) => Promise<unknown>,
): Promise<InteractionDto | undefined> {
  const question = context.interactions.find(interactionId);
  if (question?.status === "pending") return question;
  await tell(question?.status === "answered" ? "Already answered." : "This question is closed.");
  context.close(interactionId);
  return undefined;
}
