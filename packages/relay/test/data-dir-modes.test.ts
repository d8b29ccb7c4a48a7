/**
 * Issue 21, item 5 (relay part): the data directory and its files (relay.db with -wal and -shm, vapid.json,
 * enrollment-token) followed the umask (0755/0644) and hold answers, nonces and secrets. Real relay processes and
 * CLI commands under umask 022 and 077, in a fresh directory and in one that already existed wider, and every file
 * is stat'ed.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";
import { call, spawnRelay } from "./processes.js";

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

/** Every entry under `dir` (the dir itself included) with its permission bits. */
function modes(dir: string): Record<string, string> {
  const found: Record<string, string> = { ".": (statSync(dir).mode & 0o777).toString(8) };
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    found[name] = (statSync(join(dir, name)).mode & 0o777).toString(8);
  }
  return found;
}

const expectPrivate = (dir: string, expected: string[]) => {
  const found = modes(dir);
  for (const name of expected) expect(Object.keys(found), `${name} in ${dir}`).toContain(name);
  for (const [name, mode] of Object.entries(found)) {
    expect(mode, `${name} is ${mode}`).toBe(name === "." ? "700" : "600");
  }
};

describe.each(["022", "077"])("data dir modes under umask %s", (umask) => {
  const temps: ReturnType<typeof tempDir>[] = [];
  afterEach(() => {
    for (const temp of temps.splice(0)) temp.remove();
  });
  const scratch = () => {
    const temp = tempDir();
    temps.push(temp);
    return temp.path;
  };

  const exercise = async (dataDir: string) => {
    const relay = await spawnRelay({ dataDir, umask, env: { RELAY_ENROLLMENT_TOKEN: "" } });
    try {
      const token = readFileSync(join(dataDir, "enrollment-token"), "utf8").trim();
      const enrolled = await call(relay.url, "POST", "/v1/installations", token, { name: "modes" });
      expect(enrolled.status).toBe(201);
      expect((await call(relay.url, "POST", "/v1/pairings", enrolled.json.token, {})).status).toBe(201);
      // While it runs: the WAL and its index exist and are private too.
      expectPrivate(dataDir, ["relay.db", "relay.db-wal", "relay.db-shm", "vapid.json", "enrollment-token"]);
    } finally {
      await relay.stop();
    }
    expectPrivate(dataDir, ["relay.db", "vapid.json", "enrollment-token"]);
  };

  it("a fresh (nested) data dir: 0700, every file 0600", async () => {
    await exercise(join(scratch(), "nested", "relay-data"));
  }, 60_000);

  it("a data dir that already existed 0755 with files an older relay left 0644 is tightened", async () => {
    const dataDir = join(scratch(), "existing");
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, "enrollment-token"), "nre_an-older-relays-token\n", { mode: 0o644 });
    writeFileSync(join(dataDir, "relay.db"), "", { mode: 0o644 });
    chmodSync(join(dataDir, "enrollment-token"), 0o644);
    chmodSync(join(dataDir, "relay.db"), 0o644);
    await exercise(dataDir);
    expect(readFileSync(join(dataDir, "enrollment-token"), "utf8")).toBe("nre_an-older-relays-token\n");
  }, 60_000);

  it("the CLI commands that create the data dir make it private too", async () => {
    const dataDir = join(scratch(), "cli");
    const cli = (...args: string[]) =>
      run("sh", ["-c", `umask ${umask} && exec "$0" "$@"`, process.execPath, MAIN, ...args, "--data-dir", dataDir], {
        env: { ...process.env, RELAY_ENROLLMENT_TOKEN: "" },
      });
    await cli("enrollment-token");
    expectPrivate(dataDir, ["enrollment-token"]);
    await cli("devices");
    expectPrivate(dataDir, ["enrollment-token", "relay.db"]);
  }, 60_000);
});
