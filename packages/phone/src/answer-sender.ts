import type { RelayAnswer } from "@notify/contracts/relay-schemas";
import { RELAY_CONTRACT_VERSION } from "@notify/contracts/relay-version";
import { backoffMs, delay } from "@notify/contracts/retry";
import type { CardState, QuestionCard } from "./cards.js";
import { postAnswer } from "./relay-client.js";
import { get, type Pairing, put } from "./storage.js";

/** Between two sends of an answer the relay did not take: 0.5 s, doubling, at most 8 s, with jitter. */
const RESEND_BACKOFF = { baseMs: 500, maxMs: 8_000 };

/** Answer bodies stored before their first POST, by interaction id (Phone behaviour 3). */
type Outbox = Record<string, { body: string; expiresAt: string; label: string }>;

export const isExpired = (card: QuestionCard, nowMs = Date.now()): boolean =>
  Date.parse(card.question.expires_at) <= nowMs;

async function setOutbox(change: (outbox: Outbox) => void): Promise<void> {
  const outbox = (await get<Outbox>("outbox")) ?? {};
  change(outbox);
  await put("outbox", outbox);
}

export type SendOutcome = CardState | { kind: "unpaired" };

/**
 * One tap: the body is made once, with a fresh response_id, and stored before the first POST. An ambiguous
 * failure (network, 429, 5xx) retries that exact body, never after expiry. 201 or 409-duplicate: recorded.
 * Another 409: answered elsewhere. 401: the pairing is wiped. 403 keeps it (Phone behaviour 3 and 4).
 */
export async function sendAnswer(
  card: QuestionCard,
  pairing: Pairing,
  answer: { choice_id: string; label: string } | { text: string; label?: string },
): Promise<SendOutcome> {
  if (isExpired(card) || card.senderId === null) return { kind: "open" };
  const fields = "choice_id" in answer ? { choice_id: answer.choice_id } : { text: answer.text };
  const body = JSON.stringify({
    contract_version: RELAY_CONTRACT_VERSION,
    response_id: crypto.randomUUID(),
    interaction_id: card.question.id,
    request_digest: card.question.request_digest,
    nonce: card.question.nonce,
    ...fields,
    installation_id: card.senderId,
    device_id: pairing.deviceId,
  } satisfies RelayAnswer);
  // What the card says was sent: a choice's label, the text, or what a typed value reads as (a list's option).
  const label = "choice_id" in answer ? answer.label : (answer.label ?? answer.text);
  await setOutbox((outbox) => {
    outbox[card.question.id] = { body, expiresAt: card.question.expires_at, label };
  });
  return deliver(card.question.id, body, card.question.expires_at, label, pairing);
}

/** Sends a stored body until it is decided; also resumes bodies left by a closed page. */
export async function deliver(
  interactionId: string,
  body: string,
  expiresAt: string,
  label: string,
  pairing: Pairing,
): Promise<SendOutcome> {
  for (let attempt = 0; ; attempt++) {
    if (Date.parse(expiresAt) <= Date.now()) {
      await setOutbox((outbox) => delete outbox[interactionId]);
      return { kind: "open" };
    }
    let status = 0;
    let reply: unknown = null;
    try {
      ({ status, body: reply } = await postAnswer(pairing.token, body));
    } catch {
      status = 0;
    }
    if (status === 201 || (status === 409 && (reply as { status?: unknown })?.status === "duplicate")) {
      await setOutbox((outbox) => delete outbox[interactionId]);
      return { kind: "recorded", answer: label };
    }
    if (status === 401) return { kind: "unpaired" };
    if (status === 409) {
      await setOutbox((outbox) => delete outbox[interactionId]);
      return { kind: "elsewhere" };
    }
    if (status !== 0 && status !== 429 && status < 500) {
      await setOutbox((outbox) => delete outbox[interactionId]);
      return { kind: "refused", status };
    }
    await delay(backoffMs(attempt + 1, RESEND_BACKOFF));
  }
}

/** Bodies stored by an earlier page that never heard back: sent again, the same bytes. */
export async function pendingBodies(): Promise<Outbox> {
  return (await get<Outbox>("outbox")) ?? {};
}
