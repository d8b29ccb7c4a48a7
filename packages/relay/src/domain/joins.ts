import { randomHex } from "@notify/contracts/ids";
import type { Device, Installation } from "../store/types.js";
import { isoTime } from "./clock.js";
import type { DomainDeps } from "./deps.js";
import { RelayError } from "./errors.js";
import { type EnrolledInstallation, installationName } from "./installations.js";
import { PAIRING_TTL } from "./pairing.js";
import { hashSecret, newPairingCode, newToken, normalizePairingCode } from "./tokens.js";

/**
 * Several machines, one phone (issue 37, item 2; docs/relay.md, "Several machines, one phone"). An installation
 * already enrolled makes a one-time join code (`POST /v1/joins`, like a pairing code: 10 characters, 10 minutes,
 * single use, stored hashed); another broker presents it (`POST /v1/installations/join`, no bearer) and becomes an
 * installation of the same owner, so it seals to the owner's phones and those phones answer for it. The operator's
 * enrollment token is not needed for that: the code is the owner's consent, and the relay still makes every
 * installation's token itself.
 */

/**
 * The most machines one owner may have (docs/relay.md, "Several machines, one phone"): far above a person's laptops,
 * desktops and dev boxes, low enough that a leaked join code or a runaway script cannot grow one owner without bound
 * (every machine's envelopes fan out to the same phones).
 */
export const MAX_MACHINES_PER_OWNER = 20;
/** The most unused join codes an owner may hold at once; each lasts 10 minutes. */
export const MAX_OPEN_JOIN_CODES = 5;

const tooManyMachines = () =>
  new RelayError(
    "too_many_machines",
    `this owner already has ${MAX_MACHINES_PER_OWNER} machines, the most allowed: remove one first (notify relay leave)`,
  );

/**
 * `POST /v1/device/joins` (device token): the paired phone makes the join code, so a person can add a machine with
 * only the phone at hand. The code is its owner's, held by the owner's oldest machine (a pairing row names one).
 */
export async function createDeviceJoinCode(deps: DomainDeps, device: Device) {
  const ownerId = device.ownerId;
  if (ownerId === null) {
    throw new RelayError("forbidden", "this phone is paired to one machine only: pair it again to add machines");
  }
  const machines = await deps.store.read((tx) => tx.installationsOf(ownerId));
  const first = machines[0];
  if (first === undefined) throw new RelayError("not_found", "this phone's owner has no machine");
  return createJoinCode(deps, first);
}

export async function createJoinCode(deps: DomainDeps, installation: Installation) {
  const now = deps.clock.now();
  const code = newPairingCode();
  const expiresAt = now + PAIRING_TTL;
  await deps.store.transaction(async (tx) => {
    // Checked where the code is made, so a person learns it before walking to the other machine; the join checks
    // the machines again (codes made earlier may have been used meanwhile).
    if ((await tx.installationsOf(installation.ownerId)).length >= MAX_MACHINES_PER_OWNER) throw tooManyMachines();
    const open = await tx.openJoinCodes(installation.ownerId, now);
    if (open.count >= MAX_OPEN_JOIN_CODES) {
      const minutes = Math.max(1, Math.ceil(((open.firstExpiry ?? now) - now) / 60_000));
      throw new RelayError(
        "too_many_join_codes",
        `this owner has ${MAX_OPEN_JOIN_CODES} unused join codes, the most at once: use one, or make a new one in ${minutes} min when one expires`,
      );
    }
    await tx.createPairing({
      codeHash: hashSecret(code),
      installationId: installation.id,
      ownerId: installation.ownerId,
      direct: false,
      purpose: "join",
      createdAt: now,
      expiresAt,
    });
  });
  return { code, relay_url: deps.publicUrl(), expires_at: isoTime(expiresAt) };
}

/** POST /v1/installations/join: `{code, name?}` makes an installation of the code's owner. */
export async function joinInstallation(deps: DomainDeps, body: unknown): Promise<EnrolledInstallation> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new RelayError("invalid_request", "body must be an object");
  }
  const fields = body as Record<string, unknown>;
  if (typeof fields.code !== "string" || fields.code.length === 0) {
    throw new RelayError("invalid_request", "code is required");
  }
  const name = installationName(fields.name);
  const code = normalizePairingCode(fields.code);
  if (!code) throw new RelayError("invalid_join_code", "the join code is unknown, used or expired");
  const now = deps.clock.now();
  const installationId = `ins_${randomHex(12)}`;
  const token = newToken("installation");
  const ownerId = await deps.store.transaction(async (tx) => {
    const taken = await tx.takePairing(hashSecret(code), now, "join");
    if (!taken) return undefined;
    // The throw rolls the take back: the code stays usable once a machine has left.
    if ((await tx.installationsOf(taken.ownerId)).length >= MAX_MACHINES_PER_OWNER) throw tooManyMachines();
    await tx.createInstallation({
      id: installationId,
      ownerId: taken.ownerId,
      name,
      tokenHash: hashSecret(token),
      createdAt: now,
    });
    return taken.ownerId;
  });
  if (ownerId === undefined) throw new RelayError("invalid_join_code", "the join code is unknown, used or expired");
  return { installation_id: installationId, token, owner_id: ownerId };
}

/** GET /v1/installations: the machines of the calling installation's owner, oldest first. */
export async function ownerInstallations(deps: DomainDeps, installation: Installation) {
  const all = await deps.store.read((tx) => tx.installationsOf(installation.ownerId));
  return {
    installations: all.map((entry) => ({
      installation_id: entry.id,
      name: entry.name,
      created_at: isoTime(entry.createdAt),
      this: entry.id === installation.id,
    })),
  };
}
