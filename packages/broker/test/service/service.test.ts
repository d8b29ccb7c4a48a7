// Issue 22, part 3: `notify service install|uninstall|status [--print]` (docs/install.md,
// "Run as a service"). The unit is checked by systemd's own `systemd-analyze verify`, its ExecStart line is run for real, the
// launchd plist is parsed and its keys checked, and install/uninstall run against a temporary XDG_CONFIG_HOME. Here
// `systemctl --user` finds no manager, so the path under test is the one that prints the commands to run;
// user-manager.e2e.test.ts starts a real `systemd --user` and enables, starts, restarts and stops the unit through it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, closedPort, runCli, startCliBroker } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";

const analyze = spawnSync("systemd-analyze", ["--version"], { stdio: "ignore" }).status === 0;
if (!analyze && process.env.CI === "true") throw new Error("systemd-analyze is missing: apt-get install systemd");
if (!analyze) console.warn("\n*** SKIPPING systemd-analyze verify: apt-get install systemd ***\n");

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGTERM");
});

function serviceEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cliEnv({ XDG_CONFIG_HOME: tempDir("notify-xdg-"), ...extra });
}

/** `Key=value` lines of one section of a unit file, in order. */
function unitLines(unit: string, key: string): string[] {
  return unit
    .split("\n")
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));
}

/** A small XML property-list reader for the value types launchd.plist(5) uses here. */
function parsePlist(text: string): unknown {
  const tokens = text
    .replace(/<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--[\s\S]*?-->/g, "")
    .match(/<[^>]+>|[^<]+/g)
    ?.map((token) => token.trim())
    .filter((token) => token !== "") as string[];
  let at = 0;
  const decode = (value: string) =>
    value.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
  const value = (): unknown => {
    const tag = tokens[at++];
    if (tag === "<true/>") return true;
    if (tag === "<false/>") return false;
    if (tag === "<string>") {
      const text = tokens[at] === "</string>" ? "" : decode(tokens[at++] as string);
      expect(tokens[at++]).toBe("</string>");
      return text;
    }
    if (tag === "<array>") {
      const items: unknown[] = [];
      while (tokens[at] !== "</array>") items.push(value());
      at++;
      return items;
    }
    if (tag === "<dict>") {
      const dict: Record<string, unknown> = {};
      while (tokens[at] !== "</dict>") {
        expect(tokens[at++]).toBe("<key>");
        const key = decode(tokens[at++] as string);
        expect(tokens[at++]).toBe("</key>");
        dict[key] = value();
      }
      at++;
      return dict;
    }
    throw new Error(`unexpected plist token ${tag}`);
  };
  expect(tokens[at++]).toBe('<plist version="1.0">');
  const root = value();
  expect(tokens[at]).toBe("</plist>");
  return root;
}

async function healthy(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`no /health on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("notify service install --print (systemd)", () => {
  it("prints a unit systemd-analyze verify accepts, with the user's data dir and port and no secret", async () => {
    const dataDir = tempDir("notify-service-data-");
    const env = serviceEnv({
      NOTIFY_DATA_DIR: dataDir,
      NOTIFY_PORT: "47999",
      NOTIFY_TOKEN: "secret-token-never-in-unit",
    });
    const printed = await runCli(["service", "install", "--print", "--platform", "systemd"], env);
    expect(printed.code, printed.stderr).toBe(0);
    const unit = printed.stdout;
    expect(unitLines(unit, "Restart")).toEqual(["on-failure"]);
    expect(unitLines(unit, "WantedBy")).toEqual(["default.target"]);
    expect(unitLines(unit, "Environment")).toEqual([`NOTIFY_DATA_DIR=${dataDir}`, "NOTIFY_PORT=47999"]);
    expect(unitLines(unit, "ExecStart")[0]).toMatch(/ serve$/);
    // The broker's V8 flag is on node's command line (the checkout's CLI here), so serve does not re-execute itself.
    expect(unitLines(unit, "ExecStart")[0]?.split(" ")[1]).toBe("--max-semi-space-size=4");
    expect(unit).not.toContain("secret-token-never-in-unit");
    expect(existsSync(join(env.XDG_CONFIG_HOME as string, "systemd"))).toBe(false);
    if (!analyze) return;
    const dir = tempDir("notify-unit-");
    writeFileSync(join(dir, "notify.service"), unit);
    const verified = spawnSync("systemd-analyze", ["verify", join(dir, "notify.service")], { encoding: "utf8" });
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stderr).not.toMatch(/notify\.service/);
  });

  it("its ExecStart line, run as systemd would with its Environment, starts a broker that answers /health", async () => {
    const port = await closedPort();
    const dataDir = tempDir("notify-service-data-");
    const printed = await runCli(
      ["service", "install", "--print", "--platform", "systemd"],
      serviceEnv({ NOTIFY_DATA_DIR: dataDir, NOTIFY_PORT: String(port) }),
    );
    const [execStart] = unitLines(printed.stdout, "ExecStart");
    const [program, ...args] = (execStart as string).split(" ");
    const environment = Object.fromEntries(
      unitLines(printed.stdout, "Environment").map((line) => [line.split("=")[0], line.slice(line.indexOf("=") + 1)]),
    );
    const child = spawn(program as string, args, { env: { PATH: "/usr/bin:/bin", ...environment }, stdio: "ignore" });
    children.push(child);
    await healthy(port);
    expect(statSync(join(dataDir, "config.json")).isFile()).toBe(true);
  });
});

describe("notify service install|uninstall|status", () => {
  it("install writes the unit and prints the commands when no user manager answers; again is a no-op", async () => {
    const env = serviceEnv({ NOTIFY_PORT: String(await closedPort()) });
    const unitPath = join(env.XDG_CONFIG_HOME as string, "systemd", "user", "notify.service");
    const first = await runCli(["service", "install", "--platform", "systemd"], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`installed: ${unitPath}\n`);
    expect(first.stderr).toContain("systemctl --user enable --now notify.service");
    const written = readFileSync(unitPath, "utf8");
    const mtime = statSync(unitPath).mtimeMs;
    const second = await runCli(["service", "install", "--platform", "systemd"], env);
    expect(second.stdout).toBe(`already installed: ${unitPath}\n`);
    expect(readFileSync(unitPath, "utf8")).toBe(written);
    expect(statSync(unitPath).mtimeMs).toBe(mtime);

    const status = JSON.parse((await runCli(["service", "status", "--json", "--platform", "systemd"], env)).stdout);
    expect(status).toMatchObject({ installed: true, file: unitPath, running: false, manager: false });
    expect(status.logs).toBe("journalctl --user -u notify.service");

    const removed = await runCli(["service", "uninstall", "--platform", "systemd"], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`removed: ${unitPath}\n`);
    expect(existsSync(unitPath)).toBe(false);
    expect((await runCli(["service", "uninstall", "--platform", "systemd"], env)).stdout).toBe(
      `not installed: ${unitPath}\n`,
    );
  });

  it("never overwrites or removes a notify.service it did not write", async () => {
    const env = serviceEnv();
    const unitPath = join(env.XDG_CONFIG_HOME as string, "systemd", "user", "notify.service");
    mkdirSync(join(env.XDG_CONFIG_HOME as string, "systemd", "user"), { recursive: true });
    writeFileSync(unitPath, "[Service]\nExecStart=/usr/bin/true\n");
    const install = await runCli(["service", "install", "--platform", "systemd"], env);
    expect(install.code).toBe(1);
    expect(install.stderr).toContain("was not written by Notify");
    const uninstall = await runCli(["service", "uninstall", "--platform", "systemd"], env);
    expect(uninstall.code).toBe(1);
    expect(readFileSync(unitPath, "utf8")).toBe("[Service]\nExecStart=/usr/bin/true\n");
  });

  it("an install while a foreground broker holds the port says so instead of starting a second one", async () => {
    const broker = await startCliBroker();
    try {
      const env = serviceEnv();
      const install = await runCli(["service", "install", "--platform", "systemd", ...broker.target], env);
      expect(install.code, install.stderr).toBe(0);
      expect(install.stderr).toContain(`a broker already answers at http://127.0.0.1:${broker.broker.port}`);
      expect(install.stderr).toContain("was not started");
      const status = JSON.parse(
        (await runCli(["service", "status", "--json", "--platform", "systemd", ...broker.target], env)).stdout,
      );
      expect(status).toMatchObject({
        installed: true,
        running: true,
        broker: `http://127.0.0.1:${broker.broker.port}`,
      });
    } finally {
      await broker.close();
    }
  });
});

describe("notify service install --print --platform launchd", () => {
  it("prints a launchd agent plist with the keys launchd reads", async () => {
    const dataDir = tempDir("notify-service-data-");
    const printed = await runCli(
      ["service", "install", "--print", "--platform", "launchd"],
      serviceEnv({ NOTIFY_DATA_DIR: dataDir, NOTIFY_TOKEN: "secret-token-never-in-plist" }),
    );
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).not.toContain("secret-token-never-in-plist");
    const plist = parsePlist(printed.stdout) as Record<string, unknown>;
    expect(Object.keys(plist).sort()).toEqual(
      [
        "EnvironmentVariables",
        "KeepAlive",
        "Label",
        "ProgramArguments",
        "RunAtLoad",
        "StandardErrorPath",
        "StandardOutPath",
      ].sort(),
    );
    expect(plist.Label).toBe("dev.notify.broker");
    expect((plist.ProgramArguments as string[]).at(-1)).toBe("serve");
    expect(existsSync((plist.ProgramArguments as string[])[0] as string)).toBe(true);
    expect(plist.RunAtLoad).toBe(true);
    expect(plist.KeepAlive).toEqual({ SuccessfulExit: false });
    expect(plist.EnvironmentVariables).toEqual({ NOTIFY_DATA_DIR: dataDir });
    expect(plist.StandardOutPath).toMatch(/Library\/Logs\/notify\.log$/);
  });
});
