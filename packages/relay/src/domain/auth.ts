import type { Device, Installation } from "../store/types.js";
import type { DomainDeps } from "./deps.js";
import { hashSecret } from "./tokens.js";

/**
 * Bearer lookups by SHA-256 digest (tokens are stored only as digests). Undefined for an unknown or revoked token;
 * the HTTP edge turns that into 401.
 */
export class Authenticator {
  constructor(private readonly deps: Pick<DomainDeps, "store">) {}

  installation(token: string | undefined): Promise<Installation | undefined> {
    if (!token) return Promise.resolve(undefined);
    const digest = hashSecret(token);
    return this.deps.store.read((tx) => tx.installationByTokenHash(digest));
  }

  device(token: string | undefined): Promise<Device | undefined> {
    if (!token) return Promise.resolve(undefined);
    const digest = hashSecret(token);
    return this.deps.store.read((tx) => tx.deviceByTokenHash(digest));
  }
}
