import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type InstallContext, install, uninstall } from "../../src/hooks/install/installer.js";
import { connectorService } from "./connector-fixture.js";

/**
 * Issue 21, item 4: an agent file that is a symlink (dotfiles kept in a repository, a project's settings.json
 * linked from elsewhere) stays a link through install/uninstall, connect/disconnect and restores; the edit reaches
 * the file the link points at, with that file's mode.
 */

let root: string;
let home: string;
let dotfiles: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "notify-symlinks-"));
  home = join(root, "home");
  dotfiles = join(root, "dotfiles");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(home, ".codex"), { recursive: true });
  mkdirSync(dotfiles);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string): number => statSync(path).mode & 0o777;

/** `link` -> `target` (relative, as a dotfiles manager makes it), the target holding `text` with `fileMode`. */
function linked(link: string, target: string, text: string, fileMode: number): void {
  writeFileSync(target, text);
  chmodSync(target, fileMode);
  symlinkSync(join("..", "..", "dotfiles", target.slice(dotfiles.length + 1)), link);
}

function expectLink(link: string, target: string): void {
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(join(link, "..", readlinkSync(link))).toBe(target);
}

const SETTINGS = '{\n    "model": "opus",\n  "permissions": {"allow": ["Bash(ls)"]}\n}';

describe("symlinked agent files (issue 21, item 4)", () => {
  it("hooks install/uninstall write through a symlinked settings.json and hooks.json, keeping links and modes", () => {
    const context: InstallContext = {
      dataDir: join(root, "data"),
      program: ["/usr/bin/node", "/opt/notify/dist/cli/main.js"],
      where: { home, cwd: root, env: {} },
    };
    const claudeLink = join(home, ".claude", "settings.json");
    const claudeTarget = join(dotfiles, "claude-settings.json");
    linked(claudeLink, claudeTarget, SETTINGS, 0o640);
    const codexLink = join(home, ".codex", "hooks.json");
    const codexTarget = join(dotfiles, "codex-hooks.json");
    linked(codexLink, codexTarget, '{"hooks":{}}', 0o600);

    for (const agent of ["claude-code", "codex"] as const) install(agent, "user", context);
    expectLink(claudeLink, claudeTarget);
    expectLink(codexLink, codexTarget);
    expect(JSON.parse(readFileSync(claudeTarget, "utf8")).hooks.Stop).toHaveLength(1);
    expect(JSON.parse(readFileSync(codexTarget, "utf8")).hooks.Stop).toHaveLength(1);
    expect(mode(claudeTarget)).toBe(0o640);
    expect(mode(codexTarget)).toBe(0o600);

    for (const agent of ["claude-code", "codex"] as const) uninstall(agent, "user", context);
    expectLink(claudeLink, claudeTarget);
    expectLink(codexLink, codexTarget);
    expect(readFileSync(claudeTarget, "utf8")).toBe(SETTINGS);
    expect(readFileSync(codexTarget, "utf8")).toBe('{"hooks":{}}');
    expect(mode(claudeTarget)).toBe(0o640);
  });

  it("router connect/disconnect and a restore write through symlinked config.toml and settings.json", () => {
    const service = connectorService(root, home, "nrk_symlink");
    const tomlLink = join(home, ".codex", "config.toml");
    const tomlTarget = join(dotfiles, "codex-config.toml");
    const toml = 'model = "gpt-5.5"\n\n[tui]\nnotifications = true\n';
    linked(tomlLink, tomlTarget, toml, 0o600);
    const jsonLink = join(home, ".claude", "settings.json");
    const jsonTarget = join(dotfiles, "claude-settings.json");
    linked(jsonLink, jsonTarget, SETTINGS, 0o600);

    service.connect("codex", {});
    service.connect("claude-code", {});
    expectLink(tomlLink, tomlTarget);
    expectLink(jsonLink, jsonTarget);
    expect(readFileSync(tomlTarget, "utf8")).toContain("nrk_symlink");
    expect(readFileSync(jsonTarget, "utf8")).toContain("nrk_symlink");
    expect(mode(tomlTarget)).toBe(0o600);

    service.disconnect("codex");
    service.disconnect("claude-code");
    expectLink(tomlLink, tomlTarget);
    expectLink(jsonLink, jsonTarget);
    expect(readFileSync(tomlTarget, "utf8")).toBe(toml);
    expect(readFileSync(jsonTarget, "utf8")).toBe(SETTINGS);

    // Putting back the copy taken at connect (the owner's original) also goes through the link.
    writeFileSync(tomlTarget, "# changed\n");
    const copy = service.listBackups().find((backup) => backup.file === tomlLink && backup.reason === "connect");
    service.restoreBackup(copy?.id as string);
    expectLink(tomlLink, tomlTarget);
    expect(readFileSync(tomlTarget, "utf8")).toBe(toml);
    expect(mode(tomlTarget)).toBe(0o600);
  });
});
