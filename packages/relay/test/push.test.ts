import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../src/log.js";
import { loadVapidKeys } from "../src/push/vapid.js";
import { WebPushSender } from "../src/push/web-push-sender.js";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { type Enrolled, envelopeFor, RelayHarness, tempDir } from "./helpers.js";
import { PushService, Subscriber } from "./push-service.js";

/** docs/relay.md, "Web Push": a content-free Web Push (VAPID, aes128gcm) wakes each recipient with a subscription. */
describe("Web Push wake-ups", () => {
  let service: PushService;
  let relay: RelayHarness;
  let sender: WebPushSender;
  let dir: ReturnType<typeof tempDir>;
  let installation: Enrolled;
  let vapidPublicKey: string;

  beforeEach(async () => {
    service = new PushService();
    await service.start();
    dir = tempDir();
    const store = new SqliteStore(join(dir.path, "relay.db"));
    const vapid = loadVapidKeys(dir.path);
    vapidPublicKey = vapid.publicKey;
    sender = new WebPushSender({
      vapid: { ...vapid, subject: "mailto:ops@example.test" },
      store,
      logger: silentLogger,
      timeoutMs: 500,
      retryDelaysMs: [10, 10],
      // The push service here is on loopback: the operator's test switch lets the relay reach it.
      pushEndpoints: { allowLoopback: true },
    });
    relay = new RelayHarness(store, { push: sender, vapidPublicKey, allowLoopbackPush: true });
    installation = await relay.enroll();
  });
  afterEach(async () => {
    await sender.close();
    await relay.close();
    await service.stop();
    dir.remove();
  });

  const pairWithPush = async (path: string) => {
    const subscriber = new Subscriber(`${service.base}${path}`);
    const device = await relay.pair(installation, { push_subscription: subscriber.toJSON() });
    return { subscriber, device };
  };

  it("the push service decrypts exactly {envelope_id, version} with the subscription's keys", async () => {
    const { subscriber, device } = await pairWithPush("/push/one");
    const posted = await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]));
    const { envelope_id } = posted.json();
    await service.received(1);
    const [delivery] = service.deliveries;
    expect(delivery?.path).toBe("/push/one");
    expect(delivery?.headers["content-encoding"]).toBe("aes128gcm");
    expect(Number(delivery?.headers.ttl)).toBeGreaterThan(0);
    const plaintext = subscriber.decrypt(delivery?.body ?? Buffer.alloc(0));
    expect(JSON.parse(plaintext)).toStrictEqual({ envelope_id, version: "1" });
    expect(Object.keys(JSON.parse(plaintext))).toEqual(["envelope_id", "version"]);
    // Content-free: nothing of the envelope travels in the push.
    expect(plaintext).not.toContain("ciphertext");
    // VAPID: signed by the relay's key, the one phones subscribe with, for the push service's origin.
    expect(delivery?.vapid.key).toBe(vapidPublicKey);
    expect(delivery?.vapid.claims.aud).toBe(service.base);
    expect(delivery?.vapid.claims.sub).toBe("mailto:ops@example.test");
    const served = await relay.request({ url: "/v1/push/vapid-public-key" });
    expect(served.json()).toEqual({ public_key: vapidPublicKey });
  });

  it("one push per recipient with a subscription; none for a device without one", async () => {
    const first = await pairWithPush("/push/a");
    const second = await pairWithPush("/push/b");
    const silent = await relay.pair(installation);
    const ids = [first.device.device_id, second.device.device_id, silent.device_id];
    await relay.postEnvelope(installation, envelopeFor(installation, ids));
    await sender.idle();
    expect(service.deliveries.map((delivery) => delivery.path).sort()).toEqual(["/push/a", "/push/b"]);
  });

  it("Notify-Push: none stores the envelope for the phone but wakes nobody; another value is refused", async () => {
    const { device } = await pairWithPush("/push/quiet");
    const post = (value: string) =>
      relay.request({
        url: "/v1/envelopes",
        headers: { authorization: `Bearer ${installation.token}`, "notify-push": value },
        body: envelopeFor(installation, [device.device_id]),
      });
    const quiet = await post("none");
    expect(quiet.status).toBe(201);
    const refused = await post("always");
    expect(refused.status).toBe(400);
    expect(refused.json()).toEqual({ error: { code: "invalid_request", message: "Notify-Push must be none" } });
    // A woken envelope after it: its push is the only one the service gets.
    const loud = await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]));
    await service.received(1);
    await sender.idle();
    expect(service.deliveries).toHaveLength(1);
    const feed = (await relay.envelopes(device)).json() as { envelopes: { envelope_id: string }[] };
    expect(feed.envelopes.map((row) => row.envelope_id)).toEqual([quiet.json().envelope_id, loud.json().envelope_id]);
  });

  it.each([404, 410])("%i from the push service drops the subscription", async (status) => {
    const { device } = await pairWithPush("/push/gone");
    service.statuses.push(status);
    await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]));
    await sender.idle();
    expect((await relay.store.read((tx) => tx.deviceById(device.device_id)))?.pushSubscription).toBeNull();
    await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]));
    await sender.idle();
    expect(service.deliveries).toHaveLength(1);
  });

  it("a 5xx is retried (bounded) and keeps the subscription", async () => {
    const { device } = await pairWithPush("/push/flaky");
    service.statuses.push(503, 500, 500, 500);
    await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]));
    await sender.idle();
    expect(service.deliveries).toHaveLength(3);
    expect((await relay.store.read((tx) => tx.deviceById(device.device_id)))?.pushSubscription).not.toBeNull();
  });

  it("a 429 waits for its retry without holding a sending slot; outcomes are reported", async () => {
    // One sending slot: with the retry sleeping in it, B's wake-up would wait for A's backoff.
    const outcomes: string[] = [];
    const narrow = new WebPushSender({
      vapid: { ...loadVapidKeys(dir.path), subject: "mailto:ops@example.test" },
      store: relay.store,
      logger: silentLogger,
      timeoutMs: 2000,
      retryDelaysMs: [1500],
      concurrency: 1,
      pushEndpoints: { allowLoopback: true },
      onOutcome: (outcome) => outcomes.push(outcome),
    });
    const harness = new RelayHarness(relay.store, { push: narrow, vapidPublicKey, allowLoopbackPush: true });
    try {
      const owner = await harness.enroll();
      const a = await harness.pair(owner, { push_subscription: new Subscriber(`${service.base}/push/a`).toJSON() });
      const b = await harness.pair(owner, { push_subscription: new Subscriber(`${service.base}/push/b`).toJSON() });
      service.statuses.push(429);
      await harness.postEnvelope(owner, envelopeFor(owner, [a.device_id]));
      await service.received(1);
      await harness.postEnvelope(owner, envelopeFor(owner, [b.device_id]));
      await service.received(2);
      // B went out while A waited for its retry.
      expect(service.deliveries.map((delivery) => delivery.path)).toEqual(["/push/a", "/push/b"]);
      expect(narrow.queued).toBe(1);
      await narrow.idle();
      expect(service.deliveries.map((delivery) => delivery.path)).toEqual(["/push/a", "/push/b", "/push/a"]);
      expect(outcomes).toEqual(["retried", "delivered", "delivered"]);
    } finally {
      await narrow.close();
    }
  });

  it("a 429's Retry-After counts as seconds or an HTTP date, and never past its cap (issue 31, item 4)", async () => {
    const capped = new WebPushSender({
      vapid: { ...loadVapidKeys(dir.path), subject: "mailto:ops@example.test" },
      store: relay.store,
      logger: silentLogger,
      timeoutMs: 2000,
      retryDelaysMs: [10, 10],
      maxRetryAfterMs: 400,
      pushEndpoints: { allowLoopback: true },
    });
    const harness = new RelayHarness(relay.store, { push: capped, vapidPublicKey, allowLoopbackPush: true });
    try {
      const owner = await harness.enroll();
      const phone = await harness.pair(owner, {
        push_subscription: new Subscriber(`${service.base}/push/busy`).toJSON(),
      });
      service.statuses.push(
        // An HTTP date two seconds ahead (whole seconds: one to two from now), and one past setTimeout's limit
        // (2^31-1 ms), which would fire at once and make every 429 an immediate retry.
        { status: 429, headers: { "retry-after": new Date(Date.now() + 2000).toUTCString() } },
        { status: 429, headers: { "retry-after": "2147484" } },
      );
      await harness.postEnvelope(owner, envelopeFor(owner, [phone.device_id]));
      await service.received(3);
      const [first, second, third] = service.deliveries.map((delivery) => delivery.at) as [number, number, number];
      // Each waited the 400 ms cap, not the 10 ms backoff (the date was ignored once) and not zero.
      expect(second - first).toBeGreaterThanOrEqual(350);
      expect(third - second).toBeGreaterThanOrEqual(350);
      expect(third - second).toBeLessThan(5000);
    } finally {
      await capped.close();
    }
  });

  it("a hanging push service never slows the envelope POST", async () => {
    const { device } = await pairWithPush("/push/slow");
    service.hold = true;
    const started = performance.now();
    const posted = await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id]));
    expect(posted.status).toBe(201);
    expect(performance.now() - started).toBeLessThan(400);
    await service.received(1);
  });

  it("VAPID keys are generated into the data dir once (mode 0600) and reused", () => {
    expect(loadVapidKeys(dir.path)).toEqual(loadVapidKeys(dir.path));
    expect(loadVapidKeys(dir.path).publicKey).toBe(vapidPublicKey);
    expect(statSync(join(dir.path, "vapid.json")).mode & 0o777).toBe(0o600);
  });
});
