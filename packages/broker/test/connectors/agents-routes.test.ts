import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brokerApi, type Json } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { readConfigFile } from "../../src/config/config-file.js";
import { cliEnv, runCli } from "../cli/cli-harness.js";

/** /ui/api/router/agents and `notify router agents|connect|disconnect` against a real broker in a temp HOME. */
let root: string;
let home: string;
let dataDir: string;
let broker: RunningBroker;

const { ui } = brokerApi(
  () => broker.url,
  () => broker.settings.authToken,
);

const routerKey = (): string => String(readConfigFile(dataDir).RouterKey);
const target = (): string[] => ["--port", String(broker.port), "--data-dir", dataDir];
const codexToml = (): string => readFileSync(join(home, ".codex", "config.toml"), "utf8");

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "notify-agents-routes-"));
  home = join(root, "home");
  dataDir = join(root, "data");
  mkdirSync(join(home, ".codex"), { recursive: true });
  mkdirSync(dataDir);
  broker = await startBroker({ dataDir, port: 0, env: { HOME: home } });
  await ui("PUT", "/router/settings", { enabled: true });
  await ui("POST", "/router/upstreams", {
    slug: "local",
    wire: "chat_wire",
    base_url: "http://127.0.0.1:9/v1",
    models: ["a", "b"],
    enabled: true,
  });
});

afterEach(async () => {
  await broker.close();
  rmSync(root, { recursive: true, force: true });
});

describe("/ui/api/router/agents", () => {
  it("lists accounts and selectors without ever returning the router key", async () => {
    const listing = await ui("GET", "/router/agents");
    expect(listing.status).toBe(200);
    expect(listing.body.selectors).toEqual(["local/a", "local/b"]);
    expect(listing.body.accounts.map((account: Json) => [account.id, account.installed, account.connected])).toEqual([
      ["codex", true, false],
      ["claude-code", false, false],
    ]);
    const connected = await ui("POST", "/router/agents/codex/connect", { model: "local/b", review_model: "local/a" });
    expect(connected.status).toBe(200);
    expect(connected.body.accounts[0]).toMatchObject({ connected: true, model: "local/b", review_model: "local/a" });
    for (const text of [
      connected.text,
      (await ui("GET", "/router/agents")).text,
      (await ui("GET", "/router/agents/backups")).text,
    ]) {
      expect(text).not.toContain(routerKey());
    }
  });

  it("refuses unknown agents, bad bodies, unrouted models and agents that are not installed", async () => {
    expect((await ui("POST", "/router/agents/cursor/connect", {})).status).toBe(404);
    expect((await ui("POST", "/router/agents/codex/connect", { colour: "red" })).body).toEqual({
      error: "unknown field: colour",
    });
    expect((await ui("POST", "/router/agents/codex/connect", { model: 7 })).status).toBe(400);
    expect((await ui("POST", "/router/agents/codex/connect", { model: "other/x" })).status).toBe(400);
    const claude = await ui("POST", "/router/agents/claude-code/connect", {});
    expect(claude.status).toBe(409);
    expect(claude.body.error).toMatch(/claude-code is not installed/);
    expect(existsSync(join(home, ".claude"))).toBe(false);
    expect((await ui("POST", "/router/agents/backups/nope/restore", {})).status).toBe(404);
  });

  it("a regenerated key and a new upstream rewrite the connected agent; disconnect puts the file back", async () => {
    writeFileSync(join(home, ".codex", "config.toml"), 'model = "mine"\n');
    await ui("POST", "/router/agents/codex/connect", { model: "local/a" });
    const first = routerKey();
    expect(codexToml()).toContain(first);
    await ui("POST", "/router/key/regenerate", {});
    expect(routerKey()).not.toBe(first);
    expect(codexToml()).toContain(routerKey());
    expect(codexToml()).not.toContain(first);
    await ui("POST", "/router/upstreams", {
      slug: "more",
      wire: "chat_wire",
      base_url: "http://127.0.0.1:9/v1",
      models: ["c"],
      enabled: true,
    });
    const catalog = JSON.parse(readFileSync(join(dataDir, "connectors", "codex-models.json"), "utf8"));
    expect(catalog.models.map((entry: Json) => entry.slug)).toEqual(["local/a", "local/b", "more/c"]);
    const backups = (await ui("GET", "/router/agents/backups")).body.backups;
    // A copy before each change of config.toml: the connect and the key's rewrite (the new upstream changed only the
    // catalogue, which lives in the data dir).
    expect(backups.map((backup: Json) => backup.reason)).toEqual(["rewrite", "connect"]);
    expect((await ui("POST", "/router/agents/codex/disconnect", {})).status).toBe(200);
    expect(codexToml()).toBe('model = "mine"\n');
  });
});

describe("notify router agents|connect|disconnect", () => {
  it("prints the accounts, connects and disconnects through the broker; bad input exits non-zero", async () => {
    const connected = await runCli(
      ["router", "connect", "codex", "--model", "local/a", "--effort", "high", ...target()],
      cliEnv(),
    );
    expect(connected.code, connected.stderr).toBe(0);
    expect(connected.stderr).toBe("notify: codex connected to the router (1 account)\n");
    const listed = await runCli(["router", "agents", ...target()], cliEnv());
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^AGENT\s+ACCOUNT\s+DIR\s+STATE\s+MODEL\s+EFFORT\s+SUBAGENT\s+REVIEW\n/);
    expect(listed.stdout).toMatch(/codex\s+default\s+\S+\s+connected\s+local\/a\s+high/);
    expect(listed.stdout).toMatch(/claude-code\s+default\s+\S+\s+not installed/);
    expect(listed.stdout).toContain("selectors: local/a, local/b");
    const unknown = await runCli(["router", "connect", "cursor", ...target()], cliEnv());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown agent cursor");
    const refused = await runCli(["router", "connect", "claude-code", ...target()], cliEnv());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("409 claude-code is not installed");
    const disconnected = await runCli(["router", "disconnect", "codex", "--json", ...target()], cliEnv());
    expect(disconnected.code).toBe(0);
    expect(JSON.parse(disconnected.stdout).accounts[0].connected).toBe(false);
    expect(existsSync(join(home, ".codex", "config.toml"))).toBe(false);
    // The router key reaches the agent's file and the copies only: never a command's output or the broker's log.
    for (const result of [connected, listed, unknown, refused, disconnected]) {
      expect(result.stdout + result.stderr).not.toContain(routerKey());
    }
    for (const log of readdirSync(join(dataDir, "logs"))) {
      expect(readFileSync(join(dataDir, "logs", log), "utf8")).not.toContain(routerKey());
    }
  });
});
