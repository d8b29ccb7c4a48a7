import { createECDH } from "node:crypto";
import { readOrCreate } from "../config/settings.js";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** A P-256 key pair in the form web-push and browsers use: uncompressed public point and raw private scalar. */
export function generateVapidKeys(): VapidKeys {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  // The scalar may come back shorter than 32 bytes when it starts with zeros; VAPID wants exactly 32.
  const scalar = ecdh.getPrivateKey();
  const privateKey = Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]);
  return { publicKey: ecdh.getPublicKey().toString("base64url"), privateKey: privateKey.toString("base64url") };
}

/**
 * The relay's VAPID key pair, generated into the data dir on first run (docs/relay.md, "Web Push"). Phones subscribe
 * with the public key, so every relay process behind one load balancer must share this file (docs/relay.md,
 * Deployment).
 */
export function loadVapidKeys(dataDir: string): VapidKeys {
  const text = readOrCreate(dataDir, "vapid.json", () => JSON.stringify(generateVapidKeys()));
  const keys = JSON.parse(text) as Partial<VapidKeys>;
  if (typeof keys.publicKey !== "string" || typeof keys.privateKey !== "string") {
    throw new Error("vapid.json in the data dir is damaged: remove it to generate new keys (phones then re-pair)");
  }
  return { publicKey: keys.publicKey, privateKey: keys.privateKey };
}

/** The VAPID `sub` claim: RELAY_VAPID_SUBJECT, else the public URL when it is https, else a mailto placeholder. */
export function vapidSubject(publicUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.RELAY_VAPID_SUBJECT) return env.RELAY_VAPID_SUBJECT;
  return publicUrl.startsWith("https://") ? publicUrl : "mailto:notify-relay@example.invalid";
}
