import type { Device, Installation } from "../store/types.js";
import type { DomainDeps } from "./deps.js";
import { RelayError } from "./errors.js";
import { parsePushSubscription } from "./push-subscription.js";

/** A device an installation may see, seal to and revoke: same owner, or directly linked to it (legacy). */
export const reaches = (installation: Installation, device: Device): boolean =>
  device.ownerId === installation.ownerId || device.directInstallationId === installation.id;

/**
 * GET /v1/device. `installation_id` is null for a normally paired phone
 * (docs/relay.md, "`GET /v1/device` (device token)").
 */
export function describeDevice(device: Device) {
  return {
    device_id: device.id,
    device_name: device.name,
    owner_id: device.ownerId,
    installation_id: device.directInstallationId,
  };
}

/**
 * GET /v1/devices: the owner's active devices, with the public keys a broker seals envelopes to, and whether each
 * has a push subscription (`notify test` says so when none has: the phone then learns of a question only open).
 */
export async function listDevices(deps: DomainDeps, installation: Installation) {
  const devices = await deps.store.read((tx) => tx.devicesFor(installation.ownerId, installation.id));
  return {
    devices: devices.map((device) => ({
      device_id: device.id,
      device_name: device.name,
      public_key: JSON.parse(device.publicKey) as unknown,
      push: device.pushSubscription !== null,
    })),
  };
}

/** DELETE /v1/devices/{id}: the token is dead at once. Another owner's device reads as not found. */
export async function revokeDevice(deps: DomainDeps, installation: Installation, deviceId: string): Promise<void> {
  const revoked = await deps.store.transaction(async (tx) => {
    const device = await tx.deviceById(deviceId);
    if (!device || !reaches(installation, device)) return false;
    return tx.revokeDevice(deviceId, deps.clock.now());
  });
  if (!revoked) throw new RelayError("not_found", "no such device");
}

/**
 * PUT /v1/device/push-subscription (Notify's own addition,
 * docs/relay.md, "`PUT /v1/device/push-subscription` (device token)"): a phone whose subscription changed re-registers
 * it.
 */
export async function updatePushSubscription(deps: DomainDeps, device: Device, body: unknown): Promise<void> {
  const value = (body as Record<string, unknown> | undefined)?.push_subscription;
  const subscription = value === null ? null : JSON.stringify(parsePushSubscription(value, deps.pushEndpoints));
  await deps.store.transaction(async (tx) => {
    if (subscription === null) {
      if (device.pushSubscription) await tx.dropPushSubscription(device.id, device.pushSubscription);
      return;
    }
    await tx.setPushSubscription(device.id, subscription);
  });
}
