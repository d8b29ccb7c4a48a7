import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir, x25519Jwk } from "./helpers.js";
import { call, spawnRelay } from "./processes.js";

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } });

/** docs/relay.md, "Running": the `notify-relay` commands, flags and environment variables. */
describe("notify-relay CLI", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  it("enrollment-token generates the token into the data dir once (0600) and prints it", async () => {
    const first = (await cli(["enrollment-token", "--data-dir", dir.path])).stdout.trim();
    expect(first).toMatch(/^nre_[A-Za-z0-9_-]{43}$/);
    expect((await cli(["enrollment-token"], { RELAY_DATA_DIR: dir.path })).stdout.trim()).toBe(first);
    expect(readFileSync(join(dir.path, "enrollment-token"), "utf8").trim()).toBe(first);
    expect(statSync(join(dir.path, "enrollment-token")).mode & 0o777).toBe(0o600);
    const fromEnv = await cli(["enrollment-token", "--data-dir", dir.path], { RELAY_ENROLLMENT_TOKEN: "nre_operator" });
    expect(fromEnv.stdout.trim()).toBe("nre_operator");
  });

  it("serve honours RELAY_PORT, RELAY_HOST and RELAY_PUBLIC_URL; installations and devices list what enrolled", async () => {
    const relay = await spawnRelay({
      dataDir: dir.path,
      env: { RELAY_PUBLIC_URL: "https://relay.example.test/", RELAY_ENROLLMENT_TOKEN: "nre_operator_token_123" },
    });
    try {
      expect(relay.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const installation = (
        await call(relay.url, "POST", "/v1/installations", "nre_operator_token_123", { name: "desk" })
      ).json;
      const pairing = (await call(relay.url, "POST", "/v1/pairings", installation.token, {})).json;
      expect(pairing.link).toBe(`https://relay.example.test/app/#pair=${pairing.code}`);
      const phone = (
        await call(relay.url, "POST", "/v1/pairings/claim", undefined, {
          code: pairing.code,
          device_name: "Pixel 9",
          public_key: x25519Jwk(),
        })
      ).json;

      const installations = JSON.parse((await cli(["installations", "--data-dir", dir.path, "--json"])).stdout);
      expect(installations).toEqual([
        {
          installation_id: installation.installation_id,
          owner_id: installation.owner_id,
          name: "desk",
          devices: 1,
          created_at: expect.any(String),
        },
      ]);
      const table = (await cli(["devices", "--data-dir", dir.path])).stdout;
      expect(table).toContain(phone.device_id);
      expect(table).toContain("Pixel 9");
      // The listing never shows a credential.
      expect(table).not.toContain(phone.token);
      expect(relay.stderr()).not.toContain(installation.token);
      expect(relay.stderr()).not.toContain(pairing.code);
    } finally {
      await relay.stop();
    }
  });

  it("serve --port wins over RELAY_PORT; a bad port exits 2 with a message", async () => {
    const failed = await cli(["serve", "--data-dir", dir.path, "--port", "99999"]).catch((error) => error);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain("--port must be a port");
    const badEnv = await cli(["serve", "--data-dir", dir.path], { RELAY_PORT: "http" }).catch((error) => error);
    expect(badEnv.code).toBe(2);
    const relay = await spawnRelay({ dataDir: dir.path, env: { RELAY_PORT: "1" } });
    expect(relay.url).not.toMatch(/:1$/);
    await relay.stop();
    expect(relay.child.exitCode, `${relay.child.signalCode} ${relay.stderr()}`).toBe(0);
  });

  // Issue 33: --optimize-for-size kept held polls' memory down but cost the answer path about 20% of its CPU; a capped
  // young generation keeps the memory (bench/README.md, Relay). V8 reads the cap only at start, so serve restarts
  // itself with it, in place: the pid a supervisor started is the relay.
  it.skipIf(process.platform !== "linux")(
    "serve runs with V8's young generation capped, in the process it was started as; RELAY_V8_SIZE=off leaves V8's defaults",
    async () => {
      const nodeFlags = (pid: number | undefined) =>
        readFileSync(`/proc/${pid}/cmdline`, "utf8")
          .split("\0")
          .filter((arg) => arg.startsWith("--max-semi-space"));
      const capped = await spawnRelay({ dataDir: dir.path });
      try {
        expect(nodeFlags(capped.child.pid)).toEqual(["--max-semi-space-size=8"]);
        expect((await call(capped.url, "GET", "/healthz")).status).toBe(200);
      } finally {
        await capped.stop();
      }
      expect(capped.child.exitCode, capped.stderr()).toBe(0);
      expect(capped.stderr()).not.toContain("ExperimentalWarning");
      const defaults = await spawnRelay({ dataDir: dir.path, env: { RELAY_V8_SIZE: "off" } });
      try {
        expect(nodeFlags(defaults.child.pid)).toEqual([]);
      } finally {
        await defaults.stop();
      }
    },
  );
});
