import { GeneralEncrypt, type GeneralJWE, generalDecrypt, importJWK, type JWK } from "jose";
import { RELAY_CONTRACT_VERSION } from "./version.js";

/**
 * The relay envelope (docs/relay.md, "Model"): `{envelope_version: "1", sender_id, jwe}`, the JWE in General JSON
 * Serialization with one recipient per device (`kid` = device_id, `ECDH-ES+A256KW` on the device's X25519 key)
 * and the content encrypted once with `A256GCM`. The relay reads only the outer shape and the kids.
 */
export const ENVELOPE_VERSION = "1";
export const KEY_ALGORITHM = "ECDH-ES+A256KW";
export const CONTENT_ENCRYPTION = "A256GCM";

/** What generalDecrypt takes: a CryptoKey (phone), a KeyObject or a key imported from a JWK (tests). */
type DecryptKey = Parameters<typeof generalDecrypt>[1];

export interface Envelope {
  envelope_version: typeof ENVELOPE_VERSION;
  sender_id: string;
  jwe: GeneralJWE;
}

/** A recipient as `GET /v1/devices` lists it: the public key is an X25519 JWK. */
export interface EnvelopeRecipient {
  device_id: string;
  public_key: JWK;
}

/** Seals `payload` (JSON) for every recipient; the plaintext is the payload's JSON text, nothing else. */
export async function sealEnvelope(
  senderId: string,
  payload: unknown,
  recipients: readonly EnvelopeRecipient[],
): Promise<Envelope> {
  if (recipients.length === 0) throw new Error("an envelope needs at least one recipient");
  const encrypt = new GeneralEncrypt(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({
    enc: CONTENT_ENCRYPTION,
  });
  for (const recipient of recipients) {
    // Only the public members: a JWK that also carried `d` must never make this seal with a private key.
    const { kty, crv, x } = recipient.public_key;
    if (kty !== "OKP" || crv !== "X25519" || typeof x !== "string") throw new Error("not an X25519 public key");
    const key = await importJWK({ kty, crv, x }, KEY_ALGORITHM);
    encrypt.addRecipient(key).setUnprotectedHeader({ alg: KEY_ALGORITHM, kid: recipient.device_id });
  }
  return { envelope_version: ENVELOPE_VERSION, sender_id: senderId, jwe: await encrypt.encrypt() };
}

/**
 * Opens an envelope with a device's private key (a WebCrypto CryptoKey on the phone, non-extractable; a JWK or
 * KeyObject in tests). Only the recipient entry with this device's kid is tried. Returns the parsed plaintext.
 */
export async function openEnvelope(envelope: Envelope, deviceId: string, privateKey: DecryptKey): Promise<unknown> {
  const mine = envelope.jwe.recipients.filter((recipient) => recipient.header?.kid === deviceId);
  if (mine.length === 0) throw new Error("the envelope is not addressed to this device");
  const { plaintext } = await generalDecrypt({ ...envelope.jwe, recipients: mine }, privateKey, {
    keyManagementAlgorithms: [KEY_ALGORITHM],
    contentEncryptionAlgorithms: [CONTENT_ENCRYPTION],
  });
  return JSON.parse(new TextDecoder().decode(plaintext)) as unknown;
}

export { RELAY_CONTRACT_VERSION };
