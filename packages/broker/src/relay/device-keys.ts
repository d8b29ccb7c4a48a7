import type { EnvelopeRecipient } from "@notify/contracts/relay-envelope";
import { relayRequest, relayUrl } from "./relay-http.js";

/** How long a device list is trusted before it is read again (a newly paired phone waits at most this long). */
export const DEVICE_LIST_TTL_MS = 10_000;

interface Cached {
  atMs: number;
  devices: EnvelopeRecipient[];
}

const cache = new Map<string, Cached>();
/** Until when a pairing code this broker issued may still be claimed: the list is read fresh for every seal. */
const pairingOpenUntil = new Map<string, number>();

const cacheKey = (relay: string, installationId: string): string => `${relay}\n${installationId}`;

export type DeviceList =
  | { ok: true; devices: EnvelopeRecipient[] }
  | { ok: false; code: string; status?: number; headers?: Record<string, string | string[] | undefined> };

/**
 * The devices an installation seals to (`GET /v1/devices`), kept for DEVICE_LIST_TTL_MS and read again sooner
 * when devices change: a pairing or revocation through the broker, or a relay that refused an envelope because a
 * recipient was gone (`forgetDevices`).
 */
export async function deviceKeys(
  relay: string,
  installationId: string,
  token: string,
  signal?: AbortSignal,
  nowMs = Date.now(),
): Promise<DeviceList> {
  const key = cacheKey(relay, installationId);
  const cached = cache.get(key);
  const fresh = (pairingOpenUntil.get(key) ?? 0) > nowMs;
  if (cached && !fresh && nowMs - cached.atMs < DEVICE_LIST_TTL_MS) return { ok: true, devices: cached.devices };
  const reply = await relayRequest({ url: relayUrl(relay, "/v1/devices"), token, ...(signal ? { signal } : {}) });
  if (!reply.ok) return reply.status === undefined ? { ok: false, code: reply.code } : reply;
  const listed = (reply.body as { devices?: unknown }).devices;
  if (!Array.isArray(listed)) return { ok: false, code: "relay_bad_reply" };
  const devices: EnvelopeRecipient[] = [];
  for (const device of listed as { device_id?: unknown; public_key?: unknown }[]) {
    const publicKey = device.public_key as { kty?: unknown; crv?: unknown; x?: unknown } | undefined;
    if (typeof device.device_id !== "string" || publicKey?.kty !== "OKP" || publicKey.crv !== "X25519") continue;
    if (typeof publicKey.x !== "string") continue;
    devices.push({ device_id: device.device_id, public_key: { kty: "OKP", crv: "X25519", x: publicKey.x } });
  }
  cache.set(key, { atMs: nowMs, devices });
  return { ok: true, devices };
}

/** Devices changed (paired, revoked, or a recipient refused): the next seal reads the list again. */
export function forgetDevices(relay?: string, installationId?: string): void {
  if (relay === undefined || installationId === undefined) cache.clear();
  else cache.delete(cacheKey(relay, installationId));
}

/**
 * A pairing code was issued (through `notify relay pair`): until it expires a phone may join at any moment, so
 * the device list is not cached, and a question asked right after pairing reaches the new phone.
 */
export function expectNewDevice(relay: string, installationId: string, untilMs: number): void {
  const key = cacheKey(relay, installationId);
  cache.delete(key);
  pairingOpenUntil.set(key, Math.max(untilMs, pairingOpenUntil.get(key) ?? 0));
}
