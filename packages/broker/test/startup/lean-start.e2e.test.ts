import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnBroker } from "@notify/test-kit/broker-process";
import { describe, expect, it } from "vitest";
import { writeConfigFile } from "../../src/config/config-file.js";
import { tempDir } from "../helpers.js";

const HOOK = fileURLToPath(new URL("./module-log-hook.mjs", import.meta.url));
const TOKEN = "lean-start-test-token-abcdefghijklmnopqrstuvwxyz01";

/** The packages (under node_modules) a served broker loaded, by name. */
function packagesLoaded(logFile: string): Set<string> {
  const names = new Set<string>();
  for (const url of readFileSync(logFile, "utf8").split("\n")) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match?.[1]) names.add(match[1]);
  }
  return names;
}

/** The modules of the provider router package a served broker loaded (its dist files, by path in the package). */
function routerModulesLoaded(logFile: string): string[] {
  const files: string[] = [];
  for (const url of readFileSync(logFile, "utf8").split("\n")) {
    const match = /\/router\/dist\/(.+\.js)$/.exec(url);
    if (match?.[1]) files.push(match[1]);
  }
  return files;
}

describe("notify serve loads what is switched off only when it is switched on (issue 22, part 6)", () => {
  it("with no session bus, no relay and the router off, dbus-next, qrcode, jose, zod, fastify's schema compilers and the router stay unloaded", async () => {
    const dataDir = tempDir();
    writeConfigFile(dataDir, { authToken: TOKEN });
    const log = join(tempDir(), "modules.txt");
    const env: Record<string, string> = {
      NODE_OPTIONS: `--import ${HOOK}`,
      NOTIFY_TEST_MODULE_LOG: log,
      HOME: tempDir(),
      XDG_CACHE_HOME: tempDir(),
    };
    const broker = await spawnBroker(dataDir, env, ["DBUS_SESSION_BUS_ADDRESS"]);
    try {
      const health = await fetch(`${broker.url}/health`);
      expect(health.status).toBe(200);
      const page = await fetch(`${broker.url}/v1/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(page.status).toBe(200);
      const loaded = packagesLoaded(log);
      // The log works: the framework the broker always needs is in it.
      expect(loaded.has("fastify")).toBe(true);
      for (const lazy of ["dbus-next", "xml2js", "qrcode", "pngjs", "jose", "ajv", "@fastify/ajv-compiler", "zod"]) {
        expect(loaded.has(lazy), `${lazy} loaded at start`).toBe(false);
      }
      // Of the router only what the broker reads from config.json at start (@notify/router/host, no import of its own).
      const hostOnly = ["host.js", "config/records.js", "native.js", "subscriptions/agent-accounts.js"];
      expect(routerModulesLoaded(log).sort()).toEqual(hostOnly.sort());
    } finally {
      broker.child.kill("SIGTERM");
      await broker.exited;
    }
    // Nor Node's bundled undici (fetch, WebSocket): an ESM import of node:http would load it (http/app.ts).
    const builtins = readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("builtin:"));
    expect(builtins.length).toBeGreaterThan(50);
    expect(builtins.filter((line) => line.includes("undici"))).toEqual([]);
  });

  it("the router, off, is loaded and built by the first request to /router/v1, which it answers as before", async () => {
    const dataDir = tempDir();
    writeConfigFile(dataDir, { authToken: TOKEN });
    const log = join(tempDir(), "modules.txt");
    const env = { NODE_OPTIONS: `--import ${HOOK}`, NOTIFY_TEST_MODULE_LOG: log, HOME: tempDir() };
    const broker = await spawnBroker(dataDir, env, ["DBUS_SESSION_BUS_ADDRESS"]);
    try {
      expect((await fetch(`${broker.url}/health`)).status).toBe(200);
      expect(routerModulesLoaded(log)).not.toContain("index.js");
      const disabled = await fetch(`${broker.url}/router/v1/models`);
      expect(disabled.status).toBe(404);
      expect(await disabled.json()).toMatchObject({ error: { code: "router_disabled" } });
      expect(routerModulesLoaded(log)).toContain("index.js");
      // Built once: a second request is answered by the same router.
      expect((await fetch(`${broker.url}/router/v1/chat/completions`, { method: "POST", body: "{}" })).status).toBe(
        404,
      );
    } finally {
      broker.child.kill("SIGTERM");
      await broker.exited;
    }
  });

  it.runIf(process.platform === "linux")(
    "the compiled modules are cached in the user's cache dir once the broker listens, for the next start",
    async () => {
      const dataDir = tempDir();
      writeConfigFile(dataDir, { authToken: TOKEN });
      const cacheHome = tempDir();
      const broker = await spawnBroker(dataDir, { HOME: tempDir(), XDG_CACHE_HOME: cacheHome }, [
        "NODE_COMPILE_CACHE",
        "NODE_DISABLE_COMPILE_CACHE",
      ]);
      try {
        const cache = join(cacheHome, "notify", "node-compile-cache");
        const cached = (): number =>
          existsSync(cache)
            ? readdirSync(cache, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length
            : 0;
        // Written right after "listening on" (flushCompileCache), not only at exit: the broker is still running.
        const deadline = Date.now() + 20_000;
        while (cached() <= 100 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        expect(cached()).toBeGreaterThan(100);
        expect(broker.child.exitCode).toBeNull();
      } finally {
        broker.child.kill("SIGTERM");
        await broker.exited;
      }
    },
  );
});
