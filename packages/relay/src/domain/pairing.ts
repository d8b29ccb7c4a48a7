import { randomHex } from "@notify/contracts/ids";
import type { Device, Installation } from "../store/types.js";
import { isoTime, MINUTE } from "./clock.js";
import type { DomainDeps } from "./deps.js";
import { RelayError } from "./errors.js";
import { parsePushSubscription } from "./push-subscription.js";
import { hashSecret, newPairingCode, newToken, normalizePairingCode } from "./tokens.js";

/** A code lives ten minutes: long enough to scan a QR code, short enough that a photo of it goes stale. */
export const PAIRING_TTL = 10 * MINUTE;

const objectBody = (body: unknown): Record<string, unknown> => {
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body))
    throw new RelayError("invalid_request", "body must be an object");
  return body as Record<string, unknown>;
};

/**
 * POST /v1/pairings. `direct: true` (Notify's own addition, docs/relay.md, "Model") makes a legacy direct link: the
 * device then belongs to this installation instead of its owner.
 */
export async function createPairing(deps: DomainDeps, installation: Installation, body: unknown) {
  const { direct } = objectBody(body);
  if (direct !== undefined && typeof direct !== "boolean")
    throw new RelayError("invalid_request", "direct must be a boolean");
  const now = deps.clock.now();
  const code = newPairingCode();
  const expiresAt = now + PAIRING_TTL;
  await deps.store.transaction((tx) =>
    tx.createPairing({
      codeHash: hashSecret(code),
      installationId: installation.id,
      ownerId: installation.ownerId,
      direct: direct === true,
      purpose: "device",
      createdAt: now,
      expiresAt,
    }),
  );
  return { code, link: `${deps.publicUrl()}/app/#pair=${code}`, expires_at: isoTime(expiresAt) };
}

/** An X25519 public JWK; anything else (a private `d`, another curve) is refused. */
export function parsePublicKey(value: unknown): string {
  const bad = () => new RelayError("invalid_request", "public_key must be an X25519 public JWK");
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad();
  const { kty, crv, x, d } = value as Record<string, unknown>;
  if (kty !== "OKP" || crv !== "X25519" || d !== undefined || typeof x !== "string") throw bad();
  if (!/^[A-Za-z0-9_-]{43}$/.test(x) || Buffer.from(x, "base64url").length !== 32) throw bad();
  return JSON.stringify({ kty, crv, x });
}

/** POST /v1/pairings/claim: a code works once; the device joins the installation's owner. */
export async function claimPairing(deps: DomainDeps, body: unknown) {
  const fields = objectBody(body);
  const code = typeof fields.code === "string" ? normalizePairingCode(fields.code) : undefined;
  if (typeof fields.code !== "string" || fields.code.length === 0)
    throw new RelayError("invalid_request", "code is required");
  const name = fields.device_name;
  if (typeof name !== "string" || name.length < 1 || name.length > 100) {
    throw new RelayError("invalid_request", "device_name must be 1-100 chars");
  }
  const publicKey = parsePublicKey(fields.public_key);
  const subscription =
    fields.push_subscription === undefined || fields.push_subscription === null
      ? null
      : JSON.stringify(parsePushSubscription(fields.push_subscription, deps.pushEndpoints));
  if (!code) throw new RelayError("invalid_pairing_code", "the pairing code is unknown, used or expired");
  const now = deps.clock.now();
  const token = newToken("device");
  const deviceId = `dev_${randomHex(12)}`;
  const pairing = await deps.store.transaction(async (tx) => {
    const taken = await tx.takePairing(hashSecret(code), now, "device");
    if (!taken) return undefined;
    const device: Device & { tokenHash: string } = {
      id: deviceId,
      ownerId: taken.direct ? null : taken.ownerId,
      directInstallationId: taken.direct ? taken.installationId : null,
      name,
      publicKey,
      pushSubscription: subscription,
      createdAt: now,
      tokenHash: hashSecret(token),
    };
    await tx.createDevice(device);
    return taken;
  });
  if (!pairing) throw new RelayError("invalid_pairing_code", "the pairing code is unknown, used or expired");
  return { device_id: deviceId, token, owner_id: pairing.ownerId };
}
