import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, readConfigFile, writeConfigFile } from "../src/config/config-file.js";
import { resolveDataDir } from "../src/config/paths.js";
import { loadSettings } from "../src/config/settings.js";
import { tempDir } from "./helpers.js";

describe("config.json (docs/config.md, 'config.json'; docs/config.md, 'How config.json is read and written')", () => {
  it("first run generates authToken from 32 random bytes and writes it with mode 0600", () => {
    const dir = tempDir();
    const settings = loadSettings(dir, { env: {} });
    expect(settings.authToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(settings.authToken, "base64url")).toHaveLength(32);
    const file = join(dir, "config.json");
    expect(JSON.parse(readFileSync(file, "utf8")).authToken).toBe(settings.authToken);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSettings(dir, { env: {} }).authToken).toBe(settings.authToken);
  });

  it("defaults: port 47821, body 65536, rate 30", () => {
    const settings = loadSettings(tempDir(), { env: {} });
    expect(settings).toMatchObject({ port: 47821, maxRequestBodyBytes: 65536, rateLimitPerSecond: 30 });
  });

  it("keeps unknown keys when it writes the token, and leaves no temp files", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "config.json"), JSON.stringify({ theme: "dark", nested: { a: [1, 2] }, port: 5000 }));
    loadSettings(dir, { env: {} });
    const written = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
    expect(written).toMatchObject({ theme: "dark", nested: { a: [1, 2] }, port: 5000 });
    expect(typeof written.authToken).toBe("string");
    expect(readdirSync(dir)).toEqual(["config.json"]);
  });

  it("values <= 0 reset to the default, with a warning; wrong types fall back too", () => {
    const dir = tempDir();
    writeConfigFile(dir, { authToken: "t".repeat(43), maxRequestBodyBytes: 0, rateLimitPerSecond: -4 });
    const warnings: string[] = [];
    const settings = loadSettings(dir, { env: {}, warn: (message) => warnings.push(message) });
    expect(settings.maxRequestBodyBytes).toBe(65536);
    expect(settings.rateLimitPerSecond).toBe(30);
    expect(warnings.join("\n")).toMatch(/maxRequestBodyBytes.*reset to 65536/);
    expect(warnings.join("\n")).toMatch(/rateLimitPerSecond.*reset to 30/);
    writeConfigFile(dir, { authToken: "t".repeat(43), maxRequestBodyBytes: "big", rateLimitPerSecond: 2.5 });
    expect(loadSettings(dir, { env: {} })).toMatchObject({ maxRequestBodyBytes: 65536, rateLimitPerSecond: 30 });
    writeConfigFile(dir, { authToken: "t".repeat(43), maxRequestBodyBytes: 1024, rateLimitPerSecond: 7 });
    expect(loadSettings(dir, { env: {} })).toMatchObject({ maxRequestBodyBytes: 1024, rateLimitPerSecond: 7 });
  });

  it("port: --port wins over NOTIFY_PORT, which wins over config.json", () => {
    const dir = tempDir();
    writeConfigFile(dir, { port: 5001 });
    expect(loadSettings(dir, { env: {} }).port).toBe(5001);
    expect(loadSettings(dir, { env: { NOTIFY_PORT: "5002" } }).port).toBe(5002);
    expect(loadSettings(dir, { env: { NOTIFY_PORT: "5002" }, port: 5003 }).port).toBe(5003);
    expect(() => loadSettings(dir, { env: { NOTIFY_PORT: "http" } })).toThrow(ConfigError);
  });

  it("token: --token wins over NOTIFY_TOKEN, which wins over config.json; the file keeps its own token", () => {
    const dir = tempDir();
    writeConfigFile(dir, { authToken: "from-config-file-token" });
    expect(loadSettings(dir, { env: {} }).authToken).toBe("from-config-file-token");
    expect(loadSettings(dir, { env: { NOTIFY_TOKEN: "from-env" } }).authToken).toBe("from-env");
    expect(loadSettings(dir, { env: { NOTIFY_TOKEN: "from-env" }, token: "from-flag" }).authToken).toBe("from-flag");
    expect(readConfigFile(dir).authToken).toBe("from-config-file-token");
  });

  it("a corrupt config.json is a ConfigError naming the file and is never overwritten", () => {
    for (const text of ["{ not json", "[1,2]", "null", '"str"']) {
      const dir = tempDir();
      writeFileSync(join(dir, "config.json"), text);
      expect(() => loadSettings(dir, { env: {} })).toThrow(ConfigError);
      expect(() => loadSettings(dir, { env: {} })).toThrow(/config\.json/);
      expect(readFileSync(join(dir, "config.json"), "utf8")).toBe(text);
    }
  });

  it("reads notificationTypes, skipping invalid entries with a warning", () => {
    const dir = tempDir();
    writeConfigFile(dir, {
      notificationTypes: [
        { id: "deploy", label: "Deploy", defaultPriority: "high", color: "#0a0", toastSeconds: 12 },
        { id: "Bad-Id" },
        { id: "muted", enabled: false },
        "nope",
      ],
    });
    const warnings: string[] = [];
    const settings = loadSettings(dir, { env: {}, warn: (message) => warnings.push(message) });
    expect(settings.notificationTypes).toEqual([
      { id: "deploy", label: "Deploy", enabled: true, defaultPriority: "high", color: "#0a0", toastSeconds: 12 },
      { id: "muted", label: "muted", enabled: false },
    ]);
    expect(warnings).toHaveLength(2);
  });

  it("data dir: --data-dir, then NOTIFY_DATA_DIR, then the per-user data dir", () => {
    expect(resolveDataDir("/x", { NOTIFY_DATA_DIR: "/y" })).toBe("/x");
    expect(resolveDataDir(undefined, { NOTIFY_DATA_DIR: "/y" })).toBe("/y");
    expect(resolveDataDir(undefined, {})).toMatch(/notify$/);
  });

  it("writes are atomic: a failed write leaves the previous file intact", () => {
    const dir = tempDir();
    writeConfigFile(dir, { authToken: "keep-me-token" });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => writeConfigFile(dir, cyclic)).toThrow();
    expect(readConfigFile(dir)).toEqual({ authToken: "keep-me-token" });
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    expect(existsSync(join(dir, "config.json"))).toBe(true);
  });
});
