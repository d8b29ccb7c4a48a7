import type * as Crypto from "node:crypto";

/**
 * What the hook bundle (scripts/bundle.mjs) gets for `node:crypto`: loading Node's crypto module costs a hook
 * process more than anything else it loads, and a hook that only reports uses it for nothing but a few short
 * SHA-256 keys (hooks/mapping.ts, hooks/open-marks.ts). So SHA-256 of short input is computed here, and Node's
 * module is loaded the first time anything else is asked of it (a temporary file's random name, an event id). Only
 * the names the bundled modules import are here: the bundle does not build when one is missing.
 */

let loaded: typeof Crypto | undefined;
const crypto = (): typeof Crypto => {
  loaded ??= process.getBuiltinModule("node:crypto");
  return loaded;
};

export const randomBytes = ((...args: Parameters<typeof Crypto.randomBytes>) =>
  crypto().randomBytes(...args)) as typeof Crypto.randomBytes;

export const randomUUID: typeof Crypto.randomUUID = (options) => crypto().randomUUID(options);

/** Longer input is hashed by Node's crypto: past a few kilobytes, loading it costs less than this code run cold. */
export const SHORT_INPUT_BYTES = 1024;

/** `createHash("sha256")` computed here while its input stays short; every other hash is Node's. */
export const createHash = ((algorithm: string, options?: Crypto.HashOptions) =>
  algorithm === "sha256" && options === undefined
    ? new ShortSha256()
    : crypto().createHash(algorithm, options)) as unknown as typeof Crypto.createHash;

/** A Hash for `update(...)` and one `digest(...)`, which is what the bundled modules call. */
class ShortSha256 {
  private readonly chunks: Buffer[] = [];

  update(data: string | NodeJS.ArrayBufferView, encoding?: BufferEncoding): this {
    this.chunks.push(
      typeof data === "string"
        ? Buffer.from(data, encoding ?? "utf8")
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    );
    return this;
  }

  digest(): Buffer;
  digest(encoding: BufferEncoding): string;
  digest(encoding?: BufferEncoding): Buffer | string {
    const input = Buffer.concat(this.chunks);
    const digest =
      input.length <= SHORT_INPUT_BYTES ? sha256(input) : crypto().createHash("sha256").update(input).digest();
    return encoding === undefined ? digest : digest.toString(encoding);
  }
}

/** FIPS 180-4, section 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** FIPS 180-4, section 5.3.3: the initial hash value. */
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** SHA-256 (FIPS 180-4, section 6.2) of a whole message. Plain locals and typed arrays: it mostly runs cold. */
export function sha256(message: Uint8Array): Buffer {
  // 5.1.1: a 1 bit, zeros, and the length in bits as 64 bits, to a multiple of 512 bits.
  const blocks = Math.floor((message.length + 8) / 64) + 1;
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[message.length] = 0x80;
  const bits = message.length * 8;
  for (let i = 0; i < 8; i++) padded[padded.length - 1 - i] = Math.floor(bits / 2 ** (8 * i)) & 0xff;

  const hash = Uint32Array.from(H0);
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) {
      const at = block + t * 4;
      w[t] =
        ((padded[at] as number) << 24) |
        ((padded[at + 1] as number) << 16) |
        ((padded[at + 2] as number) << 8) |
        (padded[at + 3] as number);
    }
    for (let t = 16; t < 64; t++) {
      const w15 = w[t - 15] as number;
      const w2 = w[t - 2] as number;
      const sigma0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
      const sigma1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
      w[t] = (w[t - 16] as number) + sigma0 + (w[t - 7] as number) + sigma1;
    }
    let a = hash[0] as number;
    let b = hash[1] as number;
    let c = hash[2] as number;
    let d = hash[3] as number;
    let e = hash[4] as number;
    let f = hash[5] as number;
    let g = hash[6] as number;
    let h = hash[7] as number;
    for (let t = 0; t < 64; t++) {
      const sum1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const choice = (e & f) ^ (~e & g);
      const t1 = (h + sum1 + choice + (K[t] as number) + (w[t] as number)) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    hash[0] = (hash[0] as number) + a;
    hash[1] = (hash[1] as number) + b;
    hash[2] = (hash[2] as number) + c;
    hash[3] = (hash[3] as number) + d;
    hash[4] = (hash[4] as number) + e;
    hash[5] = (hash[5] as number) + f;
    hash[6] = (hash[6] as number) + g;
    hash[7] = (hash[7] as number) + h;
  }
  const digest = Buffer.alloc(32);
  for (let i = 0; i < 8; i++) digest.writeUInt32BE(hash[i] as number, i * 4);
  return digest;
}
