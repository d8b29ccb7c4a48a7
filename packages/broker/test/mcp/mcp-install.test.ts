import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import type { Json } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { install as installHooks } from "../../src/hooks/install/installer.js";
import { installMcp, mcpStatus, uninstallMcp } from "../../src/mcp/install.js";
import { tempDir } from "../helpers.js";

/**
 * Issue 26 item 2: `notify mcp install|uninstall` edits the agents' own MCP configuration with the hooks' rules:
 * a backup before every change, idempotent, only Notify's entry touched, and the user's file back byte for byte on
 * uninstall when nobody changed it since.
 */
const PROGRAM = ["/opt/node/bin/node", "/opt/notify/packages/broker/dist/cli/main.js"];

function setup() {
  const root = tempDir("notify-mcp-install-");
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(home, ".codex"), { recursive: true });
  mkdirSync(project);
  const context = {
    dataDir: join(root, "data"),
    program: PROGRAM,
    extra: ["--data-dir", "/d"],
    where: { home, cwd: project, env: {} },
  };
  return { home, project, context };
}

describe("notify mcp install claude-code", () => {
  it("user scope: adds mcpServers.notify to ~/.claude.json, keeps the rest; uninstall restores it byte for byte", () => {
    const { home, context } = setup();
    const file = join(home, ".claude.json");
    const original = '{"numStartups":3,"mcpServers":{"other":{"command":"x"}},\n  "theme":"dark"}';
    writeFileSync(file, original);

    const result = installMcp("claude-code", "user", context);
    expect(result).toMatchObject({ changed: true, summary: `installed into ${file}` });
    expect(readFileSync(result.backup ?? "", "utf8")).toBe(original);
    const written: Json = JSON.parse(readFileSync(file, "utf8"));
    expect(written).toMatchObject({ numStartups: 3, theme: "dark", mcpServers: { other: { command: "x" } } });
    expect(written.mcpServers.notify).toEqual({
      type: "stdio",
      command: PROGRAM[0],
      args: [PROGRAM[1], "mcp", "--data-dir", "/d"],
      timeout: 3_660_000,
      alwaysLoad: true,
    });
    expect(installMcp("claude-code", "user", context)).toMatchObject({ changed: false });
    expect(mcpStatus(context.where).find((row) => row.agent === "claude-code" && row.scope === "user")).toMatchObject({
      installed: true,
      command: [...PROGRAM, "mcp", "--data-dir", "/d"],
    });

    expect(uninstallMcp("claude-code", "user", context)).toMatchObject({ changed: true });
    expect(readFileSync(file, "utf8")).toBe(original);
  });

  it("a file Claude Code rewrote since: uninstall takes out only Notify's entry", () => {
    const { home, context } = setup();
    const file = join(home, ".claude.json");
    writeFileSync(file, '{"numStartups":1}');
    installMcp("claude-code", "user", context);
    const changed: Json = JSON.parse(readFileSync(file, "utf8"));
    changed.numStartups = 2;
    writeFileSync(file, JSON.stringify(changed));
    expect(uninstallMcp("claude-code", "user", context)).toMatchObject({ changed: true });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ numStartups: 2 });
  });

  it("project scope: creates .mcp.json and removes it again; a foreign server named notify is refused", () => {
    const { project, context } = setup();
    const file = join(project, ".mcp.json");
    installMcp("claude-code", "project", context);
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.notify.args).toContain("mcp");
    uninstallMcp("claude-code", "project", context);
    expect(existsSync(file)).toBe(false);

    const foreign = '{"mcpServers":{"notify":{"command":"ntfy-mcp"}}}';
    writeFileSync(file, foreign);
    expect(() => installMcp("claude-code", "project", context)).toThrow(/not Notify's; it was left as it was/);
    expect(readFileSync(file, "utf8")).toBe(foreign);
  });

  it("refuses a file it cannot parse, and an agent that is not installed", () => {
    const { home, context } = setup();
    writeFileSync(join(home, ".claude.json"), "{not json");
    expect(() => installMcp("claude-code", "user", context)).toThrow(/cannot parse .*left as it was/);
    expect(readFileSync(join(home, ".claude.json"), "utf8")).toBe("{not json");
    const bare = { ...context, where: { ...context.where, home: join(home, "nobody") } };
    expect(() => installMcp("codex", "user", bare)).toThrow(/Codex CLI does not seem to be installed/);
  });
});

describe("notify mcp install codex", () => {
  const original = [
    "# my settings",
    'model = "gpt-5"',
    "",
    "[mcp_servers.docs]",
    'command = "docs-mcp"',
    "",
    '[projects."/work"]',
    'trust_level = "trusted"',
  ].join("\n");

  it("appends [mcp_servers.notify] with tool_timeout_sec; the rest keeps its bytes; uninstall restores them", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    writeFileSync(file, original);
    expect(installMcp("codex", "user", context)).toMatchObject({ changed: true });
    const text = readFileSync(file, "utf8");
    expect(text.startsWith(`${original}\n\n`)).toBe(true);
    expect(text.slice(original.length + 2)).toBe(
      [
        "# Notify's MCP server (notify mcp install codex); `notify mcp uninstall codex` removes it.",
        "[mcp_servers.notify]",
        `command = "${PROGRAM[0]}"`,
        `args = ["${PROGRAM[1]}", "mcp", "--data-dir", "/d"]`,
        "startup_timeout_sec = 30",
        "tool_timeout_sec = 3660",
        "required = true",
        "",
      ].join("\n"),
    );
    expect(installMcp("codex", "user", context)).toMatchObject({ changed: false });
    expect(mcpStatus(context.where).find((row) => row.agent === "codex" && row.scope === "user")).toMatchObject({
      installed: true,
      command: [...PROGRAM, "mcp", "--data-dir", "/d"],
    });
    expect(uninstallMcp("codex", "user", context)).toMatchObject({ changed: true });
    expect(readFileSync(file, "utf8")).toBe(original);
  });

  it("edited since: uninstall cuts out only Notify's table (and its sub-tables), the user's later edits stay", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    writeFileSync(file, `${original}\n`);
    installMcp("codex", "user", context);
    const edited = `${readFileSync(file, "utf8")}\n[mcp_servers.notify.env]\nX = "1"\n\n[tui]\ntheme = "dark"\n`;
    writeFileSync(file, edited);
    uninstallMcp("codex", "user", context);
    expect(readFileSync(file, "utf8")).toBe(`${original}\n\n[tui]\ntheme = "dark"\n`);
  });

  it("refuses mcp_servers written as an inline table or dotted keys (left as it was)", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    const inline = 'mcp_servers = { notify = { command = "x" } }\n';
    writeFileSync(file, inline);
    expect(() => installMcp("codex", "user", context)).toThrow(/a form Notify does not edit/);
    expect(readFileSync(file, "utf8")).toBe(inline);
  });

  it("refuses a config.toml it cannot parse, naming the line; the file, backups and status say so (issue 31, item 6)", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    const broken = 'model = "gpt-5"\n\n[mcp_servers.docs\ncommand = "docs-mcp"\n';
    writeFileSync(file, broken);
    expect(() => installMcp("codex", "user", context)).toThrow(
      new RegExp(
        `^cannot parse ${file.replaceAll(".", "\\.")} \\(line 3, column 18: [^)]+\\); it was left as it was: fix it, then run this again$`,
      ),
    );
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(existsSync(join(context.dataDir, "hooks", "backups"))).toBe(false);
    expect(() => uninstallMcp("codex", "user", context)).toThrow(/cannot parse .*line 3/);
    expect(mcpStatus(context.where).find((row) => row.agent === "codex" && row.scope === "user")?.installed).toBe(null);
    // Fixed, it installs.
    writeFileSync(file, broken.replace("[mcp_servers.docs", "[mcp_servers.docs]"));
    expect(installMcp("codex", "user", context)).toMatchObject({ changed: true });
  });

  it("reads the file as TOML: a header inside a multi-line string is text, a [mcp_servers] table is fine", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    const original = [
      'instructions = """',
      "[mcp_servers.notify]",
      '"""',
      "",
      "[mcp_servers]",
      "",
      "[mcp_servers.docs]",
      'command = "docs-mcp"',
      "",
    ].join("\n");
    writeFileSync(file, original);
    expect(installMcp("codex", "user", context)).toMatchObject({ changed: true });
    expect(readFileSync(file, "utf8").startsWith(original)).toBe(true);
    expect(mcpStatus(context.where).find((row) => row.agent === "codex" && row.scope === "user")?.installed).toBe(true);
    uninstallMcp("codex", "user", context);
    expect(readFileSync(file, "utf8")).toBe(original);
  });

  it("refuses a [mcp_servers.notify] that is not Notify's, as the Claude Code path does", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    const theirs = '[mcp_servers.notify]\ncommand = "their-notifier"\n';
    writeFileSync(file, theirs);
    expect(() => installMcp("codex", "user", context)).toThrow(
      /already has an MCP server named "notify" that is not Notify's/,
    );
    expect(readFileSync(file, "utf8")).toBe(theirs);
  });

  it("refuses to add its table where mcp_servers is an inline table (the result would not parse)", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    const inline = 'mcp_servers = { docs = { command = "docs-mcp" } }\n';
    writeFileSync(file, inline);
    expect(() => installMcp("codex", "user", context)).toThrow(/a form Notify does not edit/);
    expect(readFileSync(file, "utf8")).toBe(inline);
  });

  it("project scope: <project>/.codex/config.toml, created and removed with its directory", () => {
    const { project, context } = setup();
    installMcp("codex", "project", context);
    expect(readFileSync(join(project, ".codex", "config.toml"), "utf8")).toContain("[mcp_servers.notify]");
    uninstallMcp("codex", "project", context);
    expect(existsSync(join(project, ".codex"))).toBe(false);
  });
});

describe("notify mcp install edits the agent's file as hooks do (editFile)", () => {
  it("a symlinked ~/.claude.json stays a link; the file keeps its mode, BOM and CRLF line ends", () => {
    const { home, context } = setup();
    const real = join(home, "dotfiles", "claude.json");
    mkdirSync(join(home, "dotfiles"));
    const original = '\uFEFF{\r\n  "theme": "dark"\r\n}\r\n';
    writeFileSync(real, original, { mode: 0o640 });
    chmodSync(real, 0o640);
    const link = join(home, ".claude.json");
    symlinkSync(real, link);

    installMcp("claude-code", "user", context);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const text = readFileSync(real, "utf8");
    expect(text.startsWith("\uFEFF{\r\n")).toBe(true);
    expect(text.replaceAll("\r\n", "").includes("\n")).toBe(false);
    expect(JSON.parse(text.slice(1)).mcpServers.notify.args).toContain("mcp");
    expect(statSync(real).mode & 0o777).toBe(0o640);

    // Changed since (the agent rewrote it, in its own style): only Notify's entry goes, the style stays.
    writeFileSync(real, text.replace('"theme": "dark"', '"theme": "light"'));
    uninstallMcp("claude-code", "user", context);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toBe('\uFEFF{\r\n  "theme": "light"\r\n}\r\n');
  });

  it("Codex's CRLF config.toml gets a CRLF block and is restored byte for byte", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    const original = 'model = "gpt-5"\r\n\r\n[tui]\r\ntheme = "dark"\r\n';
    writeFileSync(file, original);
    installMcp("codex", "user", context);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("[mcp_servers.notify]\r\n");
    expect(text.replaceAll("\r\n", "").includes("\n")).toBe(false);
    expect(mcpStatus(context.where).find((row) => row.agent === "codex" && row.scope === "user")?.installed).toBe(true);
    // Edited since: stripping keeps the CRLF style.
    writeFileSync(file, `${text}[history]\r\npersistence = "none"\r\n`);
    uninstallMcp("codex", "user", context);
    expect(readFileSync(file, "utf8")).toBe(`${original}\r\n[history]\r\npersistence = "none"\r\n`);
  });
});

describe("backups: each kind its own name and its file's extension (issue 31, item 12)", () => {
  it("hooks-<agent>-<scope>-<time>.json, mcp-codex-<scope>-<time>.toml, mcp-claude-code-<scope>-<time>.json", () => {
    const { home, context } = setup();
    const toml = 'model = "gpt-5"\n';
    writeFileSync(join(home, ".codex", "config.toml"), toml);
    writeFileSync(join(home, ".codex", "hooks.json"), "{}\n");
    writeFileSync(join(home, ".claude.json"), '{"theme": "dark"}\n');
    const mcpToml = installMcp("codex", "user", context).backup ?? "";
    const hooks = installHooks("codex", "user", context).backup ?? "";
    const mcpJson = installMcp("claude-code", "user", context).backup ?? "";
    expect(basename(mcpToml)).toMatch(/^mcp-codex-user-\d{4}-\d\d-\d\dT[\d-]+\.\d{3}Z\.toml$/);
    expect(basename(hooks)).toMatch(/^hooks-codex-user-.+\.json$/);
    expect(basename(mcpJson)).toMatch(/^mcp-claude-code-user-.+\.json$/);
    expect(readFileSync(mcpToml, "utf8")).toBe(toml);
    expect(readFileSync(mcpJson, "utf8")).toBe('{"theme": "dark"}\n');
  });

  it("a backup written under the old name (<agent>-<scope>-<time>.json, even for TOML) still restores", () => {
    const { home, context } = setup();
    const file = join(home, ".codex", "config.toml");
    const original = '# mine\nmodel = "gpt-5"\n';
    writeFileSync(file, original);
    const taken = installMcp("codex", "user", context).backup ?? "";
    // As an install before issue 31 left it: the copy named like a hooks backup, with .json, and the record naming it.
    const old = join(context.dataDir, "hooks", "backups", "codex-user-2026-01-02T03-04-05.678Z.json");
    renameSync(taken, old);
    const records = join(context.dataDir, "hooks", "installs.json");
    writeFileSync(records, readFileSync(records, "utf8").replaceAll(JSON.stringify(taken), JSON.stringify(old)));
    expect(uninstallMcp("codex", "user", context)).toMatchObject({ changed: true });
    expect(readFileSync(file, "utf8")).toBe(original);
  });
});
