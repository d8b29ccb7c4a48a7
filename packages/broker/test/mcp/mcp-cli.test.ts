import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";

/**
 * Issue 26 item 2 through the built CLI: `notify mcp install|uninstall` in a temporary HOME, listed by `notify hooks
 * status` and checked by `notify doctor` (the entry's command must still start).
 */
let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker();
});
afterAll(async () => {
  await cli.close();
});

function home(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir("notify-mcp-cli-");
  mkdirSync(join(dir, ".claude"), { recursive: true });
  mkdirSync(join(dir, ".codex"), { recursive: true });
  return { dir, env: cliEnv({ HOME: dir, XDG_CONFIG_HOME: join(dir, ".config"), DBUS_SESSION_BUS_ADDRESS: "" }) };
}

async function mcpCheck(env: NodeJS.ProcessEnv): Promise<Json> {
  const result = await runCli(["doctor", "--json", ...cli.target], env);
  return (JSON.parse(result.stdout).checks as Json[]).find((check) => check.name === "mcp");
}

describe("notify mcp install through the CLI, listed by hooks status and doctor", () => {
  it("install writes the entry with this broker's options; hooks status and doctor list it; uninstall restores", async () => {
    const { dir, env } = home();
    const claudeJson = join(dir, ".claude.json");
    const original = '{\n  "numStartups": 7\n}\n';
    writeFileSync(claudeJson, original);

    expect(await mcpCheck(env)).toMatchObject({ status: "ok", detail: expect.stringMatching(/^not installed/) });

    const installed = await runCli(["mcp", "install", "claude-code", ...cli.target], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`claude-code (user): installed into ${claudeJson}`);
    expect(installed.stdout).toMatch(/^backup: .*\/hooks\/backups\/mcp-claude-code-user-.+\.json$/m);
    const entry = JSON.parse(readFileSync(claudeJson, "utf8")).mcpServers.notify;
    // The command hooks write (stableCommand): this node and this checkout's CLI, then `mcp` and the broker's options.
    expect(entry).toMatchObject({ type: "stdio", command: process.execPath, timeout: 3_660_000, alwaysLoad: true });
    expect(entry.args.slice(1)).toEqual(["mcp", "--data-dir", cli.dataDir, "--port", String(cli.broker.port)]);
    expect(installed.stderr).toContain("this is a checkout, not an installed Notify");

    const codex = await runCli(["mcp", "install", "codex", ...cli.target], env);
    expect(codex.code, codex.stderr).toBe(0);
    expect(readFileSync(join(dir, ".codex", "config.toml"), "utf8")).toContain("tool_timeout_sec = 3660");

    const status = await runCli(["hooks", "status", ...cli.target], env);
    expect(status.stdout).toMatch(new RegExp(`^mcp claude-code user\\s+installed\\s+${claudeJson}$`, "m"));
    expect(status.stdout).toMatch(/^mcp codex user\s+installed\s+\S+config\.toml$/m);
    expect(status.stdout).toMatch(/^mcp codex project\s+not installed\s+/m);
    const json = JSON.parse((await runCli(["hooks", "status", "--json", ...cli.target], env)).stdout);
    expect(json.mcp.find((row: Json) => row.agent === "claude-code" && row.scope === "user")).toMatchObject({
      file: claudeJson,
      installed: true,
      command: [process.execPath, ...entry.args],
    });

    expect(await mcpCheck(env)).toMatchObject({
      status: "ok",
      // Each entry's command is run without this shell's PATH, and the Node it runs with is named (issue 32, item 3).
      detail: `installed for claude-code user, codex user; every command starts without PATH; run with Node ${process.version} (${realpathSync(process.execPath)})`,
    });

    const removed = await runCli(["mcp", "uninstall", "claude-code", ...cli.target], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(claudeJson, "utf8")).toBe(original);
  });

  it("doctor fails an entry whose command no longer starts (a moved checkout), naming the reinstall", async () => {
    const { dir, env } = home();
    const gone = join(dir, "moved-away", "dist", "cli", "main.js");
    writeFileSync(
      join(dir, ".claude.json"),
      JSON.stringify({ mcpServers: { notify: { type: "stdio", command: process.execPath, args: [gone, "mcp"] } } }),
    );
    expect(await mcpCheck(env)).toEqual({
      name: "mcp",
      status: "fail",
      detail: `claude-code user: ${gone} does not exist (a moved or deleted checkout?)`,
      fix: "notify mcp install claude-code --scope user",
    });
    writeFileSync(
      join(dir, ".codex", "config.toml"),
      '[mcp_servers.notify]\ncommand = "/nowhere/notify"\nargs = ["mcp"]\n',
    );
    const both = await mcpCheck(env);
    expect(both.status).toBe("fail");
    expect(both.detail).toContain("codex user: /nowhere/notify cannot be run");
    expect(both.fix).toBe("notify mcp install claude-code --scope user && notify mcp install codex --scope user");
    // And the plain form says it with the fix under it; the exit code is 1.
    const plain = await runCli(["doctor", ...cli.target], env);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toMatch(/^fail {2}mcp {7}claude-code user: .*\n {16}fix: notify mcp install claude-code/m);
  });

  it("refuses an unknown agent or scope with the valid choices, and changes nothing", async () => {
    const { env } = home();
    const agent = await runCli(["mcp", "install", "cursor", ...cli.target], env);
    expect(agent.code).toBe(1);
    expect(agent.stderr).toContain(
      "unknown agent cursor: expected claude-code or codex or copilot or gemini or opencode",
    );
    const scope = await runCli(["mcp", "install", "codex", "--scope", "global", ...cli.target], env);
    expect(scope.code).not.toBe(0);
    expect(scope.stderr).toMatch(/global/);
  });
});
