import { type DeviceKeys, get, put } from "./storage.js";

/**
 * The device's X25519 key pair, made with WebCrypto on first pairing. The private key is non-extractable: script
 * on this page can use it to decrypt, but never read it out; IndexedDB stores the CryptoKey object itself.
 */
export async function deviceKeys(): Promise<DeviceKeys> {
  const existing = await get<DeviceKeys>("keys");
  if (existing) return existing;
  const pair = (await crypto.subtle.generateKey({ name: "X25519" }, false, ["deriveBits"])) as CryptoKeyPair;
  const publicJwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  const keys: DeviceKeys = { privateKey: pair.privateKey, publicJwk };
  await put("keys", keys);
  return keys;
}
