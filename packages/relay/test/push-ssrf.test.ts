/**
 * Issue 21, item 2: a relay told to push to the network it runs in. Push endpoints on loopback, private,
 * link-local, CGNAT, ULA, metadata, unspecified and multicast addresses (and the IPv6 forms that carry such an IPv4
 * address) are refused when set, on every route that sets one; a name that resolves there is refused when the push
 * connects (DNS rebinding); no redirect is followed; loopback only under the operator's switch.
 */
import type { LookupAddress } from "node:dns";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clientKey, nonPublicReason, parseIp } from "../src/domain/ip.js";
import type { RelayLogger } from "../src/log.js";
import { loadVapidKeys } from "../src/push/vapid.js";
import { WebPushSender } from "../src/push/web-push-sender.js";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { FORBIDDEN_HOSTS } from "./address-classes.js";
import { type Enrolled, envelopeFor, RelayHarness, tempDir, x25519Jwk } from "./helpers.js";
import { call, spawnRelay } from "./processes.js";
import { PushService, Subscriber } from "./push-service.js";

const P256DH = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM";
const subscriptionFor = (endpoint: string) => ({ endpoint, keys: { p256dh: P256DH, auth: "tBHItJI5svbpez7KI4CCXg" } });

const collecting = (): RelayLogger & { lines: string[] } => {
  const lines: string[] = [];
  return {
    lines,
    info: (line) => lines.push(line),
    warn: (line) => lines.push(line),
    error: (line) => lines.push(line),
  };
};

describe("address classes", () => {
  it.each([
    ["127.0.0.1", "a loopback"],
    ["::1", "a loopback"],
    ["::ffff:127.0.0.1", "a loopback"],
    ["10.0.0.1", "a private (10/8)"],
    ["172.16.5.4", "a private (172.16/12)"],
    ["192.168.0.1", "a private (192.168/16)"],
    ["169.254.169.254", "a link-local or metadata (169.254/16)"],
    ["fe80::abcd%eth0", "a link-local (fe80::/10)"],
    ["100.64.1.1", "a shared CGNAT (100.64/10)"],
    ["fd00:ec2::254", "a unique-local or metadata (fc00::/7)"],
    ["0.0.0.0", "an unspecified (0.0.0.0/8)"],
    ["::", "an unspecified (::)"],
    ["ff05::2", "a multicast"],
    ["::ffff:169.254.169.254", "a link-local or metadata (169.254/16)"],
    ["64:ff9b::10.1.1.1", "a private (10/8)"],
  ])("%s is %s address", (address, reason) => {
    const ip = parseIp(address);
    expect(ip).toBeDefined();
    expect(ip && nonPublicReason(ip)).toBe(reason);
  });

  it.each(["8.8.8.8", "172.32.0.1", "100.128.0.1", "169.255.0.1", "2606:4700:4700::1111", "::ffff:1.1.1.1"])(
    "%s is public",
    (address) => {
      const ip = parseIp(address);
      expect(ip).toBeDefined();
      expect(ip && nonPublicReason(ip)).toBeUndefined();
    },
  );

  it("rate limits key IPv6 by /64 and IPv4-mapped IPv6 as IPv4 (item 12)", () => {
    expect(clientKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8:1:2:ffff::1")).toBe(clientKey("2001:db8:1:2::9"));
    expect(clientKey("2001:db8:1:3::1")).not.toBe(clientKey("2001:db8:1:2::1"));
    expect(clientKey("2001:0db8:0001:0002::")).toBe("2001:db8:1:2::/64");
    expect(clientKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("::ffff:cb00:7109")).toBe("203.0.113.9");
    expect(clientKey("203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
    expect(clientKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientKey("not an address")).toBe("not an address");
  });
});

describe("push endpoints are refused when set", () => {
  let relay: ReturnType<typeof RelayHarness.sqlite>;
  let installation: Enrolled;
  beforeEach(async () => {
    relay = RelayHarness.sqlite();
    installation = await relay.enroll();
  });
  afterEach(async () => relay.close());

  it.each(FORBIDDEN_HOSTS)(
    "claim with an endpoint on %s (%s): 400, nothing stored, the code survives",
    async (host) => {
      const { code } = await relay.pairCode(installation);
      const claim = (push_subscription?: unknown) =>
        relay.request({
          url: "/v1/pairings/claim",
          body: { code, device_name: "p", public_key: x25519Jwk(), push_subscription },
        });
      const refused = await claim(subscriptionFor(`https://${host}/push/abc`));
      expect(refused.status).toBe(400);
      expect(refused.json().error.code).toBe("invalid_request");
      expect(refused.json().error.message).toMatch(/^push_subscription endpoint must/);
      // The endpoint (a capability) is not echoed.
      expect(refused.text).not.toContain("/push/abc");
      expect(await relay.store.read((tx) => tx.listDevices())).toHaveLength(0);
      expect((await claim()).status).toBe(201);
    },
  );

  it.each(FORBIDDEN_HOSTS)("PUT /v1/device/push-subscription on %s (%s): 400, the old one kept", async (host) => {
    const device = await relay.pair(installation, {
      push_subscription: subscriptionFor("https://push.example.test/good"),
    });
    const reply = await relay.request({
      method: "PUT",
      url: "/v1/device/push-subscription",
      headers: { authorization: `Bearer ${device.token}` },
      body: { push_subscription: subscriptionFor(`https://${host}/x`) },
    });
    expect(reply.status).toBe(400);
    expect(reply.json().error.code).toBe("invalid_request");
    const stored = await relay.store.read((tx) => tx.deviceById(device.device_id));
    expect(stored?.pushSubscription).toContain("https://push.example.test/good");
  });

  it("plain http is refused everywhere without the switch, even to a loopback literal", async () => {
    const { code } = await relay.pairCode(installation);
    for (const endpoint of ["http://127.0.0.1:9/x", "http://push.example.test/x", "http://[::1]:9/x"]) {
      const reply = await relay.request({
        url: "/v1/pairings/claim",
        body: { code, device_name: "p", public_key: x25519Jwk(), push_subscription: subscriptionFor(endpoint) },
      });
      expect(reply.status, endpoint).toBe(400);
    }
  });

  it("a public https endpoint (name or public literal) is accepted", async () => {
    for (const endpoint of [
      "https://fcm.googleapis.com/fcm/send/abc",
      "https://8.8.8.8/x",
      "https://[2606:4700::1111]/x",
    ]) {
      await relay.pair(installation, { push_subscription: subscriptionFor(endpoint) });
    }
  });

  it("with the loopback switch: loopback (and http to a loopback literal) passes, private stays refused", async () => {
    await relay.close();
    relay = RelayHarness.sqlite({ allowLoopbackPush: true });
    installation = await relay.enroll();
    for (const endpoint of [
      "http://127.0.0.1:9/x",
      "http://[::1]:9/x",
      "http://localhost:9/x",
      "https://127.0.0.2/x",
    ]) {
      await relay.pair(installation, { push_subscription: subscriptionFor(endpoint) });
    }
    const { code } = await relay.pairCode(installation);
    for (const endpoint of [
      "https://10.0.0.1/x",
      "http://10.0.0.1/x",
      "https://169.254.169.254/x",
      "http://127.0.0.2/x",
    ]) {
      const reply = await relay.request({
        url: "/v1/pairings/claim",
        body: { code, device_name: "p", public_key: x25519Jwk(), push_subscription: subscriptionFor(endpoint) },
      });
      expect(reply.status, endpoint).toBe(400);
    }
  });
});

describe("push endpoints are checked again when the push connects", () => {
  let service: PushService;
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteStore;
  let logger: ReturnType<typeof collecting>;
  let senders: WebPushSender[];

  beforeEach(async () => {
    service = new PushService();
    await service.start();
    dir = tempDir();
    store = new SqliteStore(join(dir.path, "relay.db"));
    logger = collecting();
    senders = [];
  });
  afterEach(async () => {
    for (const sender of senders) await sender.close();
    await store.close();
    await service.stop();
    dir.remove();
  });

  const sender = (allowLoopback: boolean, resolve?: (host: string) => Promise<LookupAddress[]>) => {
    const made = new WebPushSender({
      vapid: { ...loadVapidKeys(dir.path), subject: "mailto:ops@example.test" },
      store,
      logger,
      timeoutMs: 2000,
      retryDelaysMs: [10, 10],
      pushEndpoints: { allowLoopback },
      ...(resolve ? { resolve } : {}),
    });
    senders.push(made);
    return made;
  };

  const port = () => new URL(service.base).port;

  it.each([
    ["127.0.0.1", 4],
    ["::ffff:127.0.0.1", 6],
    ["::1", 6],
  ] as const)(
    "DNS rebinding: a public-looking name that now resolves to %s is never connected to",
    async (address, family) => {
      const resolve = async (host: string) => {
        expect(host).toBe("rebind.example.test");
        return [{ address, family }];
      };
      const push = sender(false, resolve);
      const subscriber = new Subscriber(`https://rebind.example.test:${port()}/push/rebound`);
      push.wake("dev_1", JSON.stringify(subscriber.toJSON()), { envelope_id: "env_1", version: "1" });
      await push.idle();
      expect(service.connections).toBe(0);
      expect(logger.lines.join("\n")).toMatch(/push to dev_1 at rebind\.example\.test:\d+ refused: .*loopback address/);
      // Never the endpoint's path (a capability).
      expect(logger.lines.join("\n")).not.toContain("/push/rebound");
    },
  );

  it("a name resolving to a mix of public and private addresses is refused whole", async () => {
    const push = sender(false, async () => [
      { address: "93.184.215.14", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ]);
    push.wake("dev_2", JSON.stringify(new Subscriber(`https://mixed.example.test:${port()}/x`).toJSON()), {
      envelope_id: "env_1",
      version: "1",
    });
    await push.idle();
    expect(service.connections).toBe(0);
    expect(logger.lines.join("\n")).toContain("refused");
  });

  it("with the switch, a name resolving to loopback is reached, and a redirect is not followed", async () => {
    const push = sender(true, async () => [{ address: "127.0.0.1", family: 4 }]);
    service.redirectTo = `${service.base}/elsewhere`;
    const subscriber = new Subscriber(`http://localhost:${port()}/push/first`);
    push.wake("dev_3", JSON.stringify(subscriber.toJSON()), { envelope_id: "env_1", version: "1" });
    await push.idle();
    expect(service.deliveries.map((delivery) => delivery.path)).toEqual(["/push/first"]);
    expect(logger.lines.join("\n")).toContain("failed (307)");
  });

  it("a subscription stored before the rule (or under a switch now off) is not sent", async () => {
    const push = sender(false);
    push.wake("dev_4", JSON.stringify(new Subscriber(`${service.base}/push/old`).toJSON()), {
      envelope_id: "env_1",
      version: "1",
    });
    await push.idle();
    expect(service.connections).toBe(0);
    expect(logger.lines.join("\n")).toContain("not sent: the endpoint must be https");
  });
});

describe("the operator switch on a real relay process", () => {
  let service: PushService;
  const dirs: ReturnType<typeof tempDir>[] = [];
  beforeEach(async () => {
    service = new PushService();
    await service.start();
  });
  afterEach(async () => {
    await service.stop();
    for (const dir of dirs.splice(0)) dir.remove();
  });

  const pairOn = async (env: Record<string, string>, endpoint: string) => {
    const dir = tempDir();
    dirs.push(dir);
    const relay = await spawnRelay({ dataDir: dir.path, env: { RELAY_ENROLLMENT_TOKEN: "nre_switch-test", ...env } });
    try {
      const enrolled = await call(relay.url, "POST", "/v1/installations", "nre_switch-test", {});
      const pairing = await call(relay.url, "POST", "/v1/pairings", enrolled.json.token, {});
      const subscriber = new Subscriber(endpoint);
      const claim = await call(relay.url, "POST", "/v1/pairings/claim", undefined, {
        code: pairing.json.code,
        device_name: "p",
        public_key: x25519Jwk(),
        push_subscription: subscriber.toJSON(),
      });
      if (claim.status === 201) {
        const installation = { ...enrolled.json } as Enrolled;
        const posted = await call(
          relay.url,
          "POST",
          "/v1/envelopes",
          installation.token,
          envelopeFor(installation, [claim.json.device_id]),
        );
        expect(posted.status).toBe(201);
        await service.received(1);
      }
      return { claim, stderr: relay.stderr() };
    } finally {
      await relay.stop();
    }
  };

  it("off by default: a loopback push service is refused at pairing", async () => {
    const { claim } = await pairOn({}, `${service.base}/push/a`);
    expect(claim.status).toBe(400);
    expect(claim.json.error.message).toContain("push_subscription endpoint must be https");
    expect(service.connections).toBe(0);
  }, 60_000);

  it("RELAY_ALLOW_LOOPBACK_PUSH=1 lets a test's loopback push service be paired and woken", async () => {
    const { claim, stderr } = await pairOn({ RELAY_ALLOW_LOOPBACK_PUSH: "1" }, `${service.base}/push/b`);
    expect(claim.status).toBe(201);
    expect(service.deliveries.map((delivery) => delivery.path)).toEqual(["/push/b"]);
    expect(stderr).toContain("loopback are accepted (test switch)");
  }, 60_000);
});
