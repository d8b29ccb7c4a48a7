// Issue 32, item 5: `notify uninstall [--purge]` removes hooks, MCP entries and the service, restoring the agents'
// files byte for byte, and with --purge the data dir; it prints what it removed and what it left. (The relay's
// installation is not deleted yet: no relay route does that; the left list says so.)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";

const brokers: CliBroker[] = [];
afterEach(async () => {
  for (const broker of brokers.splice(0)) await broker.close();
});

describe("notify uninstall", () => {
  it("--purge restores the agents' files byte for byte, removes the unit and the data dir, and says what is left", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    const home = tempDir("notify-uninstall-home-");
    const env = cliEnv({ HOME: home, XDG_CONFIG_HOME: join(home, ".config"), DBUS_SESSION_BUS_ADDRESS: "" });
    mkdirSync(join(home, ".claude"));
    mkdirSync(join(home, ".codex"));
    // The person's own settings, with odd spacing and a hook of their own: they must come back exactly.
    const settings = join(home, ".claude", "settings.json");
    const claudeJson = join(home, ".claude.json");
    const codexConfig = join(home, ".codex", "config.toml");
    const originals = new Map([
      [
        settings,
        '{\n    "model": "opus",\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}\n}\n',
      ],
      [claudeJson, '{"numStartups": 3, "mcpServers": {"other": {"command": "other-server"}}}'],
      [codexConfig, '# mine\nmodel = "o3"\n\n[features]\nhooks = true\n'],
    ]);
    for (const [file, text] of originals) writeFileSync(file, text);
    for (const args of [
      ["hooks", "install", "claude-code"],
      ["hooks", "install", "codex"],
      ["mcp", "install", "claude-code"],
      ["mcp", "install", "codex"],
      ["service", "install", "--platform", "systemd"],
    ]) {
      const result = await runCli([...args, ...broker.target], env);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
    }
    for (const [file, text] of originals) expect(readFileSync(file, "utf8")).not.toBe(text);
    const unit = join(home, ".config", "systemd", "user", "notify.service");
    expect(existsSync(unit)).toBe(true);

    const result = await runCli(["uninstall", "--purge", ...broker.target], env);
    expect(result.code, result.stderr).toBe(0);
    for (const [file, text] of originals) expect(readFileSync(file, "utf8")).toBe(text);
    expect(existsSync(unit)).toBe(false);
    expect(existsSync(broker.dataDir)).toBe(false);
    const lines = result.stdout.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("removed hooks: "))).toHaveLength(2);
    expect(lines.filter((line) => line.startsWith("removed mcp: "))).toHaveLength(2);
    expect(lines).toContain(`removed: ${unit}`);
    expect(lines).toContain(`removed data dir: ${broker.dataDir}`);
    expect(lines.at(-1)).toBe("left: the npm package: npm uninstall -g @notify/broker @notify/relay (last)");
    // Nothing of Notify's left in the agents' files.
    for (const file of originals.keys()) expect(readFileSync(file, "utf8")).not.toContain("main.js");
  });
});
