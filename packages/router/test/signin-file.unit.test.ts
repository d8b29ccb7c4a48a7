import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeRenewedTokens } from "../src/subscriptions/signin-file.js";

/** Issue 21, item 6: the renewal of Codex's auth.json keeps its exact mode, its symlink, and touches only tokens.*. */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "notify-signin-file-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const AUTH = `{
  "OPENAI_API_KEY": null,
  "tokens": {"id_token": "i1", "access_token": "a1", "refresh_token": "r1", "account_id": "acc"},
  "last_refresh": "2026-01-01T00:00:00Z"
}`;

describe("auth.json renewal (issue 21, item 6)", () => {
  it("keeps the file's exact mode, whatever the umask", () => {
    const path = join(dir, "auth.json");
    writeFileSync(path, AUTH);
    chmodSync(path, 0o640);
    const umask = process.umask(0o077);
    try {
      writeRenewedTokens(path, { accessToken: "a2", refreshToken: "r2" }, new Date(0));
    } finally {
      process.umask(umask);
    }
    expect(statSync(path).mode & 0o7777).toBe(0o640);
    expect(JSON.parse(readFileSync(path, "utf8")).tokens.refresh_token).toBe("r2");
  });

  it("writes through a symlinked auth.json to the file it points at; the link stays", () => {
    mkdirSync(join(dir, "codex"));
    mkdirSync(join(dir, "vault"));
    const target = join(dir, "vault", "codex-auth.json");
    writeFileSync(target, AUTH, { mode: 0o600 });
    const link = join(dir, "codex", "auth.json");
    symlinkSync("../vault/codex-auth.json", link);
    writeRenewedTokens(link, { accessToken: "a2", refreshToken: "r2", idToken: "i2" }, new Date(0));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe("../vault/codex-auth.json");
    expect(JSON.parse(readFileSync(target, "utf8")).tokens).toEqual({
      id_token: "i2",
      access_token: "a2",
      refresh_token: "r2",
      account_id: "acc",
    });
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it("a literal top-level key named tokens.refresh_token keeps its value; the nested key gets the new token", () => {
    const path = join(dir, "auth.json");
    const text = `{"tokens.refresh_token": "literal", "tokens.access_token": "literal-a", "tokens": {"access_token": "a1", "refresh_token": "r1", "id_token": "i1"}, "last_refresh": "t0"}`;
    writeFileSync(path, text, { mode: 0o600 });
    writeRenewedTokens(path, { accessToken: "a2", refreshToken: "r2" }, new Date(0));
    const after = readFileSync(path, "utf8");
    expect(after).toBe(
      `{"tokens.refresh_token": "literal", "tokens.access_token": "literal-a", "tokens": {"access_token": "a2", "refresh_token": "r2", "id_token": "i1"}, "last_refresh": "1970-01-01T00:00:00.000Z"}`,
    );
    // The same with the literal key after the nested one (a scanner keeping the last match would take it).
    const reversed = `{"tokens": {"access_token": "a1", "refresh_token": "r1"}, "tokens.refresh_token": "literal", "last_refresh": "t0"}`;
    writeFileSync(path, reversed);
    writeRenewedTokens(path, { accessToken: "a3", refreshToken: "r3" }, new Date(0));
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      tokens: { access_token: "a3", refresh_token: "r3" },
      "tokens.refresh_token": "literal",
      last_refresh: "1970-01-01T00:00:00.000Z",
    });
  });
});
