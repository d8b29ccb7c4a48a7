import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { GEMINI_GATED_TOOLS } from "../../src/hooks/install/entries.js";
import { install, installStatus, uninstall } from "../../src/hooks/install/installer.js";
import { OPENCODE_PLUGIN_MARK } from "../../src/hooks/install/opencode-plugin.js";
import { targetFor } from "../../src/hooks/install/targets.js";
import { tempDir } from "../helpers.js";

/**
 * Issue 38, item 1: `notify hooks install|uninstall gemini|copilot|opencode`, with the rules and hostile cases of the
 * Claude Code and Codex installers (install.unit.test.ts): a backup before every change, idempotent, only Notify's
 * entries touched, links, modes, BOM and line ends kept, malformed files refused, byte-for-byte restore.
 */
const PROGRAM = ["/usr/bin/node", "/opt/notify/dist/cli/main.js"];
const HOOK = (agent: string, event: string) => `/usr/bin/node /opt/notify/dist/cli/main.js hook ${agent} ${event}`;

function setup(agentHome: string) {
  const root = tempDir("notify-hooks-agents-");
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(home, agentHome), { recursive: true });
  mkdirSync(project);
  const context = { dataDir: join(root, "data"), program: PROGRAM, where: { home, cwd: project, env: {} } };
  return { root, home, project, context };
}

describe("notify hooks install gemini", () => {
  const OWN =
    '{\n    "theme": "dark",\n  "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint"}]}]}\n}';

  it("adds Notify's groups to ~/.gemini/settings.json (timeouts in ms, the gate on the writers); uninstall restores it", () => {
    const { home, context } = setup(".gemini");
    const file = join(home, ".gemini", "settings.json");
    writeFileSync(file, OWN);
    const first = install("gemini", "user", context);
    expect(first).toMatchObject({ changed: true, summary: `installed into ${file}` });
    expect(readFileSync(first.backup ?? "", "utf8")).toBe(OWN);
    const settings: Json = JSON.parse(readFileSync(file, "utf8"));
    expect(settings.theme).toBe("dark");
    expect(settings.hooks.BeforeTool).toEqual([
      { matcher: "write_file", hooks: [{ type: "command", command: "lint" }] },
      {
        matcher: GEMINI_GATED_TOOLS,
        hooks: [{ type: "command", name: "notify", command: HOOK("gemini", "BeforeTool"), timeout: 660_000 }],
      },
    ]);
    expect(settings.hooks.AfterAgent).toEqual([
      { hooks: [{ type: "command", name: "notify", command: HOOK("gemini", "AfterAgent"), timeout: 86_460_000 }] },
    ]);
    expect(Object.keys(settings.hooks).sort()).toEqual([
      "AfterAgent",
      "BeforeAgent",
      "BeforeTool",
      "Notification",
      "SessionEnd",
    ]);
    expect(new RegExp(GEMINI_GATED_TOOLS).test("run_shell_command")).toBe(true);
    expect(new RegExp(GEMINI_GATED_TOOLS).test("read_file")).toBe(false);
    expect(install("gemini", "user", context)).toMatchObject({ changed: false });
    const row = installStatus(context).find((status) => status.agent === "gemini" && status.scope === "user");
    expect(row?.events?.sort()).toEqual(["AfterAgent", "BeforeAgent", "BeforeTool", "Notification", "SessionEnd"]);

    expect(uninstall("gemini", "user", context)).toMatchObject({ changed: true });
    expect(readFileSync(file, "utf8")).toBe(OWN);
  });

  it("the owner's edit after install is kept: uninstall takes out only Notify's entries", () => {
    const { home, context } = setup(".gemini");
    const file = join(home, ".gemini", "settings.json");
    writeFileSync(file, OWN);
    install("gemini", "user", context);
    const changed: Json = JSON.parse(readFileSync(file, "utf8"));
    changed.theme = "light";
    writeFileSync(file, JSON.stringify(changed, null, 2));
    expect(uninstall("gemini", "user", context)).toMatchObject({ changed: true });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ ...JSON.parse(OWN), theme: "light" });
  });

  it("a symlinked settings file stays a link, with its mode, BOM and CRLF; a malformed one is refused untouched", () => {
    const { root, home, context } = setup(".gemini");
    const real = join(root, "real.json");
    const original = '\uFEFF{\r\n  "theme": "dark"\r\n}\r\n';
    writeFileSync(real, original);
    chmodSync(real, 0o640);
    const link = join(home, ".gemini", "settings.json");
    symlinkSync(real, link);
    install("gemini", "user", context);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const text = readFileSync(real, "utf8");
    expect(text.startsWith("\uFEFF{\r\n")).toBe(true);
    expect(text.replaceAll("\r\n", "").includes("\n")).toBe(false);
    expect(statSync(real).mode & 0o777).toBe(0o640);
    uninstall("gemini", "user", context);
    expect(readFileSync(real, "utf8")).toBe(original);

    for (const bad of ['{"theme": ', '{"hooks": []}']) {
      writeFileSync(real, bad);
      expect(() => install("gemini", "user", context)).toThrow(/left as it was/);
      expect(readFileSync(real, "utf8")).toBe(bad);
    }
  });
});

describe("notify hooks install copilot", () => {
  it("writes Notify's own ~/.copilot/hooks/notify.json (version 1, flat bash entries); uninstall removes it", () => {
    const { home, context } = setup(".copilot");
    const file = join(home, ".copilot", "hooks", "notify.json");
    expect(install("copilot", "user", context)).toMatchObject({ changed: true, summary: `installed into ${file}` });
    const written: Json = JSON.parse(readFileSync(file, "utf8"));
    expect(written.version).toBe(1);
    expect(written.hooks.permissionRequest).toEqual([
      { type: "command", bash: HOOK("copilot", "permissionRequest"), timeoutSec: 660 },
    ]);
    expect(written.hooks.agentStop).toEqual([
      { type: "command", bash: HOOK("copilot", "agentStop"), timeoutSec: 86_460 },
    ]);
    expect(Object.keys(written.hooks).sort()).toEqual([
      "agentStop",
      "notification",
      "permissionRequest",
      "postToolUse",
      "sessionEnd",
      "userPromptSubmitted",
    ]);
    expect(install("copilot", "user", context)).toMatchObject({ changed: false });
    expect(uninstall("copilot", "user", context)).toMatchObject({ changed: true, summary: `removed ${file}` });
    expect(existsSync(file)).toBe(false);
    // The hooks folder Notify made goes with it.
    expect(readdirSync(join(home, ".copilot"))).toEqual([]);
  });

  it("project scope: .github/hooks/notify.json; entries the owner added since stay at uninstall", () => {
    const { project, context } = setup(".copilot");
    const file = join(project, ".github", "hooks", "notify.json");
    mkdirSync(join(project, ".github", "hooks"), { recursive: true });
    expect(targetFor("copilot", "project", context.where).file).toBe(file);
    install("copilot", "project", context);
    const changed: Json = JSON.parse(readFileSync(file, "utf8"));
    changed.hooks.preToolUse = [{ type: "command", bash: "./guard.sh" }];
    writeFileSync(file, JSON.stringify(changed, null, 2));
    expect(uninstall("copilot", "project", context)).toMatchObject({ changed: true });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      version: 1,
      hooks: { preToolUse: [{ type: "command", bash: "./guard.sh" }] },
    });
  });

  it("an existing file of the owner's at that name, CRLF and BOM: merged, then restored byte for byte", () => {
    const { home, context } = setup(".copilot");
    mkdirSync(join(home, ".copilot", "hooks"));
    const file = join(home, ".copilot", "hooks", "notify.json");
    const original = '\uFEFF{"version": 1,\r\n "hooks": {"sessionStart": [{"type": "command", "bash": "hi"}]}}\r\n';
    writeFileSync(file, original);
    install("copilot", "user", context);
    const text = readFileSync(file, "utf8");
    expect(text.startsWith("\uFEFF")).toBe(true);
    expect(JSON.parse(text.slice(1)).hooks.sessionStart).toEqual([{ type: "command", bash: "hi" }]);
    uninstall("copilot", "user", context);
    expect(readFileSync(file, "utf8")).toBe(original);
  });
});

describe("the folders Notify creates for a project file", () => {
  it("copilot's .github/hooks and opencode's .opencode/plugin go again at uninstall, the project as it was", () => {
    for (const [agent, agentHome] of [
      ["copilot", ".copilot"],
      ["opencode", ".config/opencode"],
    ] as const) {
      const { project, context } = setup(agentHome);
      expect(install(agent, "project", context)).toMatchObject({ changed: true });
      expect(readdirSync(project)).toHaveLength(1);
      expect(uninstall(agent, "project", context)).toMatchObject({ changed: true });
      expect(readdirSync(project)).toEqual([]);
    }
  });

  it("a .github the project already had stays, with what it holds", () => {
    const { project, context } = setup(".copilot");
    mkdirSync(join(project, ".github", "workflows"), { recursive: true });
    install("copilot", "project", context);
    uninstall("copilot", "project", context);
    expect(readdirSync(join(project, ".github"))).toEqual(["workflows"]);
  });
});

describe("notify hooks install opencode", () => {
  it("writes Notify's plugin file into ~/.config/opencode/plugin/; uninstall removes it and the folder it made", () => {
    const { home, context } = setup(".config/opencode");
    const file = join(home, ".config", "opencode", "plugin", "notify.js");
    expect(install("opencode", "user", context)).toMatchObject({ changed: true, summary: `installed into ${file}` });
    const text = readFileSync(file, "utf8");
    expect(text.startsWith(OPENCODE_PLUGIN_MARK)).toBe(true);
    expect(text).toContain(JSON.stringify([...PROGRAM, "hook", "opencode", "tool.execute.before"]));
    expect(install("opencode", "user", context)).toMatchObject({ changed: false });
    const row = installStatus(context).find((status) => status.agent === "opencode" && status.scope === "user");
    expect(row?.events).toEqual(["tool.execute.before", "session.idle", "chat.message", "session.deleted"]);
    expect(uninstall("opencode", "user", context)).toMatchObject({ changed: true, summary: `removed ${file}` });
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(join(home, ".config", "opencode"))).toEqual([]);
  });

  it("a plugin of the owner's at that path is refused, untouched, at install and uninstall", () => {
    const { project, context } = setup(".config/opencode");
    const dir = join(project, ".opencode", "plugin");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "notify.js");
    writeFileSync(file, "export const Mine = async () => ({});\n");
    expect(() => install("opencode", "project", context)).toThrow(/not Notify's plugin/);
    expect(() => uninstall("opencode", "project", context)).toThrow(/not Notify's plugin/);
    expect(readFileSync(file, "utf8")).toBe("export const Mine = async () => ({});\n");
  });

  it("a plugin the owner edited since is still Notify's: uninstall removes it", () => {
    const { home, context } = setup(".config/opencode");
    install("opencode", "user", context);
    const file = join(home, ".config", "opencode", "plugin", "notify.js");
    writeFileSync(file, `${readFileSync(file, "utf8")}\n// edited\n`);
    expect(uninstall("opencode", "user", context)).toMatchObject({ changed: true });
    expect(existsSync(file)).toBe(false);
  });

  it("refuses when OpenCode is not installed (no ~/.config/opencode), creating nothing", () => {
    const { root, context } = setup(".other");
    expect(() => install("opencode", "user", context)).toThrow(/OpenCode does not seem to be installed/);
    expect(existsSync(join(root, "home", ".config"))).toBe(false);
  });
});
