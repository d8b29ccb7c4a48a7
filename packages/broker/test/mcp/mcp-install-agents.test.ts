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
import type { AgentId } from "../../src/hooks/agents.js";
import { installMcp, mcpStatus, mcpTargetFor, uninstallMcp } from "../../src/mcp/install.js";
import { tempDir } from "../helpers.js";

/**
 * Issue 38, item 2: `notify mcp install|uninstall gemini|copilot|opencode` registers `notify mcp` in each agent's own
 * MCP configuration, in its own shape and with a tool timeout a person has time to answer in, under the rules and
 * hostile cases of the Claude Code and Codex installers (mcp-install.test.ts).
 */
const PROGRAM = ["/opt/node/bin/node", "/opt/notify/packages/broker/dist/cli/main.js"];
const WORDS = [PROGRAM[1], "mcp", "--data-dir", "/d"];

interface Case {
  agent: AgentId;
  /** The agent's per-user directory under HOME. */
  agentHome: string;
  user: string;
  project: string;
  key: string;
  entry: Json;
}

const CASES: Case[] = [
  {
    agent: "gemini",
    agentHome: ".gemini",
    user: ".gemini/settings.json",
    project: ".gemini/settings.json",
    key: "mcpServers",
    entry: { command: PROGRAM[0], args: WORDS, timeout: 3_660_000, trust: true },
  },
  {
    agent: "copilot",
    agentHome: ".copilot",
    user: ".copilot/mcp-config.json",
    project: ".github/mcp.json",
    key: "mcpServers",
    entry: { type: "local", command: PROGRAM[0], args: WORDS, tools: ["*"], timeout: 3_660_000 },
  },
  {
    agent: "opencode",
    agentHome: ".config/opencode",
    user: ".config/opencode/opencode.json",
    project: "opencode.json",
    key: "mcp",
    entry: { type: "local", command: [PROGRAM[0], ...WORDS], enabled: true, timeout: 3_660_000 },
  },
];

function setup(agentHome: string) {
  const root = tempDir("notify-mcp-agents-");
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(home, agentHome), { recursive: true });
  mkdirSync(project);
  const context = {
    dataDir: join(root, "data"),
    program: PROGRAM,
    extra: ["--data-dir", "/d"],
    where: { home, cwd: project, env: {} },
  };
  return { root, home, project, context };
}

describe.each(CASES)("notify mcp install $agent", ({ agent, agentHome, user, project, key, entry }) => {
  it("user scope: Notify's entry in the agent's shape, the rest kept; idempotent; uninstall restores byte for byte", () => {
    const { home, context } = setup(agentHome);
    const file = join(home, user);
    const original = `{"theme":"dark","${key}":{"other":{"command":"x"}},\n  "n":1}`;
    writeFileSync(file, original);

    const result = installMcp(agent, "user", context);
    expect(result).toMatchObject({ changed: true, summary: `installed into ${file}` });
    expect(readFileSync(result.backup ?? "", "utf8")).toBe(original);
    const written: Json = JSON.parse(readFileSync(file, "utf8"));
    expect(written).toMatchObject({ theme: "dark", n: 1, [key]: { other: { command: "x" } } });
    expect(written[key].notify).toEqual(entry);
    expect(installMcp(agent, "user", context)).toMatchObject({ changed: false });
    expect(mcpStatus(context.where).find((row) => row.agent === agent && row.scope === "user")).toMatchObject({
      installed: true,
      command: [...PROGRAM, "mcp", "--data-dir", "/d"],
    });

    expect(uninstallMcp(agent, "user", context)).toMatchObject({ changed: true });
    expect(readFileSync(file, "utf8")).toBe(original);
    expect(uninstallMcp(agent, "user", context)).toMatchObject({ changed: false });
  });

  it("project scope: a file Notify creates goes again at uninstall, with the folder it made", () => {
    const { project: cwd, context } = setup(agentHome);
    const file = join(cwd, project);
    expect(mcpTargetFor(agent, "project", context.where).file).toBe(file);
    expect(installMcp(agent, "project", context)).toMatchObject({ changed: true });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ [key]: { notify: entry } });
    expect(uninstallMcp(agent, "project", context)).toMatchObject({ changed: true, summary: `removed ${file}` });
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("the owner's edit after install is kept: uninstall takes out only Notify's entry", () => {
    const { home, context } = setup(agentHome);
    const file = join(home, user);
    writeFileSync(file, '{"n":1}');
    installMcp(agent, "user", context);
    const changed: Json = JSON.parse(readFileSync(file, "utf8"));
    changed.n = 2;
    changed[key].mine = { command: "mine" };
    writeFileSync(file, JSON.stringify(changed, null, 2));
    expect(uninstallMcp(agent, "user", context)).toMatchObject({ changed: true });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ n: 2, [key]: { mine: { command: "mine" } } });
  });

  it("a symlinked file stays a link; its mode, BOM and CRLF line ends are kept", () => {
    const { root, home, context } = setup(agentHome);
    const real = join(root, "real.json");
    const original = '\uFEFF{\r\n  "theme": "dark"\r\n}\r\n';
    writeFileSync(real, original);
    chmodSync(real, 0o640);
    const link = join(home, user);
    symlinkSync(real, link);
    installMcp(agent, "user", context);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const text = readFileSync(real, "utf8");
    expect(text.startsWith("\uFEFF{\r\n")).toBe(true);
    expect(text.replaceAll("\r\n", "").includes("\n")).toBe(false);
    expect(statSync(real).mode & 0o777).toBe(0o640);
    uninstallMcp(agent, "user", context);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toBe(original);
  });

  it("refuses, leaving the file as it was: malformed JSON, a servers key that is no object, another 'notify'", () => {
    const { home, root, context } = setup(agentHome);
    const file = join(home, user);
    for (const bad of [
      '{"theme": "dark",',
      `{"${key}": [1]}`,
      `{"${key}": {"notify": {"command": "/usr/bin/other"}}}`,
    ]) {
      writeFileSync(file, bad);
      expect(() => installMcp(agent, "user", context)).toThrow(/left as it was/);
      expect(readFileSync(file, "utf8")).toBe(bad);
    }
    expect(existsSync(join(root, "data", "hooks", "installs.json"))).toBe(false);
  });

  it("refuses when the agent is not installed (its per-user directory is missing), creating nothing", () => {
    const root = tempDir("notify-mcp-agents-");
    const context = { dataDir: join(root, "data"), program: PROGRAM, where: { home: join(root, "home"), env: {} } };
    expect(() => installMcp(agent, "user", context)).toThrow(/does not seem to be installed/);
    expect(existsSync(join(root, "home"))).toBe(false);
  });
});

describe("each agent's own environment variable moves its user file", () => {
  it("GEMINI_CLI_HOME, COPILOT_HOME, XDG_CONFIG_HOME", () => {
    const env = { GEMINI_CLI_HOME: "/g", COPILOT_HOME: "/c", XDG_CONFIG_HOME: "/x" };
    const where = { home: "/h", cwd: "/p", env };
    expect(mcpTargetFor("gemini", "user", where).file).toBe("/g/.gemini/settings.json");
    expect(mcpTargetFor("copilot", "user", where).file).toBe("/c/mcp-config.json");
    expect(mcpTargetFor("opencode", "user", where).file).toBe("/x/opencode/opencode.json");
  });
});
