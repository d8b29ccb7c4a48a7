import { randomHex } from "@notify/contracts/ids";
import type { Installation } from "../store/types.js";
import type { DomainDeps } from "./deps.js";
import { RelayError } from "./errors.js";
import { hashSecret, newToken } from "./tokens.js";

export interface EnrolledInstallation {
  installation_id: string;
  token: string;
  owner_id: string;
}

/** An installation's optional `name` (enrollment, join): 1-100 characters, or null when absent. */
export function installationName(name: unknown): string | null {
  if (name === undefined || name === null) return null;
  if (typeof name !== "string" || name.length < 1 || name.length > 100) {
    throw new RelayError("invalid_request", "name must be 1-100 chars");
  }
  return name;
}

/** POST /v1/installations: a broker enrolls with the operator's enrollment token and gets its own owner. */
export async function enrollInstallation(deps: DomainDeps, body: unknown): Promise<EnrolledInstallation> {
  const fields = (body ?? {}) as Record<string, unknown>;
  if (typeof fields !== "object" || Array.isArray(fields))
    throw new RelayError("invalid_request", "body must be an object");
  const name = installationName(fields.name);
  const now = deps.clock.now();
  const ownerId = `own_${randomHex(12)}`;
  const installationId = `ins_${randomHex(12)}`;
  const token = newToken("installation");
  await deps.store.transaction(async (tx) => {
    await tx.createOwner(ownerId, now);
    await tx.createInstallation({
      id: installationId,
      ownerId,
      name,
      tokenHash: hashSecret(token),
      createdAt: now,
    });
  });
  return { installation_id: installationId, token, owner_id: ownerId };
}

export interface DeletedInstallationReply {
  installation_id: string;
  deleted: { devices: number; answers: number; envelopes: number; pairings: number };
}

/**
 * DELETE /v1/installation (`notify relay unenroll`): the calling installation and everything keyed by it. Its
 * phones go with it unless another installation shares its owner (none does yet: every enrollment makes an owner
 * of its own). The deleted devices' tokens get 401 at once, held polls included.
 */
export async function deleteInstallation(
  deps: DomainDeps,
  installation: Installation,
): Promise<DeletedInstallationReply> {
  const deleted = await deps.store.transaction((tx) => tx.deleteInstallation(installation.id));
  if (!deleted) throw new RelayError("unauthorized", "the installation token is missing, unknown or revoked");
  // Answers look installations up through this cache (domain/answers.ts); this process forgets it at once.
  deps.knownInstallations.delete(installation.id);
  return {
    installation_id: installation.id,
    deleted: {
      devices: deleted.deviceIds.length,
      answers: deleted.answers,
      envelopes: deleted.envelopes,
      pairings: deleted.pairings,
    },
  };
}
