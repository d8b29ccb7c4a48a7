// Issue 32, item 5: `notify relay unenroll` deletes the installation and its phone pairings at the relay, then the
// relay provider and its routes here; a relay that no longer knows the installation (401) counts as already gone.
import { ENROLLMENT_TOKEN } from "@notify/test-kit";
import { x25519Jwk } from "@notify/test-kit/relay-harness";
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

describe("notify relay unenroll", () => {
  it("deletes the installation and its phone at the relay, then the provider and route here", async () => {
    const relay = await startRelay();
    const live = await liveBroker(tempDir());
    try {
      expect((await notify(live, ["relay", "enroll", relay.url, "--enrollment-token", ENROLLMENT_TOKEN])).code).toBe(0);
      const { code } = JSON.parse((await notify(live, ["relay", "pair", "--json"])).stdout) as { code: string };
      const claim = await relay.request({
        url: "/v1/pairings/claim",
        body: { code, device_name: "Pixel", public_key: x25519Jwk() },
      });
      expect(claim.status).toBe(201);
      const phone = claim.json() as { token: string };
      const [installation] = await relay.store.read((tx) => tx.listInstallations());

      const result = await notify(live, ["relay", "unenroll", "--json"]);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        url: relay.url,
        installation_id: installation?.id,
        deleted: { devices: 1, answers: 0, envelopes: 0, pairings: 0 },
        provider: "relay",
        routes: ["relay"],
      });
      expect(await relay.store.read((tx) => tx.listInstallations())).toEqual([]);
      expect(await relay.store.read((tx) => tx.listDevices())).toEqual([]);
      const after = await relay.request({ url: "/v1/device", headers: { authorization: `Bearer ${phone.token}` } });
      expect(after.status).toBe(401);
      expect((await live.call("GET", "/ui/api/outbound/providers")).body).toEqual([]);
      expect((await live.call("GET", "/ui/api/outbound/routes")).body).toEqual([]);

      const again = await notify(live, ["relay", "unenroll"]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("no relay is configured");
    } finally {
      await live.close();
    }
  });

  it("a relay that no longer knows the installation (401): the local part still runs and says so", async () => {
    const relay = await startRelay();
    const live = await liveBroker(tempDir());
    try {
      expect((await notify(live, ["relay", "enroll", relay.url, "--enrollment-token", ENROLLMENT_TOKEN])).code).toBe(0);
      const [installation] = await relay.store.read((tx) => tx.listInstallations());
      await relay.store.transaction((tx) => tx.deleteInstallation(installation?.id ?? ""));

      const result = await notify(live, ["relay", "unenroll"]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(
        `unenrolled from ${relay.url}: installation ${installation?.id} was already unknown to the relay\n` +
          "removed relay provider relay and route(s) relay\n",
      );
      expect((await live.call("GET", "/ui/api/outbound/providers")).body).toEqual([]);
    } finally {
      await live.close();
    }
  });

  it("a relay that cannot be reached: exit 1, nothing removed here", async () => {
    const relay = await startRelay();
    const live = await liveBroker(tempDir());
    try {
      expect((await notify(live, ["relay", "enroll", relay.url, "--enrollment-token", ENROLLMENT_TOKEN])).code).toBe(0);
      relay.app.server.closeAllConnections();
      await relay.app.close();
      const result = await notify(live, ["relay", "unenroll"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("the relay cannot be reached");
      expect((await live.call("GET", "/ui/api/outbound/providers")).body).toEqual([
        expect.objectContaining({ kind: "relay", name: "relay" }),
      ]);
    } finally {
      await live.close();
    }
  });
});
