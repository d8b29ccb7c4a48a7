// Issue 22, part 5: the deployment files ship inside the relay's tarball (scripts/pack.mjs), so an operator who ran
// `npm install -g` finds them under `$(npm root -g)/@notify/relay/deploy/` (docs/relay.md), byte for byte.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { DEPLOY_DIR } from "./deploy-files.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const out = mkdtempSync(join(tmpdir(), "relay-packed-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the relay's packed tarball", () => {
  it("holds deploy/ with the unit, the Caddyfile and the settings file as they are in the checkout", async () => {
    await run(process.execPath, [join(ROOT, "scripts/pack.mjs"), "--out", out], { cwd: ROOT });
    const tarball = readdirSync(out).find((name) => /^notify-relay-.*\.tgz$/.test(name));
    expect(tarball).toBeDefined();
    const { stdout: listing } = await run("tar", ["-tzf", join(out, tarball as string)]);
    const shipped = listing
      .split("\n")
      .filter((path) => path.startsWith("package/deploy/"))
      .sort();
    expect(shipped).toEqual([
      "package/deploy/Caddyfile",
      "package/deploy/notify-relay.service",
      "package/deploy/relay.env",
    ]);
    for (const path of shipped) {
      const { stdout } = await run("tar", ["-xzOf", join(out, tarball as string), path]);
      expect(stdout).toBe(readFileSync(join(DEPLOY_DIR, path.slice("package/deploy/".length)), "utf8"));
    }
  }, 180_000);
});
