import * as z from "zod";

/**
 * The relay's HTTP bodies beyond the answer body and the question payload (docs/relay.md, "Routes"): what the
 * broker's relay client and the phone read and send. `notify-relay`'s route tests parse every reply with these.
 */

/** Opaque feed cursor: passed back verbatim as `since`. */
const Cursor = z.string().min(1);
const Timestamp = z.iso.datetime({ offset: true });

/** An X25519 public key as a JWK (the phone's envelope key). */
export const RelayPublicJwk = z.object({ kty: z.literal("OKP"), crv: z.literal("X25519"), x: z.string().min(1) });

/** A browser PushSubscription.toJSON(). */
export const RelayPushSubscription = z.object({
  endpoint: z.url(),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: z.string().min(1), auth: z.string().min(1) }),
});

/** POST /v1/installations -> 201. */
export const RelayEnrollment = z.object({ installation_id: z.string(), token: z.string(), owner_id: z.string() });

/** POST /v1/pairings -> 201. `link` is `{RELAY_PUBLIC_URL}/app/#pair=<code>`. */
export const RelayPairing = z.object({ code: z.string(), link: z.string(), expires_at: Timestamp });

/** POST /v1/pairings/claim body. */
export const RelayClaimRequest = z.object({
  code: z.string().min(1),
  device_name: z.string().min(1).max(100),
  public_key: RelayPublicJwk,
  push_subscription: RelayPushSubscription.nullable().optional(),
});

/** POST /v1/pairings/claim -> 201. */
export const RelayClaim = z.object({ device_id: z.string(), token: z.string(), owner_id: z.string() });

/**
 * GET /v1/device. `installation_id` is null for a normally paired phone
 * (docs/relay.md, "`GET /v1/device` (device token)").
 */
export const RelayDeviceInfo = z.object({
  device_id: z.string(),
  device_name: z.string(),
  owner_id: z.string().nullable(),
  installation_id: z.string().nullable(),
});

/** GET /v1/devices. */
export const RelayDeviceList = z.object({
  devices: z.array(z.object({ device_id: z.string(), device_name: z.string(), public_key: RelayPublicJwk })),
});

/** The envelope: a JWE in General JSON Serialization, one recipient per device (`kid` = device_id). */
export const RelayEnvelope = z.object({
  envelope_version: z.literal("1"),
  sender_id: z.string().min(1),
  jwe: z.looseObject({
    protected: z.string(),
    recipients: z.array(z.looseObject({ header: z.looseObject({ kid: z.string() }), encrypted_key: z.string() })),
    iv: z.string(),
    ciphertext: z.string(),
    tag: z.string(),
  }),
});

/** POST /v1/envelopes -> 201. */
export const RelayEnvelopeCreated = z.object({ envelope_id: z.string() });

/** GET /v1/envelopes. */
export const RelayEnvelopePage = z.object({
  envelopes: z.array(z.object({ envelope_id: z.string(), envelope: RelayEnvelope, created_at: Timestamp })),
  next_cursor: Cursor,
});

/** The Web Push plaintext: content-free, exactly these two fields. */
export const RelayPushPayload = z.strictObject({ envelope_id: z.string(), version: z.string() });

/** POST /v1/interaction-responses -> 201 accepted or 409 duplicate (both mean "recorded"). */
export const RelayAnswerRecorded = z.object({
  status: z.enum(["accepted", "duplicate"]),
  response_id: z.string(),
});

/** One element of GET /v1/interaction-responses: the stored answer body plus `received_at`. */
export const RelayStoredAnswer = z.object({
  contract_version: z.string(),
  response_id: z.string(),
  interaction_id: z.string(),
  request_digest: z.string(),
  nonce: z.string(),
  choice_id: z.string().optional(),
  text: z.string().optional(),
  installation_id: z.string(),
  device_id: z.string(),
  received_at: Timestamp,
});

/** GET /v1/interaction-responses -> 200. */
export const RelayAnswerPage = z.object({ responses: z.array(RelayStoredAnswer), next_cursor: Cursor });

/** Error bodies: a string on the GET feeds (docs/relay.md, "Errors"), an object elsewhere. */
export const RelayFeedErrorBody = z.object({ error: z.string() });
export const RelayErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string().optional() }) });

export type RelayEnrollment = z.infer<typeof RelayEnrollment>;
export type RelayPairing = z.infer<typeof RelayPairing>;
export type RelayClaimRequest = z.infer<typeof RelayClaimRequest>;
export type RelayClaim = z.infer<typeof RelayClaim>;
export type RelayDeviceInfo = z.infer<typeof RelayDeviceInfo>;
export type RelayDeviceList = z.infer<typeof RelayDeviceList>;
export type RelayEnvelope = z.infer<typeof RelayEnvelope>;
export type RelayEnvelopePage = z.infer<typeof RelayEnvelopePage>;
export type RelayPushPayload = z.infer<typeof RelayPushPayload>;
export type RelayAnswerRecorded = z.infer<typeof RelayAnswerRecorded>;
export type RelayStoredAnswer = z.infer<typeof RelayStoredAnswer>;
export type RelayAnswerPage = z.infer<typeof RelayAnswerPage>;
