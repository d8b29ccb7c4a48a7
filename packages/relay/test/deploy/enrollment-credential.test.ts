// Issue 22, part 5: the enrollment token from a systemd credential ($CREDENTIALS_DIRECTORY/enrollment-token, what
// the shipped unit's LoadCredential= gives) or from the file RELAY_ENROLLMENT_TOKEN_FILE names, never from the
// unit's text. Order: RELAY_ENROLLMENT_TOKEN, RELAY_ENROLLMENT_TOKEN_FILE, the credential, the data dir's file.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ENROLLMENT_CREDENTIAL, enrollmentToken, SettingsError } from "../../src/config/settings.js";
import { tempDir } from "../helpers.js";
import { call, spawnRelay } from "../processes.js";

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const CREDENTIAL_TOKEN = "nre_from-the-systemd-credential-0123456789";
const FILE_TOKEN = "nre_from-the-token-file-0123456789abcdef";

const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function setUp(): { root: string; dataDir: string; credentials: string; tokenFile: string } {
  const dir = tempDir("relay-credential-");
  dirs.push(dir);
  const credentials = join(dir.path, "credentials");
  mkdirSync(credentials, { mode: 0o700 });
  writeFileSync(join(credentials, ENROLLMENT_CREDENTIAL), `${CREDENTIAL_TOKEN}\n`, { mode: 0o600 });
  const tokenFile = join(dir.path, "token");
  writeFileSync(tokenFile, `  ${FILE_TOKEN}\r\n`, { mode: 0o600 });
  return { root: dir.path, dataDir: join(dir.path, "data"), credentials, tokenFile };
}

function settingsError(run: () => unknown): SettingsError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error("expected a SettingsError");
}

describe("the enrollment token's sources", () => {
  it("reads the systemd credential, and then generates no token file in the data dir", () => {
    const { dataDir, credentials } = setUp();
    expect(enrollmentToken(dataDir, { CREDENTIALS_DIRECTORY: credentials })).toBe(CREDENTIAL_TOKEN);
    expect(existsSync(join(dataDir, "enrollment-token"))).toBe(false);
  });

  it("RELAY_ENROLLMENT_TOKEN_FILE wins over the credential, and the variable over both", () => {
    const { dataDir, credentials, tokenFile } = setUp();
    const env = { CREDENTIALS_DIRECTORY: credentials, RELAY_ENROLLMENT_TOKEN_FILE: tokenFile };
    expect(enrollmentToken(dataDir, env)).toBe(FILE_TOKEN);
    expect(enrollmentToken(dataDir, { CREDENTIALS_DIRECTORY: credentials, RELAY_ENROLLMENT_TOKEN: "nre_env" })).toBe(
      "nre_env",
    );
  });

  it("a credentials directory without this credential falls back to the data dir's generated token", () => {
    const { root, dataDir } = setUp();
    const other = join(root, "other-credentials");
    mkdirSync(other);
    const token = enrollmentToken(dataDir, { CREDENTIALS_DIRECTORY: other });
    expect(token).toMatch(/^nre_/);
    expect(enrollmentToken(dataDir, {})).toBe(token);
  });

  it("refuses a missing, empty or many-line file, and both the variable and the file set, without the content", () => {
    const { root, dataDir, credentials, tokenFile } = setUp();
    const missing = join(root, "nope");
    expect(settingsError(() => enrollmentToken(dataDir, { RELAY_ENROLLMENT_TOKEN_FILE: missing })).message).toBe(
      `RELAY_ENROLLMENT_TOKEN_FILE: cannot read ${missing} (ENOENT)`,
    );
    const empty = join(root, "empty");
    writeFileSync(empty, "\n");
    expect(settingsError(() => enrollmentToken(dataDir, { RELAY_ENROLLMENT_TOKEN_FILE: empty })).message).toBe(
      `RELAY_ENROLLMENT_TOKEN_FILE: ${empty} is empty`,
    );
    writeFileSync(join(credentials, ENROLLMENT_CREDENTIAL), `${CREDENTIAL_TOKEN}\nnre_second-line\n`);
    const twoLines = settingsError(() => enrollmentToken(dataDir, { CREDENTIALS_DIRECTORY: credentials }));
    expect(twoLines.message).toBe(
      `the systemd credential enrollment-token: ${join(credentials, ENROLLMENT_CREDENTIAL)} must hold one token on one line`,
    );
    expect(twoLines.message).not.toContain("nre_");
    const both = settingsError(() =>
      enrollmentToken(dataDir, { RELAY_ENROLLMENT_TOKEN: "nre_env", RELAY_ENROLLMENT_TOKEN_FILE: tokenFile }),
    );
    expect(both.message).toBe("RELAY_ENROLLMENT_TOKEN and RELAY_ENROLLMENT_TOKEN_FILE are both set: keep one");
    // Nothing was generated while refusing.
    expect(existsSync(join(dataDir, "enrollment-token"))).toBe(false);
  });
});

describe("notify-relay with a credential (processes)", () => {
  it("serve enrolls with the credential's token and refuses the data dir's; enrollment-token prints it", async () => {
    const { dataDir, credentials } = setUp();
    const relay = await spawnRelay({ dataDir, env: { CREDENTIALS_DIRECTORY: credentials } });
    try {
      expect((await call(relay.url, "POST", "/v1/installations", "nre_wrong", {})).status).toBe(401);
      const enrolled = await call(relay.url, "POST", "/v1/installations", CREDENTIAL_TOKEN, { name: "laptop" });
      expect(enrolled.status).toBe(201);
      expect(existsSync(join(dataDir, "enrollment-token"))).toBe(false);
    } finally {
      await relay.stop();
    }
    expect(relay.stderr()).not.toContain(CREDENTIAL_TOKEN);
    const printed = await promisify(execFile)(process.execPath, [MAIN, "enrollment-token", "--data-dir", dataDir], {
      env: { ...process.env, CREDENTIALS_DIRECTORY: credentials },
    });
    expect(printed.stdout).toBe(`${CREDENTIAL_TOKEN}\n`);
  });

  it("serve stops with status 2 and names the file when RELAY_ENROLLMENT_TOKEN_FILE cannot be read", async () => {
    const { root, dataDir } = setUp();
    const missing = join(root, "missing-token");
    // Its own process and `close` (not `exit`, which may come before the last of stderr is read).
    const child = spawn(process.execPath, [MAIN, "serve", "--port", "0", "--data-dir", dataDir], {
      env: { ...process.env, RELAY_ENROLLMENT_TOKEN_FILE: missing },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect({ code, stdout, stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `notify-relay: RELAY_ENROLLMENT_TOKEN_FILE: cannot read ${missing} (ENOENT)\n`,
    });
  });
});
