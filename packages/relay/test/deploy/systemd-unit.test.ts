// Issue 22, part 5: packages/relay/deploy/notify-relay.service is a hardened systemd system unit that
// `systemd-analyze verify` (Debian's systemd, installed by .ci/run) accepts without a warning, whose hardening
// `systemd-analyze security` rates, and which carries no secret: the enrollment token comes from a credential.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ENROLLMENT_CREDENTIAL, enrollmentToken } from "../../src/config/settings.js";
import {
  ENV_FILE,
  envFileValues,
  RELAY_BIN,
  replaceOnce,
  SHIPPED_EXEC,
  serviceValues,
  UNIT_FILE,
  unitSection,
} from "./deploy-files.js";

const run = promisify(execFile);
const DOCS = fileURLToPath(new URL("../../../../docs/relay.md", import.meta.url));
const SYSTEMD_ANALYZE = "/usr/bin/systemd-analyze";
const unit = readFileSync(UNIT_FILE, "utf8");
const dir = mkdtempSync(join(tmpdir(), "relay-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The shipped unit with ExecStart pointing at this checkout's built command (verify checks that the binary exists
 * and is executable); everything else byte for byte.
 */
function testCopy(text = unit): string {
  const path = join(dir, "notify-relay.service");
  writeFileSync(path, replaceOnce(text, `ExecStart=${SHIPPED_EXEC} `, `ExecStart=${RELAY_BIN} `));
  return path;
}

async function analyze(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(SYSTEMD_ANALYZE, args, { cwd: dir });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === "ENOENT") throw new Error(`${SYSTEMD_ANALYZE} is missing: apt-get install -y systemd`);
    return { code: Number(failed.code), stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("notify-relay.service", () => {
  it("passes systemd-analyze verify with no warning at all", async () => {
    const result = await analyze(["verify", testCopy()]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("verify would catch a mistake: an unknown key and a bad value are reported", async () => {
    const broken = replaceOnce(replaceOnce(unit, "UMask=0077", "UMsk=0077"), "ProtectProc=invisible", "ProtectProc=no");
    const result = await analyze(["verify", testCopy(broken)]);
    expect(result.stderr).toContain("Unknown key 'UMsk'");
    expect(result.stderr).toContain("Failed to parse /proc/ protection mode");
  });

  it("the shipped ExecStart is the command npm install -g puts on PATH (prefix /usr)", async () => {
    const result = await analyze(["verify", UNIT_FILE]);
    // Not on this machine: verify names exactly that path, so the shipped unit runs nothing else.
    expect(result.stderr).toContain(`Command ${SHIPPED_EXEC} is not executable`);
    expect(serviceValues(unit, "ExecStart")).toEqual([
      `${SHIPPED_EXEC} serve --host 127.0.0.1 --port 47822 --trust-proxy 127.0.0.1`,
    ]);
  });

  it("is hardened: DynamicUser, StateDirectory, ProtectSystem=strict, NoNewPrivileges and the rest", () => {
    const service = Object.fromEntries(unitSection(unit, "Service").map((entry) => [entry.key, entry.value]));
    expect(service).toMatchObject({
      DynamicUser: "yes",
      StateDirectory: "notify-relay",
      StateDirectoryMode: "0700",
      UMask: "0077",
      ProtectSystem: "strict",
      ProtectHome: "yes",
      PrivateTmp: "yes",
      PrivateDevices: "yes",
      NoNewPrivileges: "yes",
      CapabilityBoundingSet: "",
      RestrictAddressFamilies: "AF_INET AF_INET6 AF_UNIX",
      RestrictNamespaces: "yes",
      LockPersonality: "yes",
      SystemCallArchitectures: "native",
      Restart: "on-failure",
    });
    expect(Number(service.LimitNOFILE)).toBeGreaterThanOrEqual(131072);
    expect(serviceValues(unit, "Environment")).toEqual(["RELAY_DATA_DIR=%S/notify-relay"]);
    // V8 writes machine code at run time: this switch would kill the relay at its first JIT compile.
    expect(service.MemoryDenyWriteExecute).toBeUndefined();
  });

  it("systemd-analyze security rates its exposure 2.0 or lower (OK)", async () => {
    const result = await analyze(["security", "--offline=yes", "--no-pager", testCopy()]);
    const exposure = /Overall exposure level for \S+: (\d+\.\d+)/.exec(result.stdout);
    expect(exposure, result.stdout + result.stderr).not.toBeNull();
    expect(Number(exposure?.[1])).toBeLessThanOrEqual(2.0);
  });

  it("holds no secret: the token comes from LoadCredential=, the settings from an EnvironmentFile", () => {
    expect(serviceValues(unit, "LoadCredential")).toEqual(["enrollment-token:/etc/notify-relay/enrollment-token"]);
    expect(serviceValues(unit, "EnvironmentFile")).toEqual(["/etc/notify-relay/relay.env"]);
    expect(unit).not.toMatch(/^\s*Environment=.*(TOKEN|DATABASE_URL|PASSWORD)/m);
    expect(unit).not.toMatch(/nre_[A-Za-z0-9_-]{8,}/);
    const env = envFileValues(readFileSync(ENV_FILE, "utf8"));
    expect(Object.keys(env).sort()).toEqual(["RELAY_PUBLIC_URL", "RELAY_VAPID_SUBJECT"]);
    expect(env.RELAY_PUBLIC_URL).toMatch(/^https:\/\//);
  });

  it("its recipe for the token file (and the docs', the same) makes one 0600 line the relay reads", async () => {
    const recipe = (text: string, prefix: string): string => {
      const start = text.indexOf(`${prefix}(umask 077; printf`);
      const end = text.indexOf("/etc/notify-relay/enrollment-token)", start);
      expect(start, "the recipe is missing").toBeGreaterThanOrEqual(0);
      return text
        .slice(start, end + "/etc/notify-relay/enrollment-token)".length)
        .split("\n")
        .map((line) => (line.startsWith(prefix) ? line.slice(prefix.length) : line).trim())
        .join(" ")
        .replace(/\\ /g, "");
    };
    const command = recipe(unit, "#   ");
    expect(recipe(readFileSync(DOCS, "utf8"), "")).toBe(command);
    const credentials = join(dir, "credentials");
    mkdirSync(credentials, { mode: 0o700 });
    const target = join(credentials, ENROLLMENT_CREDENTIAL);
    await run("sh", ["-c", replaceOnce(command, "/etc/notify-relay/enrollment-token", target)]);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    const text = readFileSync(target, "utf8");
    expect(text).toMatch(/^nre_[A-Za-z0-9_-]{43}\n$/);
    expect(enrollmentToken(join(dir, "data"), { CREDENTIALS_DIRECTORY: credentials })).toBe(text.trim());
  });
});
