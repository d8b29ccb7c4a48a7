import { randomBytes } from "node:crypto";

/** Random bytes drawn 4 KiB at a time: one system call per ~340 ids instead of one each. */
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

/** `bytes` random bytes as lowercase hex, for identifiers (never for keys or nonces). */
export function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return hex;
}
