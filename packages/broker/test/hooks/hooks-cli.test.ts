import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliBroker, cliEnv, NO_FOLLOW_UPS, runCli, startCliBroker } from "../cli/cli-harness.js";
import { claude } from "./fixtures.js";

let cli: CliBroker;
let home: string;
beforeAll(async () => {
  cli = await startCliBroker(NO_FOLLOW_UPS);
  home = mkdtempSync(join(tmpdir(), "notify-hooks-home-"));
});
afterAll(async () => {
  await cli?.close();
  rmSync(home, { recursive: true, force: true });
});

/** Runs a command line the way the agent does (`sh -c`), with the agent's JSON on stdin. */
function runAsAgent(command: string, stdin: unknown): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { env: cliEnv({ HOME: home }), stdio: ["pipe", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout }));
    child.stdin.end(JSON.stringify(stdin));
  });
}

describe("notify hooks install / status / uninstall through the CLI", () => {
  it("installs for Claude Code, the written command reaches this broker, status says so, uninstall restores", async () => {
    const env = cliEnv({ HOME: home });
    const refused = await runCli(["hooks", "install", "claude-code", ...cli.target], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/does not seem to be installed/);

    mkdirSync(join(home, ".claude"));
    const installed = await runCli(
      ["hooks", "install", "claude-code", "--kind", "command", "--json", ...cli.target],
      env,
    );
    expect(installed.code).toBe(0);
    const result: Json = JSON.parse(installed.stdout);
    const file = join(home, ".claude", "settings.json");
    expect(result).toEqual({ agent: "claude-code", scope: "user", file, changed: true, backup: null });

    // The token never goes into the agent's settings: the hook reads it from the data dir at run time.
    expect(readFileSync(file, "utf8")).not.toContain(cli.token);
    const settings: Json = JSON.parse(readFileSync(file, "utf8"));
    const stop = settings.hooks.Stop[0].hooks[0].command as string;
    // The data dir and port of this broker are in the command, so the hook needs no environment of its own.
    expect(stop).toContain(`--data-dir ${cli.dataDir}`);
    const ran = await runAsAgent(stop, { ...claude.stop.input, session_id: "s-cli-install" });
    expect(ran).toEqual({ code: 0, stdout: "" });
    const { body } = await cli.api<Json[]>("GET", "/v1/notifications?type=completed&agent=claude-code");
    expect(body.find((n) => n.metadata?.arc?.session_id === "s-cli-install")).toBeDefined();

    const status = await runCli(["hooks", "status", "--json", ...cli.target], env);
    const report: Json = JSON.parse(status.stdout);
    expect(report.broker).toEqual({ url: cli.broker.url, reachable: true });
    expect(report.installs.find((row: Json) => row.agent === "claude-code" && row.scope === "user")).toMatchObject({
      file,
      agentInstalled: true,
      events: [
        "PermissionRequest",
        "PostToolUse",
        "Notification",
        "Stop",
        "UserPromptSubmit",
        "PreToolUse",
        "Elicitation",
        "SessionEnd",
      ],
    });
    const text = await runCli(["hooks", "status", ...cli.target], env);
    expect(text.stdout).toMatch(
      /^claude-code user\s+installed \(PermissionRequest, PostToolUse, Notification, Stop, UserPromptSubmit, PreToolUse, Elicitation, SessionEnd\)/m,
    );
    expect(text.stdout).toMatch(/^codex user\s+agent not found/m);
    expect(text.stdout).toContain(`broker              answers at ${cli.broker.url}`);

    const removed = await runCli(["hooks", "uninstall", "claude-code", ...cli.target], env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`claude-code (user): removed ${file}`);
  });
});

/** The CLI run in `cwd` (the project scope is the working directory's). */
function runIn(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout }));
  });
}

describe("notify hooks status and uninstall without an agent (issue 21, item 16)", () => {
  it("status keeps the path apart from a long state; uninstall without an agent removes every install", async () => {
    const userHome = mkdtempSync(join(tmpdir(), "notify-hooks-all-"));
    const project = join(userHome, "project");
    mkdirSync(join(userHome, ".claude"), { recursive: true });
    mkdirSync(join(userHome, ".codex"), { recursive: true });
    mkdirSync(project);
    const settings = join(userHome, ".claude", "settings.json");
    writeFileSync(settings, '{"model": "opus"}\n');
    const env = cliEnv({ HOME: userHome });
    try {
      const nothing = await runIn(project, ["hooks", "uninstall", ...cli.target], env);
      expect(nothing).toEqual({ code: 0, stdout: expect.stringMatching(/^nothing to uninstall/) });
      // Command hooks: the longest state this test lays out (http hooks add a word per event: http-install.test).
      for (const args of [
        ["claude-code", "--kind", "command"],
        ["codex"],
        ["claude-code", "--scope", "project", "--kind", "command"],
      ]) {
        expect((await runIn(project, ["hooks", "install", ...args, ...cli.target], env)).code).toBe(0);
      }
      const status = await runIn(project, ["hooks", "status", ...cli.target], env);
      const row = status.stdout.split("\n").find((line) => line.startsWith("claude-code user"));
      // The longest state (six events) and the path are two columns, not one word.
      expect(row).toMatch(
        /installed \(PermissionRequest, PostToolUse, Notification, Stop, UserPromptSubmit, PreToolUse, Elicitation, SessionEnd\) {2,}\//,
      );
      expect(row?.endsWith(` ${settings}`)).toBe(true);

      const removed = await runIn(project, ["hooks", "uninstall", ...cli.target], env);
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain(`claude-code (user): restored ${settings} as it was before`);
      expect(removed.stdout).toContain(`codex (user): removed ${join(userHome, ".codex", "hooks.json")}`);
      expect(removed.stdout).toContain(`claude-code (project): removed ${join(project, ".claude", "settings.json")}`);
      expect(readFileSync(settings, "utf8")).toBe('{"model": "opus"}\n');
      const after = await runIn(project, ["hooks", "status", "--json", ...cli.target], env);
      expect(JSON.parse(after.stdout).installs.every((row: Json) => row.events?.length === 0)).toBe(true);
      const again = await runIn(project, ["hooks", "uninstall", "--json", ...cli.target], env);
      expect(JSON.parse(again.stdout)).toEqual([]);
    } finally {
      rmSync(userHome, { recursive: true, force: true });
    }
  });
});
