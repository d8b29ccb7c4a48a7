// Issue 32, item 3: every command Notify writes runs without PATH. The hook a real `notify hooks install` writes and
// the unit's ExecStart are run with `env -i` and systemd's default PATH (where /usr/bin/node, if any, may be too old
// for the CLI), and doctor runs each written command the same way, names the Node it uses, and flags one that
// finds its Node through `#!/usr/bin/env node`.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Json } from "@notify/test-kit";
import { untilValue } from "@notify/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { SYSTEMD_DEFAULT_PATH } from "../../src/cli/doctor/command-start.js";
import { CLI, type CliBroker, cliEnv, closedPort, NO_FOLLOW_UPS, runCli, startCliBroker } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";
import { claude } from "../hooks/fixtures.js";

const brokers: CliBroker[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGTERM");
  for (const broker of brokers.splice(0)) await broker.close();
});

/** `env -i PATH=<systemd's default> sh -c COMMAND` with the agent's JSON on stdin. */
function runBare(command: string, stdin: unknown): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("env", ["-i", `PATH=${SYSTEMD_DEFAULT_PATH}`, "sh", "-c", command], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stderr }));
    child.stdin.end(JSON.stringify(stdin));
  });
}

/**
 * A PATH whose first entry has a `notify` linked to this package's own bin shim, as a global install has: before
 * issue 32 that was the command written, and its `#!/usr/bin/env node` found whichever Node PATH held.
 */
function pathWithInstalledNotify(): string {
  const bin = tempDir("notify-path-bin-");
  const shim = ["../../bin/notify.js", "../../bin/notify"]
    .map((path) => fileURLToPath(new URL(path, import.meta.url)))
    .find((path) => existsSync(path)) as string;
  symlinkSync(shim, join(bin, "notify"));
  return [bin, process.env.PATH].join(delimiter);
}

function home(): NodeJS.ProcessEnv {
  const dir = tempDir("notify-written-home-");
  mkdirSync(join(dir, ".claude"));
  return cliEnv({
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, ".config"),
    DBUS_SESSION_BUS_ADDRESS: "",
    PATH: pathWithInstalledNotify(),
  });
}

async function doctorCheck(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<Json> {
  const result = await runCli(["doctor", "--json", ...args], env);
  return (JSON.parse(result.stdout).checks as Json[]).find((check) => check.name === name) as Json;
}

const node = realpathSync(process.execPath);

describe("commands Notify writes run without PATH (issue 32, item 3)", () => {
  it("a hook written by `notify hooks install` runs under env -i with systemd's default PATH", async () => {
    const broker = await startCliBroker(NO_FOLLOW_UPS);
    brokers.push(broker);
    const env = home();
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "command", ...broker.target], env)).code).toBe(
      0,
    );
    const settings = JSON.parse(readFileSync(join(env.HOME as string, ".claude", "settings.json"), "utf8"));
    const stop = settings.hooks.Stop[0].hooks[0].command as string;
    // The absolute runtime and the real path of the CLI file, nothing looked up on PATH.
    expect(stop.startsWith(`${node} ${realpathSync(CLI)} hook claude-code Stop`)).toBe(true);
    const ran = await runBare(stop, { ...claude.stop.input, session_id: "s-bare-path" });
    expect(ran, ran.stderr).toEqual({ code: 0, stderr: "" });
    const { body } = await broker.api<Json[]>("GET", "/v1/notifications?type=completed&agent=claude-code");
    expect(body.find((n) => n.metadata?.arc?.session_id === "s-bare-path")).toBeDefined();

    // doctor ran each distinct command the same way and names the Node it runs with.
    const hooks = await doctorCheck("hooks", broker.target, env);
    expect(hooks).toMatchObject({ status: "ok" });
    expect(hooks.detail).toContain(`every command starts without PATH; run with Node ${process.version} (${node})`);
  });

  it("doctor fails a hook whose `#!/usr/bin/env node` finds no usable Node under systemd's default PATH", async () => {
    const broker = await startCliBroker();
    brokers.push(broker);
    const env = home();
    // What hooks held before: an installed `notify` shim that leaves the choice of Node to PATH.
    const bin = tempDir("notify-shim-");
    const shim = join(bin, "notify");
    writeFileSync(shim, `#!/usr/bin/env node\nimport ${JSON.stringify(realpathSync(CLI))};\n`);
    chmodSync(shim, 0o755);
    const bareNode = spawnSync("env", ["-i", `PATH=${SYSTEMD_DEFAULT_PATH}`, "node", "--version"], {
      encoding: "utf8",
    });
    const settings = join(env.HOME as string, ".claude", "settings.json");
    const command = `${shim} hook claude-code Stop --data-dir ${broker.dataDir} --port ${broker.broker.port}`;
    writeFileSync(settings, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } }));
    const hooks = await doctorCheck("hooks", broker.target, env);
    expect(hooks.fix).toBe("notify hooks install claude-code --scope user");
    if (bareNode.status === 0 && Number(/^v(\d+)/.exec(bareNode.stdout)?.[1]) >= 23) {
      // A new enough Node on the default PATH: it starts, but the Node it gets depends on PATH.
      expect(hooks.status).toBe("warn");
      expect(hooks.detail).toContain("finds its Node through PATH");
    } else {
      // This machine: /usr/bin/node is Node 20 (or none), and the CLI refuses it.
      expect(hooks.status).toBe("fail");
      expect(hooks.detail).toContain(`claude-code user hooks (Stop) in ${settings}: ${shim} does not start without`);
    }
    // A reinstall writes the absolute command again, and doctor is content.
    expect((await runCli(["hooks", "install", "claude-code", "--kind", "command", ...broker.target], env)).code).toBe(
      0,
    );
    expect(await doctorCheck("hooks", broker.target, env)).toMatchObject({ status: "ok" });
  });

  it("the unit passes systemd-analyze verify and its ExecStart starts a broker under env -i", async () => {
    const port = await closedPort();
    const dataDir = tempDir("notify-written-data-");
    const env = cliEnv({
      XDG_CONFIG_HOME: tempDir("notify-xdg-"),
      NOTIFY_DATA_DIR: dataDir,
      NOTIFY_PORT: String(port),
      PATH: pathWithInstalledNotify(),
    });
    const printed = await runCli(["service", "install", "--print", "--platform", "systemd"], env);
    expect(printed.code, printed.stderr).toBe(0);
    const unit = printed.stdout;
    const execStart = unit.split("\n").find((line) => line.startsWith("ExecStart=")) as string;
    expect(execStart).toBe(`ExecStart=${node} --max-semi-space-size=4 ${realpathSync(CLI)} serve`);
    const dir = tempDir("notify-unit-");
    writeFileSync(join(dir, "notify.service"), unit);
    const verified = spawnSync("systemd-analyze", ["verify", join(dir, "notify.service")], { encoding: "utf8" });
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stderr).not.toMatch(/notify\.service/);

    const environment = unit
      .split("\n")
      .filter((line) => line.startsWith("Environment="))
      .map((line) => line.slice("Environment=".length));
    const child = spawn(
      "env",
      ["-i", `PATH=${SYSTEMD_DEFAULT_PATH}`, ...environment, ...execStart.slice("ExecStart=".length).split(" ")],
      { stdio: "ignore" },
    );
    children.push(child);
    await untilValue("the unit's broker to answer /health", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      return response?.ok ? true : undefined;
    });
  });
});
