import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import { closeSync, fchmodSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "../fs/private-files.js";

export const SECRET_KEY_FILE = "secret.key";

/** A secret that cannot be opened: missing key file, wrong key, tampered or foreign ciphertext. */
export class SecretsUnreadableError extends Error {
  readonly code = "provider_secrets_unreadable";
  constructor() {
    super("provider_secrets_unreadable");
    this.name = "SecretsUnreadableError";
  }
}

/**
 * Seals secrets at rest with AES-256-GCM under a 32-byte key kept in `<dataDir>/secret.key` (mode 0600, created on
 * first use). The record id is bound as additional data, so a sealed value copied onto another record does not
 * open. Format: `v1.<iv base64url>.<ciphertext+tag base64url>`.
 */
export class SecretSealer {
  private key: Buffer | undefined;
  /** The key imported once; node:crypto would re-import a raw Buffer on every cipher. */
  private keyObject: KeyObject | undefined;

  constructor(private readonly dataDir: string) {}

  private keyFile(): string {
    return join(this.dataDir, SECRET_KEY_FILE);
  }

  /** Loads the key, creating it when `create` and it does not exist yet. */
  private loadKey(create: boolean): Buffer {
    if (this.key) return this.key;
    try {
      const key = readFileSync(this.keyFile());
      if (key.length !== 32) throw new SecretsUnreadableError();
      this.key = key;
      return key;
    } catch (error) {
      if (error instanceof SecretsUnreadableError) throw error;
      if (!create || (error as NodeJS.ErrnoException).code !== "ENOENT") throw new SecretsUnreadableError();
    }
    ensurePrivateDir(this.dataDir);
    const key = randomBytes(32);
    const fd = openSync(this.keyFile(), "wx", 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, key);
    } finally {
      closeSync(fd);
    }
    this.key = key;
    return key;
  }

  private cipherKey(create: boolean): KeyObject {
    const raw = this.loadKey(create);
    if (!this.keyObject || this.key !== raw) this.keyObject = createSecretKey(raw);
    return this.keyObject;
  }

  seal(recordId: string, secrets: Record<string, string>): string {
    const key = this.cipherKey(true);
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(Buffer.from(recordId, "utf8"));
    const body = Buffer.concat([cipher.update(JSON.stringify(secrets), "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `v1.${iv.toString("base64url")}.${body.toString("base64url")}`;
  }

  /** Opens a sealed value; any failure is SecretsUnreadableError and carries nothing of the value. */
  open(recordId: string, sealed: string): Record<string, string> {
    try {
      const [version, ivText, bodyText] = sealed.split(".");
      if (version !== "v1" || !ivText || !bodyText) throw new SecretsUnreadableError();
      const key = this.cipherKey(false);
      const body = Buffer.from(bodyText, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(ivText, "base64url"));
      decipher.setAAD(Buffer.from(recordId, "utf8"));
      decipher.setAuthTag(body.subarray(body.length - 16));
      const text = Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString(
        "utf8",
      );
      const parsed = JSON.parse(text) as unknown;
      if (parsed === null || typeof parsed !== "object") throw new SecretsUnreadableError();
      return parsed as Record<string, string>;
    } catch {
      throw new SecretsUnreadableError();
    }
  }

  /** Forgets the cached key (tests; a key file replaced on disk). */
  reset(): void {
    this.key = undefined;
    this.keyObject = undefined;
  }
}
