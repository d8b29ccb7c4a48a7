import { type Envelope, openEnvelope } from "@notify/contracts/relay-envelope";
import type { InteractionRequestPayload, NotificationPayload } from "@notify/contracts/relay-payloads";
import { RELAY_CONTRACT_VERSION } from "@notify/contracts/relay-version";
import { asSessionsPayload, type SessionsPayload } from "@notify/contracts/sessions";
import { logLocally } from "./storage.js";

/** How a card ended, as far as the phone knows (Phone behaviour 4). */
export type CardState =
  | { kind: "open" }
  | { kind: "sending" }
  | { kind: "recorded"; answer: string }
  /** Closed by someone or something else: `status` from the relay's closed notice (answered when unknown). */
  | { kind: "elsewhere"; status?: string }
  | { kind: "refused"; status: number };

export interface QuestionCard {
  envelopeId: string;
  /** The envelope's outer sender_id: where the answer goes (its installation_id). Null disables the card. */
  senderId: string | null;
  question: InteractionRequestPayload["interaction"];
  state: CardState;
  /** When this phone opened the envelope (ms): a form's field card waits a moment for its form (form-groups.ts). */
  receivedAt?: number;
}

export interface NoticeCard {
  envelopeId: string;
  senderId: string | null;
  notification: NotificationPayload["notification"];
}

/** A machine's sessions summary (issue 37, item 1): the phone keeps the newest per sender (installation). */
export interface SessionsCard {
  envelopeId: string;
  senderId: string | null;
  summary: SessionsPayload;
}

export type Opened = { question: QuestionCard } | { notice: NoticeCard } | { sessions: SessionsCard } | null;

/**
 * Decrypts one envelope with this device's key and sorts it: an interaction-request of contract version 1 is a
 * question card; any other version renders nothing and is logged here (Phone behaviour 5); a `sessions` payload is
 * a machine's sessions summary; anything else is a notification payload.
 */
export async function openCard(
  envelopeId: string,
  envelope: Envelope,
  deviceId: string,
  privateKey: CryptoKey,
): Promise<Opened> {
  let payload: { payload_kind?: unknown; contract_version?: unknown };
  try {
    payload = (await openEnvelope(envelope, deviceId, privateKey)) as typeof payload;
  } catch {
    await logLocally(`envelope ${envelopeId} could not be decrypted`);
    return null;
  }
  const senderId = typeof envelope.sender_id === "string" && envelope.sender_id !== "" ? envelope.sender_id : null;
  if (payload.contract_version !== RELAY_CONTRACT_VERSION) {
    await logLocally(`envelope ${envelopeId}: unknown contract_version ${String(payload.contract_version)}`);
    return null;
  }
  if (payload.payload_kind === "interaction-request") {
    const question = (payload as InteractionRequestPayload).interaction;
    return { question: { envelopeId, senderId, question, state: { kind: "open" }, receivedAt: Date.now() } };
  }
  if (payload.payload_kind === "sessions") {
    const summary = asSessionsPayload(payload);
    return summary === undefined ? null : { sessions: { envelopeId, senderId, summary } };
  }
  const notification = (payload as NotificationPayload).notification;
  if (!notification || typeof notification.title !== "string") return null;
  return { notice: { envelopeId, senderId, notification } };
}

/** Phone behaviour 6: the inbox groups by (sender_id, normalized project), with an explicit no-project group. */
export function groupKey(card: { senderId: string | null; project: string | null | undefined }): string {
  const project = card.project?.trim().toLowerCase() ?? "";
  return `${card.senderId ?? ""}\n${project}`;
}
