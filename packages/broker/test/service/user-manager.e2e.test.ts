// Issue 22, part 3, "where a user manager can run in CI, enable/start/stop for real": a real systemd user manager
// (`systemd --user`, Debian's systemd 252) with a private HOME, XDG_CONFIG_HOME and XDG_RUNTIME_DIR, and
// `notify service install|status|uninstall` talking to it through `systemctl --user`, as on a desktop session.
//
// This machine is not booted with systemd, and systemd refuses to start a user instance unless /run/systemd/system
// exists (sd_booted(3)). As root the test creates that directory when it is missing and removes it afterwards; the
// manager itself needs nothing else here (no journald: its units' output goes to its own stderr). Not root and not
// booted with systemd: skipped, said on stderr (CI runs as root and must run it).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { untilValue } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSTEMD_DEFAULT_PATH } from "../../src/cli/doctor/command-start.js";
import { cliEnv, closedPort, runCli } from "../cli/cli-harness.js";
import { tempDir } from "../helpers.js";

const SYSTEMD = "/lib/systemd/systemd";
const BOOTED_MARKER = "/run/systemd/system";
const isRoot = process.getuid?.() === 0;
const canRun = existsSync(SYSTEMD) && (existsSync(BOOTED_MARKER) || isRoot);
if (!canRun && process.env.CI === "true") throw new Error("a systemd user manager cannot start here (need root)");
if (!canRun) console.warn("\n*** SKIPPING the systemd user manager test: not root and not booted with systemd ***\n");

let root = "";
let env: NodeJS.ProcessEnv = {};
let manager: ChildProcess | undefined;
let managerLog = "";
let createdMarker = false;

/** `systemctl --user ...` against the test's own manager. */
function systemctl(...args: string[]): { status: number | null; stdout: string } {
  const result = spawnSync("systemctl", ["--user", ...args], { env, encoding: "utf8", timeout: 20_000 });
  return { status: result.status, stdout: result.stdout.trim() };
}

/** untilValue with this file's pace (each probe may spawn systemctl) and the manager's log on a timeout. */
const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> =>
  untilValue(what, probe, { everyMs: 100, detail: () => managerLog });

/** doctor's `service` check (issue 32, item 6: the unit's enabled and active states, as systemd reports them). */
async function doctorService(args: string[]): Promise<{ status: string; detail: string; fix?: string }> {
  const result = await runCli(["doctor", "--json", ...args], env);
  return JSON.parse(result.stdout).checks.find((check: { name: string }) => check.name === "service");
}

async function health(port: number): Promise<number | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
    return response.status;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  if (!canRun) return;
  if (!existsSync(BOOTED_MARKER)) {
    mkdirSync(BOOTED_MARKER, { recursive: true });
    createdMarker = true;
  }
  root = tempDir("notify-user-manager-");
  const home = join(root, "home");
  const runtime = join(root, "run");
  mkdirSync(home);
  mkdirSync(runtime);
  chmodSync(runtime, 0o700);
  env = cliEnv({ HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_RUNTIME_DIR: runtime });
  delete env.DBUS_SESSION_BUS_ADDRESS;
  // The manager starts with a clean environment, as a login's would: only what it needs to find its directories,
  // and systemd's default PATH, where no Node new enough for the CLI is (issue 32, item 3: the unit names its own).
  manager = spawn(SYSTEMD, ["--user"], {
    env: {
      PATH: SYSTEMD_DEFAULT_PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_RUNTIME_DIR: runtime,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  manager.stdout?.on("data", (chunk) => {
    managerLog += chunk;
  });
  manager.stderr?.on("data", (chunk) => {
    managerLog += chunk;
  });
  await until("the user manager to run", () => {
    const state = systemctl("is-system-running").stdout;
    return state === "running" || state === "degraded" ? state : undefined;
  });
}, 60_000);

afterAll(async () => {
  if (manager && manager.exitCode === null) {
    const exited = new Promise((resolve) => manager?.once("exit", resolve));
    manager.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (manager.exitCode === null) manager.kill("SIGKILL");
  }
  if (createdMarker) rmdirSync(BOOTED_MARKER);
}, 30_000);

describe.runIf(canRun)("notify service with a real systemd user manager", () => {
  it("install enables and starts the broker; status says so; a crash restarts it; uninstall stops and removes", async () => {
    const port = await closedPort();
    const dataDir = join(root, "data");
    const target = ["--platform", "systemd", "--port", String(port), "--data-dir", dataDir];
    const unitPath = join(root, "home", ".config", "systemd", "user", "notify.service");

    const install = await runCli(["service", "install", ...target], env);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toBe(`installed: ${unitPath}\n`);
    expect(install.stderr).toBe("notify: enabled and started; logs: journalctl --user -u notify.service\n");
    expect(systemctl("is-enabled", "notify.service").stdout).toBe("enabled");
    await until("the service's broker to answer /health", async () =>
      (await health(port)) === 200 ? true : undefined,
    );
    const firstPid = Number(systemctl("show", "-p", "MainPID", "--value", "notify.service").stdout);
    expect(firstPid).toBeGreaterThan(0);
    // The broker runs with the data dir the user gave, from the unit's Environment=.
    expect(readFileSync(`/proc/${firstPid}/environ`, "utf8").split("\0")).toContain(`NOTIFY_DATA_DIR=${dataDir}`);

    const status = JSON.parse((await runCli(["service", "status", "--json", ...target], env)).stdout);
    expect(status).toMatchObject({ installed: true, manager: true, enabled: true, running: true });
    expect(status.logs).toBe("journalctl --user -u notify.service");
    const doctorTarget = ["--port", String(port), "--data-dir", dataDir];
    const healthy = await doctorService(doctorTarget);
    expect(healthy.status, healthy.detail).toBe("ok");
    expect(healthy.detail).toContain(`enabled and active (${unitPath}); runs with Node ${process.version}`);

    // A second install changes nothing and starts nothing.
    const again = await runCli(["service", "install", ...target], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`already installed: ${unitPath}\n`);
    expect(Number(systemctl("show", "-p", "MainPID", "--value", "notify.service").stdout)).toBe(firstPid);

    // Restart=on-failure: a broker killed by a signal comes back (RestartSec=2) and answers again.
    process.kill(firstPid, "SIGKILL");
    const secondPid = await until("systemd to restart the broker", () => {
      const pid = Number(systemctl("show", "-p", "MainPID", "--value", "notify.service").stdout);
      return pid > 0 && pid !== firstPid ? pid : undefined;
    });
    await until("the restarted broker to answer /health", async () =>
      (await health(port)) === 200 ? true : undefined,
    );
    expect(Number(systemctl("show", "-p", "NRestarts", "--value", "notify.service").stdout)).toBe(1);

    // Disabled and stopped: doctor says so, with the command that enables it again (not a restart).
    expect(systemctl("disable", "--now", "notify.service").status).toBe(0);
    expect(existsSync(`/proc/${secondPid}`)).toBe(false);
    const disabled = await doctorService(doctorTarget);
    expect(disabled).toMatchObject({ status: "fail", fix: "systemctl --user enable --now notify.service" });
    expect(disabled.detail).toContain("but disabled, so it does not start at login; no broker answers");

    const removed = await runCli(["service", "uninstall", ...target], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`removed: ${unitPath}\n`);
    expect(existsSync(unitPath)).toBe(false);
    expect(await health(port)).toBeUndefined();
    expect(systemctl("is-enabled", "notify.service").stdout).not.toBe("enabled");
    const after = JSON.parse((await runCli(["service", "status", "--json", ...target], env)).stdout);
    expect(after).toMatchObject({ installed: false, manager: true, running: false });
  }, 120_000);
});
