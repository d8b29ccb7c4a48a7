// Issue 21, item 5: the relay's data directory holds the enrollment token, the VAPID private key and the database
// (sealed envelopes, answers, token hashes). It followed the umask (0755/0644). Hostile re-run: the relay started
// under umask 022 and 077, into a new directory and into one that already existed at 0755 with a 0644 database;
// after a pairing, an envelope and an answer (so -wal and -shm exist), every file is 0600 and the directory 0700.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir, x25519Jwk } from "./helpers.js";
import { call, type RelayProcess, spawnRelay } from "./processes.js";

const open: Array<{ relay?: RelayProcess; dir: ReturnType<typeof tempDir> }> = [];
afterEach(async () => {
  for (const { relay, dir } of open.splice(0)) {
    await relay?.stop();
    dir.remove();
  }
});

/** Every entry of `dir` with its permission bits, e.g. {"relay.db": 0o600}. */
function modes(dir: string): Record<string, number> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mode & 0o777]));
}

async function exercise(relay: RelayProcess, dataDir: string): Promise<void> {
  const token = readFileSync(join(dataDir, "enrollment-token"), "utf8").trim();
  const installation = (await call(relay.url, "POST", "/v1/installations", token, { name: "desk" })).json;
  const pairing = (await call(relay.url, "POST", "/v1/pairings", installation.token, {})).json;
  const claimed = await call(relay.url, "POST", "/v1/pairings/claim", undefined, {
    code: pairing.code,
    device_name: "Pixel",
    public_key: x25519Jwk(),
  });
  expect(claimed.status).toBe(201);
}

describe("the relay's data directory is private whatever the umask (issue 21, item 5)", () => {
  for (const [umask, existing] of [
    ["022", false],
    ["077", false],
    ["022", true],
  ] as const) {
    it(`umask ${umask}, ${existing ? "a directory that existed at 0755 with a 0644 database" : "a new directory"}`, async () => {
      const dir = tempDir();
      const dataDir = join(dir.path, "relay-data");
      open.push({ dir });
      if (existing) {
        mkdirSync(dataDir, { mode: 0o755 });
        chmodSync(dataDir, 0o755);
        const first = await spawnRelay({ dataDir, umask: "022" });
        await first.stop();
        for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);
        chmodSync(dataDir, 0o755);
      }
      const relay = await spawnRelay({ dataDir, umask });
      (open.at(-1) as { relay?: RelayProcess }).relay = relay;
      await exercise(relay, dataDir);
      // The enrollment token and VAPID keys are generated into the data dir when not given.
      const files = modes(dataDir);
      expect(Object.keys(files)).toEqual(expect.arrayContaining(["relay.db", "vapid.json", "enrollment-token"]));
      expect(Object.keys(files).some((name) => name.endsWith("-wal"))).toBe(true);
      for (const [name, mode] of Object.entries(files)) expect([name, mode.toString(8)]).toEqual([name, "600"]);
      expect((statSync(dataDir).mode & 0o777).toString(8)).toBe("700");
    });
  }
});
