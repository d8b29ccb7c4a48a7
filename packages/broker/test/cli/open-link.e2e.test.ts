// Issue 21, items 1 and 15. `notify open` and the toast's Open action passed the one-time login link to xdg-open
// as an argument, where any local user reads it in /proc/PID/cmdline and signs in first. Hostile re-run with no
// manual step: a fake xdg-open on PATH records what it got and blocks, while a process running as another user
// (nobody, 65534) reads /proc/PID/cmdline and /proc/PID/environ of the opener and of the CLI. No token may be seen
// there (nor by root in environ), and the page the opener got must still sign in. Root is needed to start a
// process as another user: CI and this repository's machines run the tests as root; elsewhere this file skips
// loudly. Item 15: an opener that fails or is missing is said on stderr, the link goes to stdout, exit 3.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { tempDir } from "../helpers.js";
import { dbusAvailable, RecordingServer, SessionBus } from "../presentation/dbus-harness.js";
import { cliEnv, sharedCliBroker, spawnCli } from "./cli-harness.js";

const NOBODY = 65534;
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot) {
  console.warn(
    "\n*** SKIPPING the other-user /proc test of notify open: it must run as root to start a process as nobody ***\n",
  );
}

/** A fake xdg-open: writes its pid and first argument, then blocks until released; exits with $FAKE_OPENER_EXIT. */
function fakeOpener() {
  const dir = tempDir("notify-opener-");
  // Reachable by nobody: the opener is read through /proc, not its files, but the test's temp dir must be passable.
  chmodSync(dir, 0o755);
  const bin = join(dir, "bin");
  mkdirSync(bin, { mode: 0o755 });
  const record = join(dir, "record");
  writeFileSync(
    join(bin, "xdg-open"),
    `#!/bin/sh
printf '%s' "$1" > '${record}.arg'
printf '%s' "$$" > '${record}.pid.tmp' && mv '${record}.pid.tmp' '${record}.pid'
# Ends with its test: released, or its temp dir removed (a failed test must not leave it looping).
while [ ! -e '${record}.release' ] && [ -d '${dir}' ]; do sleep 0.05; done
exit "\${FAKE_OPENER_EXIT:-0}"
`,
    { mode: 0o755 },
  );
  return {
    bin,
    /** Waits (a loaded machine: tens of seconds) until the opener has started and recorded itself. */
    async started(timeoutMs = 30_000): Promise<{ pid: number; argument: string }> {
      const deadline = Date.now() + timeoutMs;
      while (!existsSync(`${record}.pid`)) {
        if (Date.now() > deadline) throw new Error("the fake xdg-open was not started");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return { pid: Number(readFileSync(`${record}.pid`, "utf8")), argument: readFileSync(`${record}.arg`, "utf8") };
    },
    release(): void {
      writeFileSync(`${record}.release`, "");
    },
  };
}

/** What another local user sees: /proc/PID/cmdline and /proc/PID/environ of each pid, and the page file. */
function readAsNobody(pids: number[], file: string): Promise<string> {
  const script = `for pid in ${pids.join(" ")}; do
  for part in cmdline environ; do
    printf '== %s %s\\n' "$pid" "$part"
    (tr '\\0' ' ' < /proc/$pid/$part) 2>/dev/null || printf 'unreadable\\n'
    printf '\\n'
  done
done
printf '== page\\n'; cat '${file}' 2>/dev/null || printf 'unreadable\\n'`;
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", script], {
      uid: NOBODY,
      gid: NOBODY,
      cwd: "/",
      env: { PATH: "/usr/bin:/bin" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.once("error", reject);
    child.once("close", () => resolve(output));
  });
}

/** What root reads in /proc for the same pids (environ is closed to nobody, so root checks it too). */
function readAsRoot(pids: number[]): string {
  return pids
    .map((pid) =>
      ["cmdline", "environ"]
        .map((part) => {
          try {
            return readFileSync(`/proc/${pid}/${part}`, "latin1");
          } catch {
            return "";
          }
        })
        .join("\n"),
    )
    .join("\n");
}

/** The URL inside the redirect page. */
function linkInPage(path: string): string {
  const match = /window\.location\.replace\((".*?")\)/.exec(readFileSync(path, "utf8"));
  if (!match?.[1]) throw new Error(`no link in ${path}`);
  return JSON.parse(match[1]) as string;
}

async function signsIn(url: string): Promise<boolean> {
  const response = await fetch(url, { redirect: "manual" });
  return response.status === 303 && /^notify_session=/.test(response.headers.get("set-cookie") ?? "");
}

const { cli } = sharedCliBroker();

describe.runIf(isRoot)(
  "notify open: the login token is in no process's arguments or environment (issue 21, item 1)",
  () => {
    it("another user reading /proc of the opener and the CLI sees no token; the page still signs in", async () => {
      const opener = fakeOpener();
      // NOTIFY_TOKEN set as a person may have it: the CLI holds it, the opener (and the browser) must not inherit it.
      const env = cliEnv({ PATH: `${opener.bin}:/usr/bin:/bin`, NOTIFY_TOKEN: cli.token });
      const run = spawnCli(["open", "--port", String(cli.broker.port), "--data-dir", cli.dataDir], env);
      try {
        const { pid, argument } = await opener.started();
        const cliPid = run.child.pid as number;
        const seen = await readAsNobody([pid, cliPid], argument);
        const rootSeen = readAsRoot([pid, cliPid]);

        // The opener got a file, not a URL: a 0600 page in a 0700 directory of the data dir.
        expect(argument).toBe(join(cli.dataDir, "open", argument.split("/").pop() ?? ""));
        expect(statSync(argument).mode & 0o777).toBe(0o600);
        expect(statSync(join(cli.dataDir, "open")).mode & 0o777).toBe(0o700);
        const url = linkInPage(argument);
        const token = new URL(url).searchParams.get("t") ?? "";
        expect(token).toMatch(/^[\w-]{43}$/);

        // Both processes were alive and their command lines readable by nobody, and nothing in them holds a token.
        expect(seen).toContain(`== ${pid} cmdline\n/bin/sh ${opener.bin}/xdg-open ${argument}`);
        expect(seen).toMatch(new RegExp(`== ${cliPid} cmdline\\n\\S*node\\S* \\S+main\\.js open`));
        expect(seen).not.toContain(token);
        expect(seen).not.toContain("/ui/login");
        expect(seen).toMatch(/== page\nunreadable\n$/);
        expect(rootSeen).not.toContain(token);
        // The bearer token: in the CLI's environment (the person put it there), never in the opener's.
        expect(readAsRoot([pid])).not.toContain(cli.token);

        // The page the opener got signs in, once; then the broker removes it.
        expect(await signsIn(url)).toBe(true);
        expect(existsSync(argument)).toBe(false);
        expect(await signsIn(url)).toBe(false);
      } finally {
        opener.release();
      }
      const result = await run.done;
      expect(result).toMatchObject({ code: 0, stdout: "", stderr: "" });
    });
  },
);

describe("notify open when no browser opens (issue 21, item 15)", () => {
  it("an opener that exits non-zero: said on stderr, the link on stdout, exit 3, and the link works", async () => {
    const opener = fakeOpener();
    opener.release();
    const env = cliEnv({ PATH: `${opener.bin}:/usr/bin:/bin`, FAKE_OPENER_EXIT: "4" });
    const result = await spawnCli(["open", "--port", String(cli.broker.port), "--data-dir", cli.dataDir], env).done;
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      "notify: could not open a browser: xdg-open exited with status 4 (no display or no browser?); open the link above yourself (it works once, for one hour)\n",
    );
    const url = result.stdout.trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/login\?t=[\w-]{43}$/);
    expect(await signsIn(url)).toBe(true);
  });

  it("no opener on PATH: the same, naming the missing program", async () => {
    const empty = tempDir("notify-no-opener-");
    const env = cliEnv({ PATH: empty });
    const result = await spawnCli(["open", "--port", String(cli.broker.port), "--data-dir", cli.dataDir], env).done;
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("notify: could not open a browser: xdg-open is not installed;");
    expect(await signsIn(result.stdout.trim())).toBe(true);
  });
});

describe.runIf(isRoot && dbusAvailable())(
  "the toast's Open action keeps the token off command lines (issue 21, item 1)",
  () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      while (cleanups.length > 0) await cleanups.pop()?.();
    });

    it("the opener gets a private page; another user sees no token; the page signs in and lands on the item", async () => {
      const opener = fakeOpener();
      cleanups.push(() => opener.release());
      const bus = new SessionBus(tempDir("notify-open-bus-"));
      const address = await bus.start();
      cleanups.push(() => bus.stop());
      const server = new RecordingServer();
      await server.connect(address);
      cleanups.push(() => server.disconnect());
      const dataDir = tempDir();
      const broker: RunningBroker = await startBroker({
        dataDir,
        port: 0,
        env: { PATH: `${opener.bin}:/usr/bin:/bin`, DBUS_SESSION_BUS_ADDRESS: address, NOTIFY_TOKEN: "x".repeat(40) },
        echo: () => undefined,
        desktop: { retryMinMs: 50, retryMaxMs: 200, callTimeoutMs: 5000 },
      });
      cleanups.push(() => broker.close());
      const created = await fetch(`${broker.url}/v1/notifications`, {
        method: "POST",
        headers: { authorization: `Bearer ${broker.settings.authToken}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "Build failed", message: "3 tests failed" }),
      });
      const notification = (await created.json()) as { id: string };
      const [call] = await server.notified(1);
      server.invoke(call?.id as number, "default");

      const { pid, argument } = await opener.started();
      const seen = await readAsNobody([pid], argument);
      expect(argument.startsWith(join(dataDir, "open", "login-"))).toBe(true);
      const url = linkInPage(argument);
      const token = new URL(url).searchParams.get("t") ?? "";
      expect(seen).toContain(`== ${pid} cmdline\n/bin/sh ${opener.bin}/xdg-open ${argument}`);
      expect(seen).not.toContain(token);
      expect(readAsRoot([pid])).not.toContain(token);
      expect(readAsRoot([pid])).not.toContain("x".repeat(40));
      const response = await fetch(url, { redirect: "manual" });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(`/ui/#${notification.id}`);
      expect(existsSync(argument)).toBe(false);
    });
  },
);
