// docs/relay.md, "Commands": notify relay enroll URL --enrollment-token T (provider and route enabled),
// notify relay pair [--json] (code, link, a QR code drawn in the terminal), notify relay devices, notify relay
// revoke DEVICE_ID; against the real relay (in-process, loopback) and a real broker.
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { type CliResult, cliEnv, runCli } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";
import { liveBroker } from "./broker-client.js";
import { startRelay } from "./relay-harness.js";

/** The CLI against `live`'s broker, as a person's shell with its data dir and token in the environment would run it. */
function notify(live: Awaited<ReturnType<typeof liveBroker>>, args: string[]): Promise<CliResult> {
  const env = cliEnv({ NOTIFY_DATA_DIR: live.dataDir, NOTIFY_TOKEN: live.broker.settings.authToken });
  return runCli([...args, "--port", String(live.broker.port)], env);
}

describe("notify relay enroll|pair|devices|revoke", () => {
  it("enrolls, pairs a phone by the printed code, lists and revokes it", async () => {
    const relay = await startRelay();
    const live = await liveBroker(tempDir());
    try {
      const before = await notify(live, ["relay", "pair"]);
      expect(before.code).toBe(1);
      expect(before.stderr).toContain("no relay is configured");

      const refused = await notify(live, ["relay", "enroll", relay.url, "--enrollment-token", "nre_wrong"]);
      expect(refused).toMatchObject({ code: 1 });
      expect(refused.stderr).toContain("the relay answered HTTP 401");

      const enrolled = await notify(live, ["relay", "enroll", relay.url, "--enrollment-token", ENROLLMENT_TOKEN]);
      expect(enrolled.code).toBe(0);
      expect(enrolled.stdout).toMatch(/enrolled at http:\/\/127\.0\.0\.1:\d+ as installation ins_/);
      const providers = await live.call("GET", "/ui/api/outbound/providers");
      expect(providers.body).toEqual([
        expect.objectContaining({ kind: "relay", name: "relay", enabled: true, secretNames: ["installationToken"] }),
      ]);
      const routes = await live.call("GET", "/ui/api/outbound/routes");
      expect(routes.body).toEqual([expect.objectContaining({ name: "relay", enabled: true, includeMessage: true })]);
      // The token stays in the broker: not on stdout, not in a listing.
      expect(JSON.stringify(providers.body)).not.toContain("nri_");
      expect(enrolled.stdout).not.toContain("nri_");

      const json = await notify(live, ["relay", "pair", "--json"]);
      expect(json.code).toBe(0);
      const pairing = JSON.parse(json.stdout) as { code: string; link: string; expires_at: string };
      expect(pairing.link).toBe(`https://relay.example.test/app/#pair=${pairing.code}`);

      const drawn = await notify(live, ["relay", "pair"]);
      expect(drawn.code).toBe(0);
      expect(drawn.stdout).toMatch(/[▀▄█]/); // the QR code, drawn with half blocks
      expect(drawn.stdout).toContain("/app/#pair=");

      const claim = await relay.request({
        url: "/v1/pairings/claim",
        body: {
          code: pairing.code,
          device_name: "Pixel 9",
          public_key: { kty: "OKP", crv: "X25519", x: "hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo" },
        },
      });
      expect(claim.status).toBe(201);
      const device = claim.json() as { device_id: string; token: string };
      const listed = await notify(live, ["relay", "devices"]);
      expect(listed.stdout).toContain(device.device_id);
      expect(listed.stdout).toContain("Pixel 9");
      const listedJson = JSON.parse((await notify(live, ["relay", "devices", "--json"])).stdout);
      // `push`: the relay holds no push subscription for it yet (the phone turns notifications on in its app).
      expect(listedJson).toEqual([{ device_id: device.device_id, device_name: "Pixel 9", push: false }]);

      const revoked = await notify(live, ["relay", "revoke", device.device_id]);
      expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${device.device_id}\n` });
      const after = await relay.request({ url: "/v1/device", headers: { authorization: `Bearer ${device.token}` } });
      expect(after.status).toBe(401);
      expect((await notify(live, ["relay", "revoke", device.device_id])).code).toBe(1);
      expect((await notify(live, ["relay", "devices"])).stderr).toContain("no paired devices");
    } finally {
      await live.close();
    }
  });
});
