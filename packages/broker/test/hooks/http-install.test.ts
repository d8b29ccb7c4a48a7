import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hookTokenPath, rotateHookToken } from "../../src/hooks/hook-token.js";
import { type CliBroker, cliEnv, NO_FOLLOW_UPS, runCli, startCliBroker } from "../cli/cli-harness.js";
import { claude } from "./fixtures.js";

/**
 * Issue 33, item 1: `notify hooks install claude-code` writes `"type": "http"` hooks where the installed Claude Code
 * posts them itself, with the hook token in the user's settings `env` (never a project's file, never the main token),
 * a new token per install, and `hooks status` and `doctor` saying what each event uses.
 */
let cli: CliBroker;
const homes: string[] = [];
beforeAll(async () => {
  cli = await startCliBroker(NO_FOLLOW_UPS);
});
afterAll(async () => {
  await cli?.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function sandbox(): { home: string; project: string; settings: string; env: NodeJS.ProcessEnv } {
  const home = mkdtempSync(join(tmpdir(), "notify-http-install-"));
  homes.push(home);
  const project = join(home, "project");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(project);
  return { home, project, settings: join(home, ".claude", "settings.json"), env: cliEnv({ HOME: home }) };
}

const readJson = (file: string): Json => JSON.parse(readFileSync(file, "utf8"));
const storedToken = (): string => readFileSync(hookTokenPath(cli.dataDir), "utf8").trim();

/** Posts one hook event the way Claude Code does with the entry's URL and the header filled from the settings env. */
async function postAsClaudeCode(entry: Json, token: string, body: unknown): Promise<Response> {
  const header = String((entry.headers as Json).Authorization).replace("$NOTIFY_HOOK_TOKEN", token);
  return fetch(String(entry.url), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: header },
    body: JSON.stringify(body),
  });
}

/** A `claude` on PATH answering `--version` with `version`, for the auto choice (the real one is 2.1.330). */
function fakeClaude(home: string, version: string): string {
  const bin = join(home, `bin-${version}`);
  mkdirSync(bin);
  writeFileSync(join(bin, "claude"), `#!/bin/sh\necho '${version} (Claude Code)'\n`);
  chmodSync(join(bin, "claude"), 0o755);
  return bin;
}

describe("notify hooks install claude-code --kind http (issue 33, item 1)", () => {
  it("writes http entries to this broker and the hook token into the user's env; Claude Code's post works", async () => {
    const { settings, env, project } = sandbox();
    writeFileSync(settings, '{\n  "model": "opus"\n}\n');
    const installed = await runCli(["hooks", "install", "claude-code", "--kind", "http", ...cli.target], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toMatch(/http hooks/);
    const document = readJson(settings);
    expect(document.model).toBe("opus");
    const events = [
      "PermissionRequest",
      "PostToolUse",
      "Notification",
      "Stop",
      "UserPromptSubmit",
      "PreToolUse",
      "Elicitation",
      "SessionEnd",
    ];
    expect(Object.keys(document.hooks).sort()).toEqual([...events].sort());
    for (const event of events) {
      const [entry] = document.hooks[event][0].hooks;
      expect(entry).toMatchObject({
        type: "http",
        url: `${cli.broker.url}/v1/hooks/claude-code`,
        headers: { Authorization: "Bearer $NOTIFY_HOOK_TOKEN" },
        allowedEnvVars: ["NOTIFY_HOOK_TOKEN"],
      });
      expect(entry.timeout).toBe(
        event === "Stop" ? 86_460 : ["PermissionRequest", "PreToolUse", "Elicitation"].includes(event) ? 660 : 40,
      );
    }
    // The token the broker accepts, and not the main bearer token.
    expect(document.env.NOTIFY_HOOK_TOKEN).toBe(storedToken());
    expect(readFileSync(settings, "utf8")).not.toContain(cli.token);

    const stop = await postAsClaudeCode(document.hooks.Stop[0].hooks[0], document.env.NOTIFY_HOOK_TOKEN, {
      ...claude.stop.input,
      session_id: "http-install-stop",
    });
    expect(stop.status).toBe(200);
    const { body } = await cli.api<Json[]>("GET", "/v1/notifications?type=completed&agent=claude-code");
    expect(body.find((n) => n.metadata?.arc?.session_id === "http-install-stop")).toBeDefined();

    const status = await runCli(["hooks", "status", ...cli.target], env, project);
    expect(status.stdout).toMatch(/claude-code user {4}installed \(PermissionRequest http, PostToolUse http, /);
    const json = JSON.parse((await runCli(["hooks", "status", "--json", ...cli.target], env)).stdout);
    const row = json.installs.find((r: Json) => r.agent === "claude-code" && r.scope === "user");
    expect(row.kinds).toEqual(Object.fromEntries(events.map((event) => [event, "http"])));

    const doctor = await runCli(["doctor", "--json", ...cli.target], env);
    const hooks = JSON.parse(doctor.stdout).checks.find((check: Json) => check.name === "hooks");
    expect(hooks).toMatchObject({ status: "ok" });
    expect(hooks.detail).toContain("8 http hooks reach this broker with its hook token");
  });

  it("every install makes a new token and the old one stops at once; uninstall takes the token out", async () => {
    const { settings, env } = sandbox();
    const original = '{\n  "model": "opus",\n  "env": {"EDITOR": "vi"}\n}\n';
    writeFileSync(settings, original);
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "http", ...cli.target], env)).code).toBe(0);
    const first = readJson(settings).env.NOTIFY_HOOK_TOKEN as string;
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "http", ...cli.target], env)).code).toBe(0);
    const second = readJson(settings);
    expect(second.env).toEqual({ EDITOR: "vi", NOTIFY_HOOK_TOKEN: storedToken() });
    expect(second.env.NOTIFY_HOOK_TOKEN).not.toBe(first);
    const entry = second.hooks.Stop[0].hooks[0];
    const body = { ...claude.stop.input, session_id: "http-install-rotate" };
    expect((await postAsClaudeCode(entry, first, body)).status).toBe(401);
    expect((await postAsClaudeCode(entry, second.env.NOTIFY_HOOK_TOKEN, body)).status).toBe(200);

    // Untouched since: the user's file comes back byte for byte, token and all gone.
    const removed = await runCli(["hooks", "uninstall", "claude-code", ...cli.target], env);
    expect(removed.code).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(original);
    // Changed since: only Notify's entries and the token go.
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "http", ...cli.target], env)).code).toBe(0);
    writeFileSync(settings, JSON.stringify({ ...readJson(settings), theme: "dark" }, null, 2));
    expect((await runCli(["hooks", "uninstall", "claude-code", ...cli.target], env)).code).toBe(0);
    expect(readJson(settings)).toEqual({ model: "opus", env: { EDITOR: "vi" }, theme: "dark" });
  });

  it("a project-scoped install never writes the token into the project; the user's settings carry it", async () => {
    const { settings, env, project } = sandbox();
    const installed = await runCli(
      ["hooks", "install", "claude-code", "--scope", "project", "--kind", "http", ...cli.target],
      env,
      project,
    );
    expect(installed.code, installed.stderr).toBe(0);
    const projectFile = join(project, ".claude", "settings.json");
    const written = readFileSync(projectFile, "utf8");
    expect(JSON.parse(written).hooks.PermissionRequest[0].hooks[0].type).toBe("http");
    const token = storedToken();
    expect(readJson(settings).env).toEqual({ NOTIFY_HOOK_TOKEN: token });
    // Nothing under the project holds a token: not the hook token, not the main one, not its prefix.
    const files = readdirSync(project, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    for (const file of files) {
      const text = readFileSync(join(file.parentPath, file.name), "utf8");
      expect(text).not.toContain(token);
      expect(text).not.toContain(cli.token);
      expect(text).not.toMatch(/nh_[A-Za-z0-9_-]{20,}/);
    }
    // Uninstalling the project leaves the user's token (another project may use it) and restores the project.
    const removed = await runCli(
      ["hooks", "uninstall", "claude-code", "--scope", "project", ...cli.target],
      env,
      project,
    );
    expect(removed.code).toBe(0);
    expect(readdirSync(project)).toEqual([]);
    expect(readJson(settings).env.NOTIFY_HOOK_TOKEN).toBe(token);
  });

  it("doctor fails http hooks aimed at another port or carrying a token the broker does not hold", async () => {
    const { env } = sandbox();
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "http", ...cli.target], env)).code).toBe(0);
    rotateHookToken(cli.dataDir);
    const stale = JSON.parse((await runCli(["doctor", "--json", ...cli.target], env)).stdout);
    const hooks = stale.checks.find((check: Json) => check.name === "hooks");
    expect(hooks.status).toBe("fail");
    expect(hooks.detail).toContain("NOTIFY_HOOK_TOKEN in Claude Code's user settings is not the broker's hook token");
    expect(hooks.fix).toContain("notify hooks install claude-code --scope user");
    expect(JSON.stringify(stale)).not.toContain(storedToken());

    const moved = ["--port", "1", "--data-dir", cli.dataDir];
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "http", ...moved], env)).code).toBe(0);
    const away = JSON.parse((await runCli(["doctor", "--json", ...cli.target], env)).stdout);
    expect(away.checks.find((check: Json) => check.name === "hooks").detail).toContain(
      `http hooks post to port 1, the broker is on ${cli.broker.port}`,
    );
  });
});

describe("notify hooks install claude-code chooses the kind from the installed Claude Code", () => {
  const kindsOf = (settings: string): string[] => {
    const hooks = readJson(settings).hooks as Record<string, Json[]>;
    return [...new Set(Object.values(hooks).map((groups) => groups[0]?.hooks[0].type as string))];
  };

  it("http with the real Claude Code 2.1.330 on PATH (this repository's devDependency)", async () => {
    const { settings, env } = sandbox();
    const installed = await runCli(["hooks", "install", "claude-code", ...cli.target], env);
    expect(installed.stderr).toContain("Claude Code 2.1.330 posts its hooks to the broker itself");
    expect(kindsOf(settings)).toEqual(["http"]);
  });

  it("command hooks before 2.1.51 and with no claude at all; --kind command wins over a new one", async () => {
    const { home, settings, env } = sandbox();
    const old = fakeClaude(home, "2.1.50");
    const before = await runCli(["hooks", "install", "claude-code", ...cli.target], {
      ...env,
      PATH: `${old}:/usr/bin:/bin`,
    });
    expect(before.stderr).toMatch(/Claude Code 2\.1\.50 at .* predates http hooks \(2\.1\.51\)/);
    expect(kindsOf(settings)).toEqual(["command"]);
    expect(readJson(settings).env).toBeUndefined();

    const none = await runCli(["hooks", "install", "claude-code", ...cli.target], { ...env, PATH: "/usr/bin:/bin" });
    expect(none.stderr).toContain("no claude found on PATH");
    expect(kindsOf(settings)).toEqual(["command"]);

    const atFloor = fakeClaude(home, "2.1.51");
    await runCli(["hooks", "install", "claude-code", ...cli.target], { ...env, PATH: `${atFloor}:/usr/bin:/bin` });
    expect(kindsOf(settings)).toEqual(["http"]);
    await runCli(["hooks", "install", "claude-code", "--kind", "command", ...cli.target], env);
    expect(kindsOf(settings)).toEqual(["command"]);
  });
});
