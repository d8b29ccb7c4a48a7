import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** A browser-side Web Push subscription: the keys a phone would generate, and the JSON it would post. */
export class Subscriber {
  private readonly ecdh = createECDH("prime256v1");
  readonly publicKey: Buffer;
  readonly auth = randomBytes(16);

  constructor(readonly endpoint: string) {
    this.publicKey = this.ecdh.generateKeys();
  }

  toJSON() {
    return {
      endpoint: this.endpoint,
      expirationTime: null,
      keys: { p256dh: this.publicKey.toString("base64url"), auth: this.auth.toString("base64url") },
    };
  }

  /** RFC 8291 (aes128gcm, RFC 8188 framing, one record): what the browser does on receipt. */
  decrypt(body: Buffer): string {
    const salt = body.subarray(0, 16);
    const idLength = body[20] ?? 0;
    const serverKey = body.subarray(21, 21 + idLength);
    const record = body.subarray(21 + idLength);
    const shared = this.ecdh.computeSecret(serverKey);
    const info = Buffer.concat([Buffer.from("WebPush: info\0"), this.publicKey, serverKey]);
    const ikm = Buffer.from(hkdfSync("sha256", shared, this.auth, info, 32));
    const key = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
    const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
    const decipher = createDecipheriv("aes-128-gcm", key, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end -= 1;
    if (padded[end] !== 2) throw new Error("not the last record (delimiter 0x02 missing)");
    return padded.subarray(0, end).toString("utf8");
  }
}

export interface Delivery {
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  /** The VAPID claims, after checking the ES256 signature against the `k=` key. */
  vapid: { key: string; claims: { aud: string; exp: number; sub: string } };
  /** When it arrived (performance.now()). */
  at: number;
}

/** A scripted answer: a status, or a status with headers (a 429's Retry-After). */
export type ScriptedReply = number | { status: number; headers: Record<string, string> };

/** Checks `Authorization: vapid t=<jwt>, k=<key>` (RFC 8292) and returns the key and claims. */
function checkVapid(header: string | undefined): Delivery["vapid"] {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
  if (!match) throw new Error(`no VAPID authorization: ${header}`);
  const [token, key] = [match[1] as string, match[2] as string];
  const point = Buffer.from(key, "base64url");
  const publicKey = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    },
    format: "jwk",
  });
  const [head, payload, signature] = token.split(".") as [string, string, string];
  const valid = verify(
    "sha256",
    Buffer.from(`${head}.${payload}`),
    { key: publicKey, dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  if (!valid) throw new Error("VAPID signature does not verify");
  return { key, claims: JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) };
}

/**
 * A loopback push service speaking RFC 8030: it records each message and answers with the next scripted status
 * (201 when the script is empty). `hold` keeps requests open until released.
 */
export class PushService {
  readonly deliveries: Delivery[] = [];
  readonly statuses: ScriptedReply[] = [];
  hold = false;
  /** TCP connections accepted (a refused push never opens one). */
  connections = 0;
  /** Set: every message is answered 307 to this Location (the relay must not follow it). */
  redirectTo: string | undefined;
  private held: ServerResponse[] = [];
  private server: Server | undefined;
  private waiters: { count: number; resolve: () => void }[] = [];
  base = "";

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        try {
          this.deliveries.push({
            path: request.url ?? "",
            headers: request.headers,
            body: Buffer.concat(chunks),
            vapid: checkVapid(request.headers.authorization),
            at: performance.now(),
          });
        } catch (error) {
          response.writeHead(400).end(String(error));
          return;
        }
        for (const waiter of this.waiters.filter((item) => this.deliveries.length >= item.count)) waiter.resolve();
        if (this.hold) {
          this.held.push(response);
          return;
        }
        if (this.redirectTo) {
          response.writeHead(307, { location: this.redirectTo }).end();
          return;
        }
        const reply = this.statuses.shift() ?? 201;
        if (typeof reply === "number") response.writeHead(reply).end();
        else response.writeHead(reply.status, reply.headers).end();
      });
    });
    this.server.on("connection", () => {
      this.connections += 1;
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    this.base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  }

  /** Resolves once `count` messages have arrived. */
  received(count: number): Promise<void> {
    if (this.deliveries.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async stop(): Promise<void> {
    for (const response of this.held) response.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
