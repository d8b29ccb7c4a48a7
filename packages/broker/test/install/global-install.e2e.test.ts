// Issue 22, part 1 and 2: Notify installs like a real tool. scripts/pack.mjs packs @notify/contracts, router, broker
// and relay, the machine's npm on a Node >= 22.13 (the pinned Node 24) installs the four tarballs into a temporary global prefix
// with their dependencies from the registry, and from that prefix alone (no checkout on PATH, cwd outside it) the
// broker serves /health and /ui, the README's quick tour runs, a Claude Code hook written by the installed CLI runs
// the installed `notify`, and notify-relay serves the phone app at /app.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort } from "../cli/cli-harness.js";
import { claude } from "../hooks/fixtures.js";

const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
/**
 * The repository's pinned Node (node@24) first on PATH, so the machine's npm runs on a Node >= 22.13, as on a
 * user's machine (the node package ships no npm of its own).
 */
const NODE_BIN = dirname(realpathSync(join(REPO, "node_modules", "node", "bin", "node")));
const VERSION = JSON.parse(readFileSync(join(REPO, "packages", "broker", "package.json"), "utf8")).version as string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, options: { input?: string; cwd?: string } = {}) {
  return new Promise<Run>((resolve) => {
    const child = execFile(
      command,
      args,
      { env, cwd: options.cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Waits (a loaded 2-core machine: tens of seconds) until `url` answers 200. */
async function answers(url: string, init?: RequestInit): Promise<Response> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    try {
      const response = await fetch(url, init);
      if (response.status === 200) return response;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const work = mkdtempSync(join(tmpdir(), "notify-install-"));
const prefix = join(work, "prefix");
const home = join(work, "home");
const dataDir = join(work, "data");
const children: ChildProcess[] = [];
let port = 0;
/** PATH with the installed prefix and a Node >= 22.13, and nothing of the checkout. */
let env: NodeJS.ProcessEnv = {};
let inherited: NodeJS.ProcessEnv = {};
const figures: string[] = [];

beforeAll(async () => {
  // A user who has run Claude Code once has ~/.claude; the installer refuses to create it for an absent agent.
  mkdirSync(join(home, ".claude"), { recursive: true });
  // The machine's environment (its CA settings reach the registry) without anything naming a broker or the checkout.
  inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("NOTIFY_") && !name.startsWith("npm_")),
  );
  const base = { ...inherited, PATH: `${NODE_BIN}:/usr/bin:/bin`, HOME: home, npm_config_update_notifier: "false" };
  const packStarted = Date.now();
  const packed = await run(process.execPath, [join(REPO, "scripts", "pack.mjs"), "--out", join(work, "packed")], base);
  expect(packed.code, packed.stderr).toBe(0);
  const tarballs = packed.stdout.trim().split("\n");
  expect(tarballs).toHaveLength(4);
  for (const tarball of tarballs)
    figures.push(`${tarball.split("/").pop()}: ${(statSync(tarball).size / 1024).toFixed(0)} KiB`);
  figures.push(`pack ${Date.now() - packStarted} ms`);
  const installStarted = Date.now();
  const installed = await run(
    "npm",
    // --omit=optional: dbus-next's optional addon (usocket), which Notify does not use, is not compiled (docs/install.md).
    ["install", "-g", "--omit=optional", "--prefix", prefix, "--no-audit", "--no-fund", ...tarballs],
    { ...base, npm_config_cache: join(process.env.HOME ?? work, ".npm") },
    { cwd: work },
  );
  expect(installed.code, installed.stderr).toBe(0);
  figures.push(`npm install -g ${Date.now() - installStarted} ms`);
  process.stderr.write(`global install: ${figures.join(", ")}\n`);
  port = await closedPort();
  env = {
    ...inherited,
    PATH: `${join(prefix, "bin")}:${NODE_BIN}:/usr/bin:/bin`,
    HOME: home,
    NOTIFY_DATA_DIR: dataDir,
    NOTIFY_PORT: String(port),
    NO_COLOR: "1",
  };
}, 300_000);

afterAll(() => {
  for (const child of children) child.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});

describe("the installed packages (issue 22)", () => {
  it("installs nothing from the checkout: the packages are real copies, with the web UI and phone app inside", () => {
    const broker = realpathSync(join(prefix, "lib", "node_modules", "@notify", "broker"));
    expect(broker.startsWith(REPO)).toBe(false);
    expect(statSync(join(broker, "ui", "index.html")).isFile()).toBe(true);
    const router = realpathSync(join(prefix, "lib", "node_modules", "@notify", "router"));
    expect(router.startsWith(REPO)).toBe(false);
    const relay = realpathSync(join(prefix, "lib", "node_modules", "@notify", "relay"));
    expect(statSync(join(relay, "app", "index.html")).isFile()).toBe(true);
    // No devDependency came along (the agents' CLIs, TypeScript, vitest).
    const installed = JSON.stringify(
      readFileSync(join(prefix, "lib", "node_modules", "@notify", "broker", "package.json"), "utf8"),
    );
    expect(installed).not.toContain("devDependencies");
    expect(realpathSync(join(prefix, "bin", "notify"))).toBe(join(broker, "bin", "notify.js"));
  });

  it("`notify --version` and `notify-relay --version` print the package version", async () => {
    expect((await run("notify", ["--version"], env, { cwd: work })).stdout.trim()).toBe(VERSION);
    expect((await run("notify-relay", ["--version"], env, { cwd: work })).stdout.trim()).toBe(VERSION);
  });

  it("`notify serve` answers /health and serves /ui, and the README's quick tour runs", async () => {
    const serve = spawn("notify", ["serve"], { env, cwd: work, stdio: "ignore" });
    children.push(serve);
    const health = await (await answers(`http://127.0.0.1:${port}/health`)).json();
    expect(health).toMatchObject({ status: "ok" });
    const page = await answers(`http://127.0.0.1:${port}/ui/`);
    expect(await page.text()).toContain("<script");

    const token = (await run("notify", ["token"], env, { cwd: work })).stdout.trim();
    const posted = await fetch(`http://127.0.0.1:${port}/v1/notifications`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ title: "Build finished", message: "All 312 tests passed", type: "completed" }),
    });
    expect(posted.status).toBe(201);
    const sent = await run(
      "notify",
      ["send", "Deploy blocked", "Waiting for a database migration", "--type", "blocked", "--priority", "high"],
      env,
      { cwd: work },
    );
    expect(sent.code, sent.stderr).toBe(0);
    const listed = JSON.parse((await run("notify", ["list", "--json"], env, { cwd: work })).stdout);
    expect(JSON.stringify(listed)).toContain("Deploy blocked");

    const ask = run(
      "notify",
      ["ask", "Run the migration on prod?", "--kind", "single_choice", "--choice", "yes=Yes", "--choice", "no=No"],
      env,
      { cwd: work },
    );
    let id = "";
    const deadline = Date.now() + 45_000;
    while (id === "" && Date.now() < deadline) {
      const pending = JSON.parse((await run("notify", ["pending", "--json"], env, { cwd: work })).stdout || "[]");
      id = JSON.stringify(pending).match(/int_[0-9a-z]+/)?.[0] ?? "";
      if (id === "") await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(id).not.toBe("");
    const answered = await run("notify", ["answer", id, "--choice", "yes"], env, { cwd: work });
    expect(answered.code, answered.stderr).toBe(0);
    expect(await ask).toMatchObject({ code: 0, stdout: "yes\n" });
  }, 120_000);

  it("`notify hooks install claude-code` writes the installed CLI file and its Node; the hook runs without PATH", async () => {
    const installed = await run("notify", ["hooks", "install", "claude-code"], env, { cwd: work });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).not.toContain("moving or deleting");
    const settings = readFileSync(join(home, ".claude", "settings.json"), "utf8");
    expect(settings).not.toContain(REPO);
    const command = (JSON.parse(settings).hooks.Stop[0].hooks[0].command as string).trim();
    // Issue 32, item 3: the absolute Node and the installed package's real CLI file, so PATH does not matter.
    const main = realpathSync(join(prefix, "lib", "node_modules", "@notify", "broker", "dist", "cli", "main.js"));
    const [node, cli] = command.split(" ");
    expect(cli).toBe(main);
    expect(node?.startsWith("/")).toBe(true);
    // As Claude Code runs it: through a shell, with the hook input on stdin, from the project's directory; and
    // with systemd's default PATH only, as from a desktop launcher.
    const hook = await run(
      "/bin/sh",
      ["-c", command],
      { HOME: home, PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
      {
        cwd: work,
        input: JSON.stringify({ ...claude.stop.input, session_id: "install-test", cwd: work }),
      },
    );
    expect(hook.code, hook.stderr).toBe(0);
    const listed = (await run("notify", ["list", "--json"], env, { cwd: work })).stdout;
    expect(listed).toContain("install-test");
  }, 120_000);

  it("the checkout's CLI writes the checkout and says so; the installed notify's install repairs it", async () => {
    const checkoutCli = join(REPO, "packages", "broker", "dist", "cli", "main.js");
    const fromCheckout = await run(process.execPath, [checkoutCli, "hooks", "install", "claude-code"], {
      ...env,
      PATH: `${NODE_BIN}:/usr/bin:/bin`,
    });
    expect(fromCheckout.code, fromCheckout.stderr).toBe(0);
    expect(fromCheckout.stderr).toContain("moving or deleting");
    expect(readFileSync(join(home, ".claude", "settings.json"), "utf8")).toContain(checkoutCli);
    // The installed notify writes its own files again (a moved checkout repaired).
    const repaired = await run("notify", ["hooks", "install", "claude-code"], env, { cwd: work });
    expect(repaired.code, repaired.stderr).toBe(0);
    const settings = readFileSync(join(home, ".claude", "settings.json"), "utf8");
    expect(settings).not.toContain(checkoutCli);
    expect(settings).toContain(realpathSync(join(prefix, "lib", "node_modules", "@notify", "broker")));
  }, 60_000);

  it("`notify-relay serve` serves the phone app at /app", async () => {
    const relayPort = await closedPort();
    const relay = spawn("notify-relay", ["serve", "--port", String(relayPort), "--data-dir", join(work, "relay")], {
      env,
      cwd: work,
      stdio: "ignore",
    });
    children.push(relay);
    const app = await answers(`http://127.0.0.1:${relayPort}/app/`);
    expect(await app.text()).toContain("<script");
  }, 60_000);
});
