import { createHash } from "node:crypto";
import type { Envelope, EnvelopeRecipient } from "@notify/contracts/relay-envelope";
import {
  interactionRequestPayload,
  type NotificationPayload,
  type RelayPayload,
} from "@notify/contracts/relay-payloads";
import { RELAY_CONTRACT_VERSION } from "@notify/contracts/relay-version";
import type { SessionsPayload } from "@notify/contracts/sessions";
import type { InteractionDto } from "../interactions/types.js";
import { resultForStatus } from "../outbox/providers/http.js";
import { httpUrl, onlyFields, optionalString, requiredString, settingsObject } from "../outbox/providers/settings.js";
import type { DeliveryContext, DeliveryResult, OutboundPayload, ProviderAdapter } from "../outbox/types.js";
import { deviceKeys, forgetDevices } from "./device-keys.js";
import { machineName } from "./machine.js";
import { relayRequest, relayUrl } from "./relay-http.js";

/** The settings of a relay provider: the relay's URL and the installation this broker enrolled as. */
export interface RelaySettings {
  url: string;
  installationId: string;
}

export function relaySettings(settings: Record<string, unknown>): RelaySettings {
  return { url: settings.url as string, installationId: settings.installationId as string };
}

/**
 * The companion notification of a relay route (docs/relay.md, "The question payload": anything not
 * `interaction-request` is a notification).
 */
export function notificationPayload(payload: OutboundPayload): NotificationPayload {
  const notification: NotificationPayload["notification"] = {
    id: payload.id,
    title: payload.title,
    type: payload.type,
    priority: payload.priority,
    agent: payload.agent,
    created_at: payload.createdAt,
  };
  if (payload.message !== undefined) notification.message = payload.message;
  if (payload.project !== undefined) notification.project = payload.project;
  if (payload.key !== undefined) notification.key = payload.key;
  // The companion notification of a question names it, so a phone shows the question once (its card), not twice.
  if (payload.interaction !== undefined) notification.interaction_id = payload.interaction.id;
  return { payload_kind: "notification", contract_version: RELAY_CONTRACT_VERSION, notification };
}

/** The notice that a question is closed: what phones need to close its card, nothing that answers it. */
export function closedNotice(interaction: InteractionDto): NotificationPayload {
  const notification: NotificationPayload["notification"] = {
    id: interaction.id,
    title: interaction.status === "answered" ? "Answered elsewhere" : `Question ${interaction.status}`,
    type: "info",
    priority: "low",
    agent: interaction.agent,
    created_at: interaction.updated_at,
    interaction_id: interaction.id,
    interaction_status: interaction.status,
  };
  if (interaction.project !== undefined) notification.project = interaction.project;
  return { payload_kind: "notification", contract_version: RELAY_CONTRACT_VERSION, notification };
}

/**
 * Envelopes sealed for a POST whose outcome is not known yet (no reply, or a 5xx), by relay, installation and
 * idempotency key: a retry sends the same bytes, so a relay that stored the first gives back its `envelope_id`.
 * Sealing is randomized (a fresh content key and ephemeral key each time); a re-sealed retry, after a broker
 * restart, is answered 409 `conflict` instead, which means the same: the envelope is stored.
 */
const sealed = new Map<string, { plaintext: string; envelope: Envelope }>();
const MAX_SEALED = 256;

/**
 * An envelope's `Idempotency-Key` (docs/relay.md, POST /v1/envelopes): the outbox item's key, stable across its
 * retries, and the devices it is sealed for. A retry to the same devices is the same envelope to the relay; one to
 * a changed list (a phone paired or revoked meanwhile) is a new envelope, so the new phone gets the question too.
 */
export function envelopeIdempotencyKey(itemKey: string, devices: readonly EnvelopeRecipient[]): string {
  const ids = devices.map((device) => device.device_id).sort();
  return `${itemKey}.${createHash("sha256").update(ids.join("\n")).digest("base64url").slice(0, 22)}`;
}

/**
 * Seals `payload` for every device of the installation and posts it to `/v1/envelopes` with an idempotency key, so
 * a retry after a lost reply stores nothing twice. No device is a retryable `relay_no_devices` (a phone paired
 * within the retry window still gets the question; `publish` revives the dead letter later). A 400 from the relay
 * means a recipient was revoked meanwhile: the device list is read again on the retry.
 */
export async function post(
  payload: RelayPayload | SessionsPayload,
  settings: Record<string, unknown>,
  secrets: Record<string, string>,
  context: DeliveryContext,
): Promise<DeliveryResult> {
  const relay = relaySettings(settings);
  const token = secrets.installationToken as string;
  const devices = await deviceKeys(relay.url, relay.installationId, token, context.signal);
  if (!devices.ok) {
    if (devices.status !== undefined) return resultForStatus(devices.status, devices.headers ?? {});
    return { ok: false, retryable: true, code: devices.code };
  }
  if (devices.devices.length === 0) return { ok: false, retryable: true, code: "relay_no_devices" };
  const idempotencyKey = envelopeIdempotencyKey(context.idempotencyKey, devices.devices);
  const cacheKey = `${relay.url}\n${relay.installationId}\n${idempotencyKey}`;
  const plaintext = JSON.stringify(payload);
  const kept = sealed.get(cacheKey);
  let envelope = kept?.plaintext === plaintext ? kept.envelope : undefined;
  if (!envelope) {
    try {
      // jose (about 50 modules) loads with the first envelope sealed, not at start: most brokers have no relay.
      const { sealEnvelope } = await import("@notify/contracts/relay-envelope");
      envelope = await sealEnvelope(relay.installationId, payload, devices.devices);
    } catch {
      forgetDevices(relay.url, relay.installationId);
      return { ok: false, retryable: true, code: "relay_seal_failed" };
    }
  }
  const reply = await relayRequest({
    url: relayUrl(relay.url, "/v1/envelopes"),
    method: "POST",
    token,
    body: envelope,
    // A sessions summary asks nothing of the person: stored for the phone, but no push wakes it (docs/relay.md).
    headers: {
      "idempotency-key": idempotencyKey,
      ...(payload.payload_kind === "sessions" ? { "notify-push": "none" } : {}),
    },
    signal: context.signal,
  });
  sealed.delete(cacheKey);
  if (!reply.ok && (reply.status === undefined || reply.status >= 500)) {
    // Maybe stored, maybe not: the retry sends these very bytes.
    sealed.set(cacheKey, { plaintext, envelope });
    if (sealed.size > MAX_SEALED) sealed.delete(sealed.keys().next().value as string);
  }
  if (reply.ok) return { ok: true, status: reply.status };
  if (reply.status === undefined) return { ok: false, retryable: true, code: reply.code };
  // The key is taken by another sealing of this item for these devices: that envelope is stored.
  if (reply.status === 409 && reply.relayError === "conflict") return { ok: true, status: 409 };
  if (reply.status === 400) {
    forgetDevices(relay.url, relay.installationId);
    return { ok: false, retryable: true, code: "http_400", status: 400 };
  }
  return resultForStatus(reply.status, reply.headers ?? {});
}

/**
 * The `relay` provider kind (issue 14, docs/relay.md "The broker side"): notifications go as sealed notification
 * payloads, questions as sealed interaction-request payloads, each envelope to every paired device. The
 * installation token is a secret, sealed at rest like every provider secret.
 */
export const relayAdapter: ProviderAdapter = {
  kind: "relay",
  secrets: { required: ["installationToken"], optional: [] },
  parseSettings(raw) {
    const settings = settingsObject(raw, "relay");
    onlyFields(settings, ["url", "installationId", "machine"], "relay");
    // `machine`: the name on the phone's cards, when chosen (`notify relay enroll|join --machine`; machine.ts).
    const machine = optionalString(settings.machine, "machine", 100);
    return {
      url: httpUrl(settings.url, "url").replace(/\/+$/, ""),
      installationId: requiredString(settings.installationId, "installationId", 128),
      ...(machine ? { machine } : {}),
    };
  },
  send(payload, settings, secrets, context) {
    return post(notificationPayload(payload), settings, secrets, context);
  },
  async sendInteraction(interaction, settings, secrets, context) {
    // Pending: the question itself. Closed (answered, cancelled, expired, superseded): beyond v1, a notification
    // payload naming it and its status, so a phone closes its card ("answered elsewhere") instead of offering a
    // tap that would be refused. No digest, no nonce.
    if (interaction.status === "pending") {
      return post(
        interactionRequestPayload(interaction, interaction.context, machineName(settings.machine)),
        settings,
        secrets,
        context,
      );
    }
    return post(closedNotice(interaction), settings, secrets, context);
  },
  warmUp() {
    // The seal's jose (post() imports it on the first envelope): loaded while a question waits, not when it goes.
    void import("@notify/contracts/relay-envelope").catch(() => undefined);
  },
};
