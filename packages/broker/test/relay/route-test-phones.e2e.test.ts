// Issue 37, item 5: `notify test` on a relay route says whether the paired phones can be reached by push. A phone
// without a push subscription learns of a question only when its app is open, so the route is reported failed with
// the fix; once the phone registers a subscription the same test passes. A real relay (SQLite, loopback).
import { describe, expect, it } from "vitest";
import { pairPhone, relayBroker, startRelay, UI } from "./relay-harness.js";

type Hop = { hop: string; status: string; detail: string; fix?: string };
type Report = { routes: { route: string; kind: string; status: string; hops: Hop[] }[] };

describe("notify test on a relay route (issue 37, item 5)", () => {
  it("fails the phones hop while no phone has a push subscription, passes once one has", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll("laptop");
    const broker = await relayBroker(relay.url, installation);
    try {
      const test = async () => {
        const reply = await broker.call("POST", "/ui/api/outbound/test", { route: "questions" }, UI);
        expect(reply.status).toBe(200);
        return (reply.body as Report).routes[0];
      };

      const none = await test();
      expect(none?.hops.find((hop) => hop.hop === "phones")).toMatchObject({
        status: "fail",
        detail: "no phone is paired",
        fix: "no phone is paired: pair one with `notify relay pair` and open the app",
      });

      const phone = await pairPhone(relay, installation, "Pixel");
      // Paired at the relay, not through the broker: the test reads the device list fresh, and seals to it.
      const silent = await test();
      expect(silent).toMatchObject({ kind: "relay", status: "fail" });
      expect(silent?.hops.find((hop) => hop.hop === "send")).toMatchObject({ status: "ok" });
      expect(silent?.hops.find((hop) => hop.hop === "phones")).toEqual({
        hop: "phones",
        status: "fail",
        ms: expect.any(Number),
        detail: "Pixel: no push subscription",
        fix: "phone has no push subscription: open the app and turn on notifications",
      });

      const subscribed = await relay.request({
        method: "PUT",
        url: "/v1/device/push-subscription",
        headers: { authorization: `Bearer ${phone.token}` },
        body: {
          push_subscription: {
            endpoint: "https://push.example.test/pixel",
            keys: {
              p256dh: Buffer.alloc(65, 4).toString("base64url"),
              auth: Buffer.alloc(16, 1).toString("base64url"),
            },
          },
        },
      });
      expect(subscribed.status).toBe(204);
      const reachable = await test();
      expect(reachable?.hops.find((hop) => hop.hop === "phones")).toMatchObject({ status: "ok", detail: "Pixel" });
      // Never the installation's or the phone's token in the report.
      const text = JSON.stringify([none, silent, reachable]);
      expect(text).not.toContain(installation.token);
      expect(text).not.toContain(phone.token);
    } finally {
      await broker.close();
    }
  });
});
