import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Json } from "@notify/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as entries from "../../src/hooks/install/entries.js";
import {
  HookInstallError,
  hookKinds,
  type InstallContext,
  install,
  installStatus,
  uninstall,
} from "../../src/hooks/install/installer.js";

let root: string;
let home: string;
let project: string;
let context: InstallContext;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "notify-hooks-install-"));
  home = join(root, "home");
  project = join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  context = {
    dataDir: join(root, "data"),
    program: ["/usr/bin/node", "/opt/notify/dist/cli/main.js"],
    where: { home, cwd: project, env: {} },
  };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const backups = (): string[] => {
  const dir = join(context.dataDir, "hooks", "backups");
  return existsSync(dir) ? readdirSync(dir) : [];
};

/** A user's settings with their own hook, odd spacing and key order: what byte-for-byte must bring back. */
const USER_SETTINGS = `{
    "model": "opus",
  "hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}]},
    "permissions": {"allow": ["Bash(npm test)"]}
}`;

describe("notify hooks install / uninstall (issue 12, item 1)", () => {
  it("merges into the user's settings.json, backs it up first, and is idempotent", () => {
    mkdirSync(join(home, ".claude"));
    const file = join(home, ".claude", "settings.json");
    writeFileSync(file, USER_SETTINGS);

    const first = install("claude-code", "user", context);
    expect(first).toMatchObject({ changed: true, summary: `installed into ${file}` });
    expect(readFileSync(first.backup ?? "", "utf8")).toBe(USER_SETTINGS);
    const settings: Json = JSON.parse(readFileSync(file, "utf8"));
    expect(settings.model).toBe("opus");
    expect(settings.permissions).toEqual({ allow: ["Bash(npm test)"] });
    // The user's own hook stays first; Notify's group follows it.
    expect(settings.hooks.PostToolUse).toHaveLength(2);
    expect(settings.hooks.PostToolUse[0].hooks[0].command).toBe("prettier --write");
    expect(settings.hooks.PermissionRequest).toEqual([
      {
        matcher: "*",
        hooks: [
          {
            type: "command",
            command: "/usr/bin/node /opt/notify/dist/cli/main.js hook claude-code PermissionRequest",
            timeout: 660,
          },
        ],
      },
    ]);
    expect(settings.hooks.Stop[0]).toEqual({
      hooks: [
        // A finished turn may wait a day for a follow-up (docs/hooks.md, "Follow-ups"), and says so meanwhile.
        {
          type: "command",
          command: "/usr/bin/node /opt/notify/dist/cli/main.js hook claude-code Stop",
          timeout: 86_460,
          statusMessage: entries.STOP_STATUS_MESSAGE,
        },
      ],
    });
    expect(Object.keys(settings.hooks).sort()).toEqual([
      "Elicitation",
      "Notification",
      "PermissionRequest",
      "PostToolUse",
      "PreToolUse",
      "SessionEnd",
      "Stop",
      "UserPromptSubmit",
    ]);
    // Claude Code's own question tool only (issue 26, item 3).
    expect(settings.hooks.PreToolUse[0].matcher).toBe("AskUserQuestion");

    const after = readFileSync(file);
    const second = install("claude-code", "user", context);
    expect(second.changed).toBe(false);
    expect(readFileSync(file)).toEqual(after);
    expect(backups()).toHaveLength(1);

    const removed = uninstall("claude-code", "user", context);
    expect(removed).toMatchObject({ changed: true, summary: `restored ${file} as it was before` });
    expect(readFileSync(file, "utf8")).toBe(USER_SETTINGS);
    // A backup was taken before this change too.
    expect(backups()).toHaveLength(2);
    expect(uninstall("claude-code", "user", context).changed).toBe(false);
  });

  it("a file edited by someone else after install: uninstall takes out only Notify's entries", () => {
    mkdirSync(join(home, ".claude"));
    const file = join(home, ".claude", "settings.json");
    writeFileSync(file, USER_SETTINGS);
    install("claude-code", "user", context);
    const edited: Json = JSON.parse(readFileSync(file, "utf8"));
    edited.theme = "dark";
    writeFileSync(file, JSON.stringify(edited));

    expect(uninstall("claude-code", "user", context).changed).toBe(true);
    const left: Json = JSON.parse(readFileSync(file, "utf8"));
    expect(left).toEqual({ ...JSON.parse(USER_SETTINGS), theme: "dark" });
  });

  it("refuses a file it cannot parse: clear error, file untouched, no backup, no record", () => {
    mkdirSync(join(home, ".codex"));
    const file = join(home, ".codex", "hooks.json");
    const broken = '{"hooks": {"Stop": [ // a comment\n]}';
    writeFileSync(file, broken);
    expect(() => install("codex", "user", context)).toThrow(HookInstallError);
    expect(() => install("codex", "user", context)).toThrow(/cannot parse .*hooks\.json.*left as it was/);
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(backups()).toEqual([]);
    writeFileSync(file, '{"hooks": []}');
    expect(() => install("codex", "user", context)).toThrow(/"hooks" is not an object/);
    expect(installStatus(context).find((row) => row.agent === "codex" && row.scope === "user")?.events).toBeNull();
  });

  it("creates no directory for an agent that is not installed", () => {
    expect(() => install("claude-code", "user", context)).toThrow(/does not seem to be installed/);
    expect(() => install("codex", "project", context)).toThrow(/does not seem to be installed/);
    expect(readdirSync(home)).toEqual([]);
    expect(readdirSync(project)).toEqual([]);
    expect(existsSync(context.dataDir)).toBe(false);
  });

  it("a file Notify created is removed again, with the project directory it made", () => {
    mkdirSync(join(home, ".codex"));
    const result = install("codex", "project", context);
    const file = join(project, ".codex", "hooks.json");
    expect(result).toMatchObject({ changed: true });
    expect(result.backup).toBeUndefined();
    const hooks: Json = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(hooks.hooks)).toEqual(["PermissionRequest", "PostToolUse", "Stop", "UserPromptSubmit"]);
    expect(hooks.hooks.PermissionRequest[0].hooks[0]).toEqual({
      type: "command",
      command: "/usr/bin/node /opt/notify/dist/cli/main.js hook codex PermissionRequest",
      timeout: 660,
    });
    expect(installStatus(context).find((row) => row.agent === "codex" && row.scope === "project")?.events).toEqual([
      "PermissionRequest",
      "PostToolUse",
      "Stop",
      "UserPromptSubmit",
    ]);
    expect(uninstall("codex", "project", context)).toMatchObject({ changed: true, summary: `removed ${file}` });
    expect(readdirSync(project)).toEqual([]);
  });

  it("CODEX_HOME and CLAUDE_CONFIG_DIR move the user scope; extra options reach the command, quoted", () => {
    const codexHome = join(root, "codex home");
    mkdirSync(codexHome);
    const moved: InstallContext = {
      ...context,
      extra: ["--data-dir", "/data/it's here"],
      where: { home, cwd: project, env: { CODEX_HOME: codexHome } },
    };
    install("codex", "user", moved);
    const hooks: Json = JSON.parse(readFileSync(join(codexHome, "hooks.json"), "utf8"));
    expect(hooks.hooks.Stop[0].hooks[0].command).toBe(
      "/usr/bin/node /opt/notify/dist/cli/main.js hook codex Stop --data-dir '/data/it'\\''s here'",
    );
    expect(existsSync(join(home, ".codex"))).toBe(false);
  });

  it("re-installing over an older Notify entry replaces it instead of adding a second one", () => {
    mkdirSync(join(home, ".claude"));
    install("claude-code", "user", context);
    const moved = { ...context, program: ["notify"] };
    expect(install("claude-code", "user", moved).changed).toBe(true);
    const settings: Json = JSON.parse(readFileSync(join(home, ".claude", "settings.json"), "utf8"));
    expect(settings.hooks.Stop).toEqual([
      {
        hooks: [
          {
            type: "command",
            command: "notify hook claude-code Stop",
            timeout: 86_460,
            statusMessage: entries.STOP_STATUS_MESSAGE,
          },
        ],
      },
    ]);
    // Still removed entirely: Notify created the file, and nothing but Notify changed it.
    uninstall("claude-code", "user", moved);
    expect(existsSync(join(home, ".claude", "settings.json"))).toBe(false);
    expect(existsSync(join(home, ".claude"))).toBe(true);
  });

  it("a settings.json with a BOM and CRLF line ends: BOM first and CRLF in what is added; uninstall restores it", () => {
    mkdirSync(join(home, ".claude"));
    const file = join(home, ".claude", "settings.json");
    const before = `\uFEFF${USER_SETTINGS.replaceAll("\n", "\r\n")}\r\n`;
    writeFileSync(file, before);
    install("claude-code", "user", context);
    const installed = readFileSync(file, "utf8");
    expect(installed.startsWith("\uFEFF")).toBe(true);
    expect(installed.replaceAll("\r\n", "")).not.toContain("\n");
    expect(JSON.parse(installed.slice(1)).hooks.Stop).toHaveLength(1);
    uninstall("claude-code", "user", context);
    expect(readFileSync(file, "utf8")).toBe(before);
    // Changed since install: only Notify's entries come out, in the file's own style.
    install("claude-code", "user", context);
    const edited = JSON.parse(readFileSync(file, "utf8").slice(1));
    writeFileSync(file, `\uFEFF${JSON.stringify({ ...edited, theme: "dark" }, null, 2).replaceAll("\n", "\r\n")}\r\n`);
    uninstall("claude-code", "user", context);
    const stripped = readFileSync(file, "utf8");
    expect(stripped.startsWith("\uFEFF")).toBe(true);
    expect(stripped.replaceAll("\r\n", "")).not.toContain("\n");
    expect(JSON.parse(stripped.slice(1))).toMatchObject({ theme: "dark", model: "opus" });
    expect(JSON.parse(stripped.slice(1)).hooks.PostToolUse).toHaveLength(1);
  });
});

describe("http hook entries (issue 33, item 1)", () => {
  it("status names the kind of each event; uninstall takes Notify's http entries out and leaves others", () => {
    const { httpHook } = entries;
    mkdirSync(join(home, ".claude"));
    const file = join(home, ".claude", "settings.json");
    const foreign = { type: "http", url: "https://example.com/v1/hooks/claude-code" };
    writeFileSync(
      file,
      `${JSON.stringify({
        hooks: {
          PermissionRequest: [{ matcher: "*", hooks: [httpHook(47821, "PermissionRequest")] }],
          Stop: [{ hooks: [httpHook(47821, "Stop"), foreign] }],
          Notification: [{ hooks: [{ type: "command", command: "notify hook claude-code Notification" }] }],
        },
      })}\n`,
    );
    const row = installStatus(context).find((entry) => entry.agent === "claude-code" && entry.scope === "user");
    expect(row?.kinds).toEqual({ PermissionRequest: "http", Stop: "http", Notification: "command" });
    expect(hookKinds(context).find((entry) => entry.file === file)?.kinds).toEqual(row?.kinds);
    expect(httpHook(47821, "PermissionRequest")).toMatchObject({ timeout: 660 });
    expect(httpHook(47821, "Stop")).toMatchObject({
      headers: { Authorization: "Bearer $NOTIFY_HOOK_TOKEN" },
      allowedEnvVars: ["NOTIFY_HOOK_TOKEN"],
      timeout: 86_460,
      statusMessage: entries.STOP_STATUS_MESSAGE,
    });
    expect(httpHook(47821, "PostToolUse")).toMatchObject({ timeout: 40 });
    expect(uninstall("claude-code", "user", context).changed).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ hooks: { Stop: [{ hooks: [foreign] }] } });
  });
});
