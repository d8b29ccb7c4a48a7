import { randomHex } from "@notify/contracts/ids";

/** Makes a fresh identifier with the given prefix (`resp`, `msg`, `fc`, ...); injectable so tests are deterministic. */
export type IdGenerator = (prefix: string) => string;

export const randomId: IdGenerator = (prefix) => `${prefix}_${randomHex(12)}`;

/** Deterministic ids for tests and fixtures: `msg_0001`, `fc_0002`, ... */
export function sequentialIds(): IdGenerator {
  let counter = 0;
  return (prefix) => {
    counter += 1;
    return `${prefix}_${counter.toString().padStart(4, "0")}`;
  };
}
