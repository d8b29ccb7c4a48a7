// Issue 32, item 4: `notify start`, `notify stop` and `notify logs [-f] [-n N]` run the broker in the background
// without a service manager (docs/cli.md, "notify start, notify stop, notify logs"). Real processes throughout: the CLI
// as users run it, the broker it starts detached, and the port and pid file as another program would see them.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "@notify/test-kit";
import { afterAll, describe, expect, it } from "vitest";
import { type CliResult, closedPort, runCli, spawnCli, startCliBroker, tempDataDir } from "./cli-harness.js";

const started = new Set<number>();

// A test that failed before its `notify stop` leaves its broker running: stop it here, and wait until it is gone.
afterAll(async () => {
  for (const pid of started) {
    if (!alive(pid)) continue;
    process.kill(pid, "SIGTERM");
    await until(() => !alive(pid));
  }
});

interface Background {
  dataDir: string;
  port: number;
  target: string[];
  pidFile: string;
  logFile: string;
}

async function background(): Promise<Background> {
  const dataDir = tempDataDir();
  const port = await closedPort();
  return {
    dataDir,
    port,
    target: ["--port", String(port), "--data-dir", dataDir],
    pidFile: join(dataDir, "notify.pid"),
    logFile: join(dataDir, "logs", "background.log"),
  };
}

async function start(where: Background, ...extra: string[]): Promise<CliResult> {
  const result = await runCli(["start", ...where.target, ...extra]);
  if (existsSync(where.pidFile)) started.add(Number(readFileSync(where.pidFile, "utf8")));
  return result;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z";
  } catch {
    return false;
  }
}

async function health(port: number): Promise<number | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    await response.body?.cancel();
    return response.status;
  } catch {
    return undefined;
  }
}

describe("notify start, stop and logs (issue 32, item 4)", () => {
  it("start leaves a broker answering in the background, says where, and refuses a second one", async () => {
    const where = await background();
    const first = await start(where);
    // The start command has ended (runCli waited for it), and the broker it started answers.
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`http://127.0.0.1:${where.port}\n`);
    expect(first.stderr).toContain("runs in the background");
    const pid = Number(readFileSync(where.pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    expect(await health(where.port)).toBe(200);
    const token = JSON.parse(readFileSync(join(where.dataDir, "config.json"), "utf8")).authToken as string;
    const v1 = await fetch(`http://127.0.0.1:${where.port}/v1/health`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await v1.json()) as { pid: number }).pid).toBe(pid);
    // The web UI's one-time login link is a credential: it is neither printed by start nor in the log.
    expect(first.stdout + first.stderr + readFileSync(where.logFile, "utf8")).not.toContain("/ui/login?t=");

    const second = await start(where);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is running already (pid ${pid})`);
    expect(Number(readFileSync(where.pidFile, "utf8"))).toBe(pid);
    expect(alive(pid)).toBe(true);

    const stopped = await runCli(["stop", ...where.target]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain(`stopped the broker (pid ${pid})`);
    // stop returns once the process is gone: no wait needed here.
    expect(alive(pid)).toBe(false);
    expect(existsSync(where.pidFile)).toBe(false);
    expect(await health(where.port)).toBeUndefined();
    expect(readFileSync(where.logFile, "utf8")).toContain("[INFO] broker stopped");

    const again = await runCli(["stop", ...where.target]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("no broker started by `notify start` is running");
  }, 90_000);

  it("logs prints the last lines, and -f follows new ones until interrupted", async () => {
    const where = await background();
    expect((await start(where)).code).toBe(0);
    const lines = readFileSync(where.logFile, "utf8").trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    const last = await runCli(["logs", "-n", "1", "--data-dir", where.dataDir]);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toBe(`${lines.at(-1)}\n`);
    expect(last.stdout).toContain(`listening on http://127.0.0.1:${where.port}`);
    const all = await runCli(["logs", "--data-dir", where.dataDir]);
    expect(all.stdout).toBe(`${lines.join("\n")}\n`);

    const follow = spawnCli(["logs", "-f", "-n", "1", "--data-dir", where.dataDir]);
    let followed = "";
    follow.child.stdout?.on("data", (chunk: string) => {
      followed += chunk;
    });
    // Its last old line printed, it follows; then come the lines the broker writes as it stops.
    await until(() => followed === `${lines.at(-1)}\n`);
    const stopped = await runCli(["stop", ...where.target]);
    expect(stopped.code, stopped.stderr).toBe(0);
    await until(() => followed.includes("[INFO] broker stopped"));
    expect(followed).toContain("SIGTERM received, shutting down");
    expect(followed.match(/listening on/g)).toHaveLength(1);
    // A new start writes to the same file: -f goes on with it.
    expect((await start(where)).code).toBe(0);
    await until(() => followed.match(/listening on/g)?.length === 2);
    follow.child.kill("SIGINT");
    expect((await follow.done).signal).toBe("SIGINT");
    expect((await runCli(["stop", ...where.target])).code).toBe(0);
  }, 90_000);

  it("a start moves a log past 1 MiB aside, and logs -f goes on in the new file", async () => {
    const where = await background();
    const old = `${"x".repeat(1023)}\n`.repeat(1100);
    mkdirSync(join(where.dataDir, "logs"), { recursive: true });
    writeFileSync(where.logFile, `${old}the last line before\n`);
    const follow = spawnCli(["logs", "-f", "-n", "1", "--data-dir", where.dataDir]);
    let followed = "";
    follow.child.stdout?.on("data", (chunk: string) => {
      followed += chunk;
    });
    await until(() => followed === "the last line before\n");
    expect((await start(where)).code).toBe(0);
    expect(readFileSync(`${where.logFile}.1`, "utf8")).toBe(`${old}the last line before\n`);
    expect(readFileSync(where.logFile, "utf8")).toContain("listening on");
    await until(() => followed.includes(`listening on http://127.0.0.1:${where.port}`));
    expect(followed).not.toContain("xxx");
    follow.child.kill("SIGINT");
    await follow.done;
    expect((await runCli(["stop", ...where.target])).code).toBe(0);
  }, 60_000);

  it("start refuses when a broker already answers on the port, and writes no pid file", async () => {
    const other = await startCliBroker();
    try {
      const dataDir = tempDataDir();
      const refused = await runCli(["start", "--port", String(other.broker.port), "--data-dir", dataDir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`a broker answers at http://127.0.0.1:${other.broker.port} already`);
      expect(existsSync(join(dataDir, "notify.pid"))).toBe(false);
      // stop leaves a broker it did not start alone, and says where to stop it.
      const stop = await runCli(["stop", ...other.target]);
      expect(stop.code).toBe(1);
      expect(stop.stderr).toContain("was not started by `notify start`");
      expect(await health(other.broker.port)).toBe(200);
    } finally {
      await other.close();
    }
  }, 60_000);

  it("a broker that cannot start: start says why (from its output) and leaves no pid file", async () => {
    const where = await background();
    writeFileSync(join(where.dataDir, "config.json"), "{ not json");
    const failed = await start(where);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("the broker ended (exit code 1) before it answered");
    expect(failed.stderr).toContain("is not valid JSON");
    expect(existsSync(where.pidFile)).toBe(false);
  }, 60_000);

  it("a pid file left behind (a crash, a reboot, a reused pid) does not block start, and stop clears it", async () => {
    const where = await background();
    // A pid that is no process, then one that is a live process but no broker (this test's own).
    const gone = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    const gonePid = gone.pid ?? 0;
    await new Promise((resolve) => gone.once("exit", resolve));
    writeFileSync(where.pidFile, `${gonePid}\n`);
    const cleared = await runCli(["stop", ...where.target]);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stderr).toContain(`(pid ${gonePid}) was not running`);
    expect(existsSync(where.pidFile)).toBe(false);

    writeFileSync(where.pidFile, `${process.pid}\n`);
    const result = await start(where);
    expect(result.code, result.stderr).toBe(0);
    const pid = Number(readFileSync(where.pidFile, "utf8"));
    expect(pid).not.toBe(process.pid);
    expect(await health(where.port)).toBe(200);
    expect((await runCli(["stop", ...where.target])).code).toBe(0);
    // This process was not signalled: it is still here to say so.
    expect(alive(process.pid)).toBe(true);
  }, 60_000);

  it("logs without a background log says where the other logs are; -n must be a count", async () => {
    const dataDir = tempDataDir();
    const missing = await runCli(["logs", "--data-dir", dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("`notify start` writes it");
    expect(missing.stderr).toContain(join(dataDir, "logs", "notify-YYYY-MM-DD.log"));
    const bad = await runCli(["logs", "-n", "many", "--data-dir", dataDir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("-n must be an integer");
  });

  it("start's broker outlives the terminal: it leads a session of its own, which no terminal's hangup reaches", async () => {
    const where = await background();
    const result = await start(where);
    expect(result.code, result.stderr).toBe(0);
    const pid = Number(readFileSync(where.pidFile, "utf8"));
    // /proc/<pid>/stat after the command's closing parenthesis: state, ppid, process group, session.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [, , pgrp, session] = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    expect(session).toBe(pid);
    expect(pgrp).toBe(pid);
    expect((await runCli(["stop", ...where.target])).code).toBe(0);
  }, 60_000);
});
