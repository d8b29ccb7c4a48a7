import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliBroker, cliEnv, runCli, startCliBroker } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";

/**
 * Issue 38, item 3: `notify hooks install` for Copilot CLI (flat `bash` entries) and OpenCode (a plugin file, not
 * JSON) through the built CLI, listed by `notify hooks status` and checked by `notify doctor`: each written command
 * must still start, and one that does not (a moved checkout) fails naming the reinstall.
 */
let cli: CliBroker;
beforeAll(async () => {
  cli = await startCliBroker();
});
afterAll(async () => {
  await cli.close();
});

async function hooksCheck(env: NodeJS.ProcessEnv): Promise<Json> {
  const result = await runCli(["doctor", "--json", ...cli.target], env);
  return (JSON.parse(result.stdout).checks as Json[]).find((check) => check.name === "hooks");
}

describe("notify doctor and hooks status with the new agents' hooks", () => {
  it("Copilot's hooks file and OpenCode's plugin are listed and their commands checked; a moved one fails", async () => {
    const home = tempDir("notify-doctor-agents-");
    mkdirSync(join(home, ".copilot"));
    mkdirSync(join(home, ".config", "opencode"), { recursive: true });
    const env = cliEnv({ HOME: home });
    for (const agent of ["copilot", "opencode"]) {
      const installed = await runCli(["hooks", "install", agent, ...cli.target], env);
      expect(installed.code, installed.stderr).toBe(0);
    }
    const status = await runCli(["hooks", "status", "--json", ...cli.target], env);
    const rows = JSON.parse(status.stdout).installs as Json[];
    const listed = (agent: string) => rows.find((row) => row.agent === agent && row.scope === "user");
    expect(listed("copilot")?.events).toContain("permissionRequest");
    expect(listed("opencode")?.events).toEqual([
      "tool.execute.before",
      "session.idle",
      "chat.message",
      "session.deleted",
    ]);
    expect(await hooksCheck(env)).toMatchObject({ status: "ok", detail: expect.stringContaining("copilot user") });
    expect((await hooksCheck(env)).detail).toContain("opencode user");

    // A moved checkout: the plugin's words name a CLI file that is gone.
    const plugin = join(home, ".config", "opencode", "plugin", "notify.js");
    const gone = join(home, "moved-away", "dist", "cli", "main.js");
    const text = readFileSync(plugin, "utf8");
    const main = /"([^"]*main\.js)"/.exec(text)?.[1] ?? "";
    expect(main).not.toBe("");
    writeFileSync(plugin, text.replaceAll(JSON.stringify(main), JSON.stringify(gone)));
    const check = await hooksCheck(env);
    expect(check.status).toBe("fail");
    const hooks = /opencode user hooks \(([^)]*)\) in (\S+):/.exec(check.detail)?.slice(1);
    expect(hooks?.[0]?.split(", ").sort()).toEqual([
      "chat.message",
      "session.deleted",
      "session.idle",
      "tool.execute.before",
    ]);
    expect(hooks?.[1]).toBe(plugin);
    expect(check.detail).toContain(`${gone} does not exist`);
    expect(check.fix).toBe("notify hooks install opencode --scope user");
    // Six CLI runs, two of them `notify doctor` (about 5 s each alone): more than 30 s on a loaded 2-core machine.
  }, 120_000);
});
