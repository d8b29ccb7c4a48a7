// What the global-install suites share: the README's Install block as commands, running programs with a chosen PATH,
// waiting for a URL, and the README's quick tour against an installed `notify`.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { untilValue } from "@notify/test-kit";
import { expect } from "vitest";

export const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
export const VERSION = JSON.parse(readFileSync(join(REPO, "packages", "broker", "package.json"), "utf8"))
  .version as string;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { input?: string; cwd?: string } = {},
): Promise<Run> {
  const started = Date.now();
  return new Promise<Run>((resolve) => {
    const child = execFile(
      command,
      args,
      { env, cwd: options.cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/**
 * The machine's environment (its CA settings reach the registry) without anything naming a broker, the checkout or
 * the npm that runs this suite.
 */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("NOTIFY_") && !name.startsWith("npm_")),
  );
}

/** The machine's npm cache, so a suite with its own HOME downloads nothing the machine has already fetched. */
export const NPM_CACHE = join(process.env.HOME ?? "/root", ".npm");

/**
 * npm's settings for the suites' installs, as environment variables (npm passes them on to the `node` package's
 * inner `npm install` too): the machine's cache, no update check, and `prefer-offline`, so npm takes a dependency's
 * metadata from that cache when it has it instead of asking the registry again for each of some 300 packages (a
 * dry run of the README's install: 31 s against 20 s here); whatever the cache lacks still comes from the registry.
 */
export const NPM_SETTINGS = {
  npm_config_cache: NPM_CACHE,
  npm_config_update_notifier: "false",
  npm_config_prefer_offline: "true",
};

/** A temporary install: the npm prefix, the person's HOME, Notify's data dir and the port its broker takes. */
export interface InstallPlace {
  /** The directory the README's commands run in (the checkout's scripts/ linked in, packed/ written there). */
  work: string;
  prefix: string;
  home: string;
  dataDir: string;
  port: number;
}

/**
 * The environment the installed commands run in (`inherited`, PATH = the prefix's bin then `path`, this place's
 * HOME, data dir and port), and the README's Install block run in it as written, with npm's global prefix set to
 * this place's and NPM_SETTINGS. Each command's result in order; the first failure ends the block.
 */
export async function installAsReadmeSays(
  place: InstallPlace,
  path: string,
  inherited: NodeJS.ProcessEnv,
): Promise<{ env: NodeJS.ProcessEnv; block: { command: string; result: Run }[] }> {
  const env = {
    ...inherited,
    PATH: `${join(place.prefix, "bin")}:${path}`,
    HOME: place.home,
    NOTIFY_DATA_DIR: place.dataDir,
    NOTIFY_PORT: String(place.port),
    NO_COLOR: "1",
  };
  const installEnv = {
    ...env,
    npm_config_prefix: place.prefix,
    ...NPM_SETTINGS,
  };
  const block: { command: string; result: Run }[] = [];
  for (const command of readmeInstallBlock()) {
    const result = await run("bash", ["-euo", "pipefail", "-c", command], installEnv, { cwd: place.work });
    block.push({ command, result });
    if (result.code !== 0) break;
  }
  return { env, block };
}

/**
 * The README's Install block as the commands a reader types: comments and blank lines dropped, a trailing
 * backslash joining lines.
 */
export function readmeInstallBlock(): string[] {
  const text = readFileSync(join(REPO, "README.md"), "utf8");
  const start = text.indexOf("\n## Install\n");
  expect(start, "README.md has an Install section").toBeGreaterThan(0);
  const open = text.indexOf("```sh\n", start);
  const body = text.slice(open + 6, text.indexOf("\n```", open + 6));
  const commands: string[] = [];
  let current = "";
  for (const line of body.split("\n")) {
    const code = line.replace(/\s+#.*$/, "").trim();
    if (code === "" || code.startsWith("#")) continue;
    current = current === "" ? code : `${current} ${code}`;
    if (current.endsWith("\\")) current = current.slice(0, -1).trimEnd();
    else {
      commands.push(current);
      current = "";
    }
  }
  return commands;
}

/** Waits (a loaded 2-core machine: tens of seconds) until `url` answers 200. */
export function answers(url: string): Promise<Response> {
  return untilValue(
    `${url} to answer 200`,
    async () => {
      try {
        const response = await fetch(url);
        if (response.status === 200) return response;
        await response.body?.cancel();
      } catch {
        // not listening yet
      }
      return undefined;
    },
    { timeoutMs: 45_000, everyMs: 100 },
  );
}

/**
 * The README's quick tour with the installed `notify` (the README's `npx notify` is the checkout's): a notification
 * over HTTP with the token `notify token` prints, one from `notify send`, `notify list`, and a question `notify ask`
 * waits on until `notify answer` answers it.
 */
export async function quickTour(env: NodeJS.ProcessEnv, port: number, cwd: string): Promise<void> {
  const token = (await run("notify", ["token"], env, { cwd })).stdout.trim();
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
    { cwd },
  );
  expect(sent.code, sent.stderr).toBe(0);
  const listed = JSON.parse((await run("notify", ["list", "--json"], env, { cwd })).stdout);
  expect(JSON.stringify(listed)).toContain("Deploy blocked");

  const ask = run(
    "notify",
    ["ask", "Run the migration on prod?", "--kind", "single_choice", "--choice", "yes=Yes", "--choice", "no=No"],
    env,
    { cwd },
  );
  // Waited for over HTTP (a process started every poll costs a loaded machine more than the wait), then taken from
  // `notify pending` once.
  const waiting = await untilValue(
    "the question at GET /v1/interactions?pending=true",
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/interactions?pending=true`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      return (await response.text()).match(/int_[0-9a-z]+/)?.[0];
    },
    { timeoutMs: 45_000, everyMs: 100 },
  );
  const id = (await run("notify", ["pending", "--json"], env, { cwd })).stdout.match(/int_[0-9a-z]+/)?.[0] ?? "";
  expect(id).toBe(waiting);
  const answered = await run("notify", ["answer", id, "--choice", "yes"], env, { cwd });
  expect(answered.code, answered.stderr).toBe(0);
  expect(await ask).toMatchObject({ code: 0, stdout: "yes\n" });
}

/** The `EBADENGINE` blocks npm printed, by package name. */
export function engineWarnings(output: string): string[] {
  return [...output.matchAll(/^npm warn EBADENGINE {3}package: '([^']+)'/gim)].map((match) => match[1] ?? "");
}
