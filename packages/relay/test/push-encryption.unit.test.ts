import { createECDH, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { encryptPush, PushKeyError } from "../src/push/aes128gcm.js";
import { Subscriber } from "./push-service.js";

// The relay seals Web Push messages itself (RFC 8291, aes128gcm). Two independent receivers open them: the test push
// service's own decryption (what a browser does, written from the RFCs) and http_ece, the library web-push uses.

type Ece = {
  decrypt(buffer: Buffer, params: { version: string; privateKey: unknown; authSecret: string }): Buffer;
};
const ece = createRequire(import.meta.url)("http_ece") as Ece;

describe("Web Push encryption (aes128gcm)", () => {
  const payload = JSON.stringify({ envelope_id: "env_0123456789abcdef", version: "1" });

  it("the browser-side decryption reads exactly the payload", () => {
    const subscriber = new Subscriber("https://push.example/x");
    const { keys } = subscriber.toJSON();
    expect(subscriber.decrypt(encryptPush(keys, payload))).toBe(payload);
  });

  it("http_ece (web-push's library) decrypts it too, for a range of payload sizes", () => {
    const receiver = createECDH("prime256v1");
    const keys = { p256dh: receiver.generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") };
    for (const size of [0, 1, 15, 16, 17, 100, 1000, 4096 - 17]) {
      const text = "x".repeat(size);
      const body = encryptPush(keys, text);
      const opened = ece.decrypt(body, { version: "aes128gcm", privateKey: receiver, authSecret: keys.auth });
      expect(opened.toString("utf8")).toBe(text);
    }
  });

  it("every message has its own salt and sender key; the header says record size 4096", () => {
    const { keys } = new Subscriber("https://push.example/x").toJSON();
    const [a, b] = [encryptPush(keys, payload), encryptPush(keys, payload)];
    expect(a.subarray(0, 16).equals(b.subarray(0, 16))).toBe(false);
    expect(a.subarray(21, 86).equals(b.subarray(21, 86))).toBe(false);
    expect(a.readUInt32BE(16)).toBe(4096);
    expect(a[20]).toBe(65);
    expect(a.length).toBe(21 + 65 + Buffer.byteLength(payload) + 1 + 16);
  });

  it("refuses keys that are not a P-256 point or a 16-byte secret, and a payload over one record", () => {
    const { keys } = new Subscriber("https://push.example/x").toJSON();
    expect(() => encryptPush({ ...keys, p256dh: keys.p256dh.slice(4) }, payload)).toThrow(PushKeyError);
    expect(() => encryptPush({ ...keys, auth: "c2hvcnQ" }, payload)).toThrow(PushKeyError);
    expect(() => encryptPush(keys, "x".repeat(4096 - 16))).toThrow(PushKeyError);
  });
});
