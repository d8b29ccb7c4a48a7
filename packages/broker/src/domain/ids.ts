import { randomBytes } from "node:crypto";

/**
 * IDs are a type prefix and 24 hex characters: 12 random bytes after a 48-bit millisecond timestamp would leak
 * timing for no gain, so they are fully random. `ntf_` for notifications, `int_` for interactions.
 */
export function newId(prefix: "ntf" | "int"): string {
  return `${prefix}_${randomHex(12)}`;
}

/** Random bytes drawn 4 KiB at a time: one system call per ~340 ids instead of one each. */
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;
function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return hex;
}

/** 32 random bytes, base64url: the single-use response-binding secret of an interaction. */
export function newNonce(): string {
  return randomBytes(32).toString("base64url");
}
