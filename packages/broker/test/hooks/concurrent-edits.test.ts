import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type InstallContext, install, uninstall } from "../../src/hooks/install/installer.js";
import { installMcp, uninstallMcp } from "../../src/mcp/install.js";
import { connectorService } from "../connectors/connector-fixture.js";

/**
 * Issue 21, item 7: an owner (another process) writes to the agent's file while Notify installs and uninstalls its
 * hooks or connects and disconnects 40 times: every line the owner wrote is still there at the end.
 */

/**
 * The owner's writer: `append` adds `# owner line N` to a TOML file the way `echo >> file` does; `json` adds a key
 * `"ownerN": N` to a JSON file in place (read, then one write over the whole file, as an editor saving in place).
 * Each N is printed once its write returned; the writer pauses 0-3 ms (2-8 ms for JSON) between writes and stops
 * on SIGTERM.
 */
const WRITER = `
const fs = require("node:fs");
const [mode, file] = process.argv.slice(1);
let n = 0;
let stop = false;
process.on("SIGTERM", () => { stop = true; });
const pause = () =>
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, mode === "append" ? Math.random() * 3 : 2 + Math.random() * 6);
const tick = () => {
  for (let i = 0; i < 20 && !stop; i += 1) {
    n += 1;
    if (mode === "append") fs.appendFileSync(file, "# owner line " + n + "\\n");
    else {
      const fd = fs.openSync(file, "r+");
      const document = JSON.parse(fs.readFileSync(fd, "utf8"));
      document["owner" + n] = n;
      const text = Buffer.from(JSON.stringify(document, null, 2) + "\\n");
      fs.writeSync(fd, text, 0, text.length, 0);
      fs.ftruncateSync(fd, text.length);
      fs.closeSync(fd);
    }
    process.stdout.write(n + "\\n");
    pause();
  }
  if (stop) process.exit(0);
  setImmediate(tick);
};
tick();
`;

let root: string;
let home: string;
let writer: ChildProcess | undefined;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "notify-concurrent-"));
  home = join(root, "home");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(home, ".codex"), { recursive: true });
});
afterEach(() => {
  writer?.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

/** Starts the writer and resolves once it has written a few lines; `stop` ends it and returns the written Ns. */
async function startWriter(mode: "append" | "json", file: string): Promise<{ stop: () => Promise<number[]> }> {
  const child = spawn(process.execPath, ["-e", WRITER, mode, file], { stdio: ["ignore", "pipe", "inherit"] });
  writer = child;
  let out = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 30_000;
  while (out.split("\n").length <= 5) {
    if (Date.now() > deadline) throw new Error("the owner's writer did not start");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      return out
        .split("\n")
        .filter((line) => line !== "")
        .map(Number);
    },
  };
}

describe("an owner's edits made while Notify edits the same file (issue 21, item 7)", () => {
  it("40 hooks install/uninstall cycles under an owner adding keys in place: every key survives", async () => {
    const context: InstallContext = {
      dataDir: join(root, "data"),
      program: ["/usr/bin/node", "/opt/notify/dist/cli/main.js"],
      where: { home, cwd: root, env: {} },
    };
    const file = join(home, ".claude", "settings.json");
    writeFileSync(file, `${JSON.stringify({ model: "opus" }, null, 2)}\n`);
    const owner = await startWriter("json", file);
    for (let cycle = 0; cycle < 40; cycle += 1) {
      install("claude-code", "user", context);
      uninstall("claude-code", "user", context);
    }
    const written = await owner.stop();
    const document = JSON.parse(readFileSync(file, "utf8"));
    expect(written.length).toBeGreaterThan(40);
    expect(written.filter((n) => document[`owner${n}`] !== n)).toEqual([]);
    expect(document.hooks).toBeUndefined();
  }, 120_000);

  it("the same for Gemini CLI's settings.json (hooks) and Copilot CLI's mcp-config.json (MCP) (issue 38)", async () => {
    const context: InstallContext = {
      dataDir: join(root, "data"),
      program: ["/usr/bin/node", "/opt/notify/dist/cli/main.js"],
      where: { home, cwd: root, env: {} },
    };
    const cases: { file: string; cycle: () => void; notifyKey: (document: Record<string, unknown>) => unknown }[] = [
      {
        file: join(home, ".gemini", "settings.json"),
        cycle: () => {
          install("gemini", "user", context);
          uninstall("gemini", "user", context);
        },
        notifyKey: (document) => document.hooks,
      },
      {
        file: join(home, ".copilot", "mcp-config.json"),
        cycle: () => {
          installMcp("copilot", "user", context);
          uninstallMcp("copilot", "user", context);
        },
        notifyKey: (document) => (document.mcpServers as Record<string, unknown> | undefined)?.notify,
      },
    ];
    for (const { file, cycle, notifyKey } of cases) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify({ theme: "dark", mcpServers: {} }, null, 2)}\n`);
      const owner = await startWriter("json", file);
      for (let round = 0; round < 20; round += 1) cycle();
      const written = await owner.stop();
      const document = JSON.parse(readFileSync(file, "utf8"));
      expect(written.length, file).toBeGreaterThan(20);
      expect(
        written.filter((n) => document[`owner${n}`] !== n),
        file,
      ).toEqual([]);
      expect(notifyKey(document), file).toBeUndefined();
    }
  }, 120_000);

  it("a settings.json caught between an owner's write and truncate is waited for, not refused", async () => {
    const context: InstallContext = {
      dataDir: join(root, "data"),
      program: ["/usr/bin/node", "/opt/notify/dist/cli/main.js"],
      where: { home, cwd: root, env: {} },
    };
    const file = join(home, ".claude", "settings.json");
    const whole = `${JSON.stringify({ model: "opus", owner: 1 }, null, 2)}\n`;
    // What an in-place save leaves between its write and its truncate: the new text, then the old text's tail.
    writeFileSync(file, `${whole}  "left": "over"\n}\n`);
    const fixer = spawn(
      process.execPath,
      [
        "-e",
        `console.log("ready"); setTimeout(() => require("node:fs").writeFileSync(process.argv[1], process.argv[2]), 400);`,
        file,
        whole,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    writer = fixer;
    await new Promise<void>((resolve) => fixer.stdout?.once("data", () => resolve()));
    install("claude-code", "user", context);
    const document = JSON.parse(readFileSync(file, "utf8"));
    expect(document.owner).toBe(1);
    expect(document.hooks).toBeDefined();
  }, 60_000);

  it("40 router connect/disconnect cycles under an owner appending lines: every line survives", async () => {
    const service = connectorService(root, home, "nrk_concurrent");
    const file = join(home, ".codex", "config.toml");
    writeFileSync(file, 'model = "gpt-5.5"\n');
    const owner = await startWriter("append", file);
    for (let cycle = 0; cycle < 40; cycle += 1) {
      service.connect("codex", {});
      service.disconnect("codex");
    }
    const written = await owner.stop();
    expect(existsSync(file)).toBe(true);
    const lines = new Set(readFileSync(file, "utf8").split("\n"));
    expect(written.length).toBeGreaterThan(40);
    expect(written.filter((n) => !lines.has(`# owner line ${n}`))).toEqual([]);
    expect(lines.has('model = "gpt-5.5"')).toBe(true);
    expect(readFileSync(file, "utf8")).not.toContain("nrk_concurrent");
  }, 120_000);
});
