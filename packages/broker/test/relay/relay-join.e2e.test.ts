// Issue 37, item 2: several machines, one phone. Two brokers on this machine stand for two machines: the first enrolls
// and makes a join code (`notify relay pair --join`), the second joins with it (`notify relay join URL CODE`); both
// list the same machines and the same phone, and `notify relay leave` removes the second only (docs/relay.md).
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { x25519Jwk } from "@notify/test-kit/relay-harness";
import { describe, expect, it } from "vitest";
import { type CliResult, cliEnv, runCli } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";
import { liveBroker } from "./broker-client.js";
import { startRelay } from "./relay-harness.js";

type Live = Awaited<ReturnType<typeof liveBroker>>;

function notify(live: Live, args: string[]): Promise<CliResult> {
  const env = cliEnv({ NOTIFY_DATA_DIR: live.dataDir, NOTIFY_TOKEN: live.broker.settings.authToken });
  return runCli([...args, "--port", String(live.broker.port)], env);
}

describe("notify relay pair --join / join / machines / leave (issue 37, item 2)", () => {
  // Seven CLI runs: each starts a Node process, about 3 s apiece on a loaded 2-core machine.
  it("a second machine joins the first one's owner, shares its phone, and leaves alone", {
    timeout: 90_000,
  }, async () => {
    const relay = await startRelay();
    const laptop = await liveBroker(tempDir());
    const desktop = await liveBroker(tempDir());
    try {
      expect((await notify(laptop, ["relay", "enroll", relay.url, "--enrollment-token", ENROLLMENT_TOKEN])).code).toBe(
        0,
      );
      const { code: pairCode } = JSON.parse((await notify(laptop, ["relay", "pair", "--json"])).stdout);
      const claim = await relay.request({
        url: "/v1/pairings/claim",
        body: { code: pairCode, device_name: "Pixel", public_key: x25519Jwk() },
      });
      expect(claim.status).toBe(201);
      const phone = claim.json() as { device_id: string; token: string };

      const join = JSON.parse((await notify(laptop, ["relay", "pair", "--join", "--json"])).stdout);
      expect(join).toEqual({
        code: expect.stringMatching(/^[0-9A-Z]{10}$/),
        url: relay.url,
        expires_at: expect.any(String),
        command: `notify relay join ${relay.url} ${join.code}`,
      });

      const joined = await notify(desktop, ["relay", "join", relay.url, join.code]);
      expect(joined.code, joined.stderr).toBe(0);
      expect(joined.stdout).toContain("Joined");
      // The code worked once.
      const again = await desktop.call("POST", "/ui/api/relay/join", {
        url: relay.url,
        code: join.code,
        name: "second",
      });
      expect(again.status).toBe(400);
      expect(JSON.stringify(again.body)).toContain("the join code is unknown, used or expired");
      // Joining again under the same name would orphan this installation at the relay: refused before any call.
      const over = await desktop.call("POST", "/ui/api/relay/join", { url: relay.url, code: "ABCDEFGHJK" });
      expect(over.status).toBe(400);
      expect(JSON.stringify(over.body)).toContain("this machine is already enrolled as relay");

      // Both machines see the same phone, and list each other.
      for (const live of [laptop, desktop]) {
        const { devices } = (await live.call("GET", "/ui/api/relay/devices")).body as {
          devices: { device_id: string }[];
        };
        expect(devices.map((device) => device.device_id)).toEqual([phone.device_id]);
      }
      const machines = JSON.parse((await notify(desktop, ["relay", "machines", "--json"])).stdout).machines;
      expect(machines).toHaveLength(2);
      expect(machines.filter((machine: { this: boolean }) => machine.this)).toHaveLength(1);
      expect(machines.every((machine: { name: string }) => typeof machine.name === "string")).toBe(true);

      // The desktop leaves: gone at the relay and here; the phone stays for the laptop.
      const left = await notify(desktop, ["relay", "leave", "--json"]);
      expect(left.code, left.stderr).toBe(0);
      expect(JSON.parse(left.stdout).deleted).toEqual({ devices: 0, answers: 0, envelopes: 0, pairings: 0 });
      const table = await notify(laptop, ["relay", "machines"]);
      expect(table.stdout.trim().split("\n")).toHaveLength(2);
      expect(table.stdout).toMatch(/^\*\s/m);
      const device = await relay.request({ url: "/v1/device", headers: { authorization: `Bearer ${phone.token}` } });
      expect(device.status).toBe(200);
      expect((await desktop.call("GET", "/ui/api/outbound/providers")).body).toEqual([]);
    } finally {
      await laptop.close();
      await desktop.close();
    }
  });
});
