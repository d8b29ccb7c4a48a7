import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, cliEnv } from "../cli/cli-harness.js";

/**
 * Issue 21, item 5: everything Notify creates that can hold a secret is 0600 in a 0700 directory, whatever the umask
 * and whether or not the directory already existed. The broker and the CLI run as the user runs them (`sh -c
 * 'umask 022; exec notify ...'`), a hook backup is taken after `router connect` (it holds the router key), and every
 * file and directory under the data dir is stat'ed.
 */

let root: string;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

function underUmask(umask: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const command = `umask ${umask}; exec ${[process.execPath, CLI, ...args].map(quote).join(" ")}`;
  return spawn("sh", ["-c", command], { env, stdio: ["ignore", "pipe", "pipe"] });
}

function run(umask: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = underUmask(umask, args, env);
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, out }));
  });
}

async function startBroker(umask: string, dataDir: string, env: NodeJS.ProcessEnv): Promise<number> {
  const child = underUmask(umask, ["serve", "--port", "0", "--data-dir", dataDir], env);
  children.push(child);
  let stderr = "";
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker did not start: ${stderr}`)), 60_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", () => reject(new Error(`broker exited: ${stderr}`)));
  });
}

/** Every directory and file under `dir` (not following links) with its mode. */
function modes(dir: string): { path: string; dir: boolean; mode: number }[] {
  const found = [{ path: dir, dir: true, mode: lstatSync(dir).mode & 0o777 }];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) found.push(...modes(path));
    else found.push({ path, dir: false, mode: stat.mode & 0o777 });
  }
  return found;
}

describe("private files and directories under any umask (issue 21, item 5)", () => {
  for (const { umask, existing } of [
    { umask: "022", existing: true },
    { umask: "077", existing: false },
    { umask: "022", existing: false },
  ]) {
    it(`umask ${umask}, data dir ${existing ? "already there (0755)" : "new"}: 0600 files in 0700 dirs`, async () => {
      root = mkdtempSync(join(tmpdir(), "notify-umask-"));
      const home = join(root, "home");
      const dataDir = join(root, "data");
      mkdirSync(join(home, ".claude"), { recursive: true });
      mkdirSync(join(home, ".codex"), { recursive: true });
      const settings = join(home, ".claude", "settings.json");
      writeFileSync(settings, '{"theme":"dark"}\n');
      chmodSync(settings, 0o644);
      if (existing) {
        for (const dir of [dataDir, join(dataDir, "hooks", "backups"), join(dataDir, "connectors", "backups")]) {
          mkdirSync(dir, { recursive: true, mode: 0o755 });
          chmodSync(dir, 0o755);
        }
        chmodSync(join(dataDir, "hooks"), 0o755);
        chmodSync(join(dataDir, "connectors"), 0o755);
      }
      const env = cliEnv({ HOME: home });
      const port = await startBroker(umask, dataDir, env);
      // The broker's first start (config.json with the bearer token, the database) already made its dir private.
      const first = modes(dataDir).filter((entry) => entry.path === dataDir || !entry.dir);
      expect(first.filter((entry) => entry.mode !== (entry.dir ? 0o700 : 0o600))).toEqual([]);
      const token = JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")).authToken as string;
      const ui = async (path: string, body: unknown) => {
        const response = await fetch(`http://127.0.0.1:${port}/ui/api${path}`, {
          method: path === "/router/settings" ? "PUT" : "POST",
          headers: { authorization: `Bearer ${token}`, "x-notify-ui": "1", "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        expect(response.status, await response.text()).toBeLessThan(300);
      };
      await ui("/router/settings", { enabled: true });
      await ui("/router/upstreams", {
        slug: "local",
        wire: "chat_wire",
        base_url: "http://127.0.0.1:9/v1",
        models: ["a"],
        enabled: true,
      });
      const target = ["--port", String(port), "--data-dir", dataDir];

      const connected = await run(umask, ["router", "connect", "claude-code", ...target], env);
      expect(connected.code, connected.out).toBe(0);
      // The owner's 0644 settings.json now holds the router key: made 0600, and said so.
      expect(connected.out).toContain(`${settings} was readable by others (mode 0644)`);
      expect(lstatSync(settings).mode & 0o777).toBe(0o600);
      expect((await run(umask, ["router", "connect", "codex", ...target], env)).code).toBe(0);
      expect(lstatSync(join(home, ".codex", "config.toml")).mode & 0o777).toBe(0o600);
      // A hook backup taken now holds the router key.
      for (const agent of ["claude-code", "codex"]) {
        const installed = await run(umask, ["hooks", "install", agent, ...target], env);
        expect(installed.code, installed.out).toBe(0);
      }
      for (const agent of ["claude-code", "codex"]) {
        expect((await run(umask, ["hooks", "uninstall", agent, ...target], env)).code).toBe(0);
        expect((await run(umask, ["router", "disconnect", agent, ...target], env)).code).toBe(0);
      }
      expect(readFileSync(settings, "utf8")).toBe('{"theme":"dark"}\n');

      const found = modes(dataDir);
      expect(found.filter((entry) => entry.path.includes("backups") && !entry.dir).length).toBeGreaterThanOrEqual(4);
      expect(found.some((entry) => entry.path.endsWith("installs.json"))).toBe(true);
      const wrong = found.filter((entry) => entry.mode !== (entry.dir ? 0o700 : 0o600));
      expect(wrong.map((entry) => `${entry.path} ${entry.mode.toString(8)}`)).toEqual([]);
    }, 120_000);
  }
});
