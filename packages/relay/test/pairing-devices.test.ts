import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock, MINUTE } from "../src/domain/clock.js";
import { ENROLLMENT_TOKEN, type Enrolled, RelayHarness, type Transport, until, x25519Jwk } from "./helpers.js";

/** docs/relay.md, "Routes": enrollment, pairing, devices. */
describe.each<Transport>(["inject", "socket"])("enrollment, pairing and devices over %s", (transport) => {
  let relay: ReturnType<typeof RelayHarness.sqlite>;
  let clock: ManualClock;
  let installation: Enrolled;

  beforeEach(async () => {
    clock = new ManualClock(Date.now());
    relay = RelayHarness.sqlite({ clock });
    if (transport === "socket") await relay.listen();
    installation = await relay.enroll("laptop");
  });
  afterEach(async () => relay.close());

  const claim = (body: Record<string, unknown>) => relay.request({ url: "/v1/pairings/claim", body });
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  describe("POST /v1/installations", () => {
    it("201 {installation_id, token, owner_id}: a new installation with its own owner", async () => {
      const other = await relay.enroll();
      expect(other.installation_id).toMatch(/^ins_/);
      expect(other.token).toMatch(/^nri_/);
      expect(other.owner_id).not.toBe(installation.owner_id);
    });

    it("401 without the enrollment token, or with a wrong one", async () => {
      for (const headers of [{}, auth("nre_wrong"), auth(installation.token)]) {
        const reply = await relay.request({ url: "/v1/installations", headers, body: {} });
        expect(reply.status).toBe(401);
        expect(reply.json().error.code).toBe("unauthorized");
      }
    });

    it("400 for a bad name", async () => {
      const reply = await relay.request({
        url: "/v1/installations",
        headers: auth(ENROLLMENT_TOKEN),
        body: { name: 5 },
      });
      expect(reply.status).toBe(400);
    });
  });

  describe("POST /v1/pairings and /v1/pairings/claim", () => {
    it("201 {code, link, expires_at}; the link is {RELAY_PUBLIC_URL}/app/#pair=<code>", async () => {
      const pairing = await relay.pairCode(installation);
      expect(pairing.link).toBe(`https://relay.example.test/app/#pair=${pairing.code}`);
      expect(Date.parse(pairing.expires_at) - clock.now()).toBe(10 * MINUTE);
    });

    it("401 without an installation token", async () => {
      expect((await relay.request({ url: "/v1/pairings", body: {} })).status).toBe(401);
    });

    it("claim: 201 {device_id, token, owner_id}; the device joins the installation's owner; a code works once", async () => {
      const { code } = await relay.pairCode(installation);
      const body = { code, device_name: "Pixel", public_key: x25519Jwk() };
      const reply = await claim(body);
      expect(reply.status).toBe(201);
      const device = reply.json();
      expect(device).toEqual({
        device_id: expect.stringMatching(/^dev_/),
        token: expect.stringMatching(/^nrd_/),
        owner_id: installation.owner_id,
      });
      const again = await claim({ ...body, public_key: x25519Jwk() });
      expect(again.status).toBe(400);
      expect(again.json().error.code).toBe("invalid_pairing_code");
    });

    it("claim accepts the code typed in lower case with a dash", async () => {
      const { code } = await relay.pairCode(installation);
      const typed = `${code.slice(0, 5)}-${code.slice(5)}`.toLowerCase();
      expect((await claim({ code: typed, device_name: "Pixel", public_key: x25519Jwk() })).status).toBe(201);
    });

    it("an expired code is refused", async () => {
      const { code } = await relay.pairCode(installation);
      clock.advance(10 * MINUTE + 1);
      expect((await claim({ code, device_name: "Pixel", public_key: x25519Jwk() })).status).toBe(400);
    });

    it("400 for a bad public key, device name or push subscription, and the code survives it", async () => {
      const { code } = await relay.pairCode(installation);
      const good = { code, device_name: "Pixel", public_key: x25519Jwk() };
      const bad = [
        { ...good, public_key: { kty: "EC", crv: "P-256", x: "a", y: "b" } },
        { ...good, public_key: { ...x25519Jwk(), d: "private" } },
        { ...good, device_name: "" },
        { ...good, push_subscription: { endpoint: "http://push.example.com/x", keys: {} } },
        { ...good, push_subscription: "nope" },
      ];
      for (const body of bad) expect((await claim(body)).status).toBe(400);
      expect((await claim(good)).status).toBe(201);
    });
  });

  describe("GET /v1/device, GET /v1/devices, DELETE /v1/devices/{id}", () => {
    it("GET /v1/device: installation_id is null for a normally paired phone", async () => {
      const device = await relay.pair(installation);
      const reply = await relay.request({ url: "/v1/device", headers: auth(device.token) });
      expect(reply.json()).toEqual({
        device_id: device.device_id,
        device_name: "Test phone",
        owner_id: installation.owner_id,
        installation_id: null,
      });
    });

    it("GET /v1/devices lists the owner's devices with their public keys, nobody else's", async () => {
      const publicKey = x25519Jwk();
      const device = await relay.pair(installation, { public_key: publicKey, device_name: "Mine" });
      const other = await relay.enroll("other");
      await relay.pair(other);
      const reply = await relay.request({ url: "/v1/devices", headers: auth(installation.token) });
      expect(reply.json()).toEqual({
        devices: [{ device_id: device.device_id, device_name: "Mine", public_key: publicKey, push: false }],
      });
    });

    it("DELETE: 204, then the device token gets 401 and the device is no longer listed", async () => {
      const device = await relay.pair(installation);
      const reply = await relay.request({
        method: "DELETE",
        url: `/v1/devices/${device.device_id}`,
        headers: auth(installation.token),
      });
      expect(reply.status).toBe(204);
      expect((await relay.request({ url: "/v1/device", headers: auth(device.token) })).status).toBe(401);
      expect((await relay.request({ url: "/v1/devices", headers: auth(installation.token) })).json().devices).toEqual(
        [],
      );
    });

    it("DELETE ends the device's held envelope poll with 401 at once (issue 31, item 12)", async () => {
      const device = await relay.pair(installation);
      const other = await relay.pair(installation);
      const { next_cursor } = (await relay.envelopes(device)).json();
      const held = relay.envelopes(device, next_cursor, "&wait=30");
      const untouched = relay.envelopes(other, undefined, "&wait=2");
      await until(() => relay.hub.size === 2);
      const started = performance.now();
      const reply = await relay.request({
        method: "DELETE",
        url: `/v1/devices/${device.device_id}`,
        headers: auth(installation.token),
      });
      expect(reply.status).toBe(204);
      const ended = await held;
      // The 401 its next request would get, in the feed's string style, long before the 30 s hold.
      expect([ended.status, ended.json()]).toEqual([401, { error: "unauthorized" }]);
      expect(performance.now() - started).toBeLessThan(5000);
      // Another device's poll holds on, and the revoked token's next poll is refused before it waits.
      expect(relay.hub.size).toBe(1);
      expect((await untouched).status).toBe(200);
      expect((await relay.envelopes(device, next_cursor, "&wait=30")).status).toBe(401);
    });

    it("a poll that authenticated before the revocation and waits after it ends with 401 too", async () => {
      const device = await relay.pair(installation);
      const { next_cursor } = (await relay.envelopes(device)).json();
      // The revocation is announced first; the feed then asks to wait (as a poll whose token lookup raced it would).
      relay.hub.revoke(`e:${device.device_id}`);
      const reply = await relay.envelopes(device, next_cursor, "&wait=30");
      expect(reply.status).toBe(401);
    });

    it("DELETE of another owner's device is 404 and leaves it alone", async () => {
      const other = await relay.enroll("other");
      const device = await relay.pair(other);
      const reply = await relay.request({
        method: "DELETE",
        url: `/v1/devices/${device.device_id}`,
        headers: auth(installation.token),
      });
      expect(reply.status).toBe(404);
      expect((await relay.request({ url: "/v1/device", headers: auth(device.token) })).status).toBe(200);
    });

    it("PUT /v1/device/push-subscription replaces or clears the subscription", async () => {
      const device = await relay.pair(installation);
      const subscription = {
        endpoint: "https://push.example.test/abc",
        keys: { p256dh: Buffer.alloc(65, 4).toString("base64url"), auth: Buffer.alloc(16, 1).toString("base64url") },
      };
      const put = (body: unknown) =>
        relay.request({ method: "PUT", url: "/v1/device/push-subscription", headers: auth(device.token), body });
      expect((await put({ push_subscription: subscription })).status).toBe(204);
      expect((await relay.store.read((tx) => tx.deviceById(device.device_id)))?.pushSubscription).toContain(
        "push.example.test",
      );
      // The installation's device list says the phone now has one (`notify test` reads it).
      const listed = await relay.request({ url: "/v1/devices", headers: auth(installation.token) });
      expect((listed.json() as { devices: { device_id: string; push: boolean }[] }).devices).toContainEqual(
        expect.objectContaining({ device_id: device.device_id, push: true }),
      );
      expect((await put({ push_subscription: null })).status).toBe(204);
      expect((await relay.store.read((tx) => tx.deviceById(device.device_id)))?.pushSubscription).toBeNull();
      expect((await put({ push_subscription: { endpoint: "ftp://x" } })).status).toBe(400);
    });
  });
});
