// Issue 22, part 1 and 2, and issue 32, items 1, 2 and 4: Notify installs like a real tool, on the Node a user has.
// The README's Install block runs as written (the same way docs-examples runs the router's curl blocks) from a
// directory that stands for the checkout, with Debian's Node 20 and its npm (/usr/bin) the only Node on PATH and
// npm's global prefix a temporary one: scripts/pack.mjs packs the five tarballs, npm installs them with their
// dependencies from the registry, `notify --version` answers, `notify start` leaves a broker in the background and
// `notify hooks install claude-code` writes the hook. Then, from that prefix alone (no checkout on PATH, cwd outside
// it): the background broker runs on the Node @notify/runtime carries, the README's quick tour runs against it,
// `notify logs` and `notify stop` work; a foreground `notify serve` answers /health and serves /ui; a Claude Code
// hook written by the installed CLI runs; notify-relay serves the phone app at /app; the relay's deploy files
// (issue 22, part 5; packed into its tarball by scripts/pack.mjs) are in its installed package byte for byte.
// node18-install.e2e.test.ts does the same on Debian 12's Node 18 and npm 9.
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { untilValue } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort } from "../cli/cli-harness.js";
import { claude } from "../hooks/fixtures.js";
import {
  answers,
  engineWarnings,
  inheritedEnv,
  installAsReadmeSays,
  quickTour,
  REPO,
  type Run,
  run,
  VERSION,
} from "./install-helpers.js";

/** The repository's pinned Node (node@24), for the checkout's own CLI in the repair test. */
const NODE_BIN = dirname(realpathSync(join(REPO, "node_modules", "node", "bin", "node")));
/** Debian's Node 20 and npm 11 here: the only Node the install and the installed commands find on PATH. */
const SYSTEM_PATH = "/usr/bin:/bin";

const work = mkdtempSync(join(tmpdir(), "notify-install-"));
const prefix = join(work, "prefix");
const home = join(work, "home");
const dataDir = join(work, "data");
const children: ChildProcess[] = [];
let port = 0;
/** PATH with the installed prefix and the system's Node 20, and nothing of the checkout. */
let env: NodeJS.ProcessEnv = {};
let inherited: NodeJS.ProcessEnv = {};
/** Each command of the README's Install block, and what it printed. */
const block: { command: string; result: Run }[] = [];
const figures: string[] = [];

beforeAll(async () => {
  // A user who has run Claude Code once has ~/.claude; the installer refuses to create it for an absent agent.
  mkdirSync(join(home, ".claude"), { recursive: true });
  // The checkout as the README's commands see it from its directory: its scripts/, and packed/ written beside.
  symlinkSync(join(REPO, "scripts"), join(work, "scripts"));
  inherited = inheritedEnv();
  port = await closedPort();
  const installed = await installAsReadmeSays({ work, prefix, home, dataDir, port }, SYSTEM_PATH, inherited);
  env = installed.env;
  block.push(...installed.block);
  for (const { command, result } of block) figures.push(`${command.split(" ").slice(0, 3).join(" ")}: ${result.ms} ms`);
  for (const tarball of readdirTarballs()) figures.push(`${tarball.name}: ${tarball.kib} KiB`);
  if (existsSync(prefix)) figures.push(`prefix ${(await run("du", ["-sm", prefix], env)).stdout.split("\t")[0]} MB`);
  process.stderr.write(`global install on Node 20: ${figures.join(", ")}\n`);
}, 400_000);

function readdirTarballs(): { name: string; kib: string }[] {
  const out = join(work, "packed");
  if (!existsSync(out)) return [];
  return (block[0]?.result.stdout.trim().split("\n") ?? [])
    .filter((path) => path.endsWith(".tgz"))
    .map((path) => ({ name: path.split("/").pop() ?? path, kib: (statSync(path).size / 1024).toFixed(0) }));
}

afterAll(async () => {
  for (const child of children) child.kill("SIGTERM");
  const pid = Number(readFileOr(join(dataDir, "notify.pid")).trim());
  if (pid > 0) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // gone already
    }
  }
  rmSync(work, { recursive: true, force: true });
});

function readFileOr(path: string, fallback = ""): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return fallback;
  }
}

describe("the README's Install block on Debian's Node 20 (issue 32, items 1 and 2)", () => {
  it("runs as written: pack, npm install -g, notify --version, notify start, notify hooks install", () => {
    expect(block.map(({ command }) => command.split(" ").slice(0, 2).join(" "))).toEqual([
      "node scripts/pack.mjs",
      "npm install",
      "notify --version",
      "notify start",
      "notify hooks",
    ]);
    for (const { command, result } of block) expect(result.code, `${command}\n${result.stderr}`).toBe(0);
    expect(block[0]?.result.stdout.trim().split("\n")).toHaveLength(5);
    expect(block[2]?.result.stdout.trim()).toBe(VERSION);
    expect(block[3]?.result.stdout.trim()).toBe(`http://127.0.0.1:${port}`);
  });

  it("npm warns only about dependencies' engines: Notify's own packages ask for no newer Node", () => {
    const output = `${block[1]?.result.stdout}\n${block[1]?.result.stderr}`;
    const warned = engineWarnings(output);
    expect(warned.filter((name) => name.startsWith("@notify/"))).toEqual([]);
    expect(output).not.toMatch(/npm error/i);
    process.stderr.write(`npm install -g on Node 20: EBADENGINE for ${warned.join(", ") || "nothing"}\n`);
  });

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
    expect(realpathSync(join(prefix, "bin", "notify"))).toBe(join(broker, "bin", "notify"));
    expect(realpathSync(join(prefix, "bin", "notify-relay"))).toBe(join(relay, "bin", "notify-relay"));
    // One pinned Node for both commands, and none of it linked onto PATH.
    expect(existsSync(join(prefix, "bin", "node"))).toBe(false);
  });

  it("the background broker runs on the Node @notify/runtime carries, not on PATH's Node 20", async () => {
    const pid = Number(readFileSync(join(dataDir, "notify.pid"), "utf8").trim());
    const runtimeNode = realpathSync(
      join(prefix, "lib", "node_modules", "@notify", "runtime", "node_modules", "node", "bin", "node"),
    );
    expect(realpathSync(`/proc/${pid}/exe`)).toBe(runtimeNode);
    const version = await run(runtimeNode, ["--version"], env);
    expect(version.stdout.trim()).toMatch(/^v24\./);
    expect((await run("node", ["--version"], env)).stdout.trim()).toMatch(/^v20\./);
  });

  it("`notify-relay --version` prints the package version", async () => {
    expect((await run("notify-relay", ["--version"], env, { cwd: work })).stdout.trim()).toBe(VERSION);
  });

  it("the README's quick tour runs against the started broker; notify logs shows it; notify stop stops it", async () => {
    await quickTour(env, port, work);
    const logs = await run("notify", ["logs", "-n", "50"], env, { cwd: work });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain(`listening on http://127.0.0.1:${port}`);
    const stopped = await run("notify", ["stop"], env, { cwd: work });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(existsSync(join(dataDir, "notify.pid"))).toBe(false);
    await untilValue("the port to close", async () => {
      try {
        await fetch(`http://127.0.0.1:${port}/health`);
        return undefined;
      } catch {
        return true;
      }
    });
  }, 120_000);

  it("`notify serve` in the foreground answers /health and serves /ui", async () => {
    const serve = spawn("notify", ["serve"], { env, cwd: work, stdio: "ignore" });
    children.push(serve);
    const health = await (await answers(`http://127.0.0.1:${port}/health`)).json();
    expect(health).toMatchObject({ status: "ok" });
    const page = await answers(`http://127.0.0.1:${port}/ui/`);
    expect(await page.text()).toContain("<script");
  }, 60_000);

  it("the CLI file run on PATH's Node 20 refuses with advice that works outside a checkout", async () => {
    const main = join(prefix, "lib", "node_modules", "@notify", "broker", "dist", "cli", "main.js");
    const refused = await run("node", [main, "--version"], env, { cwd: work });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Node.js >= 22.13 is required, and this is v20.");
    expect(refused.stderr).toContain("install Notify again (docs/install.md, Installing)");
    expect(refused.stderr).not.toContain("(npm start, npx notify) to use");
  });

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
        // Notification, not Stop: a finished turn of a person not known present would wait for a follow-up.
        input: JSON.stringify({ ...claude.notificationIdle.input, session_id: "install-test", cwd: work }),
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

  it("the relay's deploy files are in the installed package, as they are in the checkout (issue 22, part 5)", () => {
    // docs/relay.md: an operator who ran `npm install -g` finds them under `$(npm root -g)/@notify/relay/deploy/`.
    const installed = join(prefix, "lib", "node_modules", "@notify", "relay", "deploy");
    const checkout = join(REPO, "packages", "relay", "deploy");
    const shipped = readdirSync(installed).sort();
    expect(shipped).toEqual(["Caddyfile", "notify-relay.service", "relay.env"]);
    for (const name of shipped) {
      expect(readFileSync(join(installed, name), "utf8")).toBe(readFileSync(join(checkout, name), "utf8"));
    }
  });

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
