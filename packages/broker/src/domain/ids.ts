import { randomBytes } from "node:crypto";
import { randomHex } from "@notify/contracts/ids";

/**
 * IDs are a type prefix and 24 hex characters: 12 random bytes after a 48-bit millisecond timestamp would leak
 * timing for no gain, so they are fully random. `ntf_` for notifications, `int_` for interactions.
 */
export function newId(prefix: "ntf" | "int"): string {
  return `${prefix}_${randomHex(12)}`;
}

/** 32 random bytes, base64url: the single-use response-binding secret of an interaction. */
export function newNonce(): string {
  return randomBytes(32).toString("base64url");
}
