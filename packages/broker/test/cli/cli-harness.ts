import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "@notify/test-kit";
import { afterEach, expect } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { hookFixture } from "../hook-fixture.js";

/** The built binary: these suites test what users run, so `npx tsc -b` must come first (as `npm test` does). */
export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -b\` before the CLI tests`);

/** The parent's environment without anything that would point the CLI at another broker or token. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NOTIFY_TOKEN;
  delete env.NOTIFY_PORT;
  delete env.NOTIFY_DATA_DIR;
  return { ...env, NO_COLOR: "1", ...extra };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  done: Promise<CliResult>;
  /** Resolves with stderr once it matches `pattern`; rejects after `timeoutMs` or if the process ends first. */
  stderrMatching(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/** Starts `node dist/cli/main.js ...args` in the background. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = cliEnv(), cwd?: string): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
    ...(cwd !== undefined ? { cwd } : {}),
  });
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const listener of listeners) listener();
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      for (const listener of listeners) listener();
      resolve({ code, signal, stdout, stderr });
    });
  });
  let exited = false;
  void done.then(() => {
    exited = true;
  });
  const stderrMatching = (pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(stderr);
        if (match) {
          finish();
          resolve(match);
        } else if (exited || child.exitCode !== null) {
          finish();
          reject(new Error(`process ended before stderr matched ${pattern}: ${stderr}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`stderr did not match ${pattern} within ${timeoutMs} ms: ${stderr}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });
  return { child, done, stderrMatching };
}

/** Runs the CLI to completion (in `cwd`, for the project-scoped commands). */
export function runCli(args: string[], env?: NodeJS.ProcessEnv, cwd?: string): Promise<CliResult> {
  return spawnCli(args, env, cwd).done;
}

/**
 * For a suite whose secret must never be printed back (docs/apply.md, "Secrets"): `notify(...args)` runs the CLI
 * against the current broker, and every output it (or `keep`) collects is checked after each test to carry `secret`
 * nowhere.
 */
export function secretCheckedCli(
  secret: string,
  broker: () => CliBroker,
): { notify(...args: string[]): Promise<CliResult>; keep(result: CliResult): CliResult } {
  const outputs: CliResult[] = [];
  afterEach(() => {
    for (const output of outputs.splice(0)) {
      expect(output.stdout).not.toContain(secret);
      expect(output.stderr).not.toContain(secret);
    }
  });
  const keep = (result: CliResult): CliResult => {
    outputs.push(result);
    return result;
  };
  return { keep, notify: async (...args) => keep(await runCli([...args, ...broker().target])) };
}

export interface CliBroker {
  broker: RunningBroker;
  dataDir: string;
  /** The authToken the broker generated into config.json. */
  token: string;
  /** `--port <port> --data-dir <dir>`: what every client command needs to find this broker. */
  target: string[];
  /** A direct HTTP call with the right token, for setting up and checking state. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/** A real broker on port 0 and a temporary data dir; `config` is written to config.json before it starts. */
/**
 * config.json for a broker whose finished turns end at once (followUp.waitSeconds 0): for tests of other things that
 * run a Stop hook. Follow-ups have their own tests (hooks/follow-up.test.ts).
 */
export const NO_FOLLOW_UPS = { followUp: { waitSeconds: 0 } };

export async function startCliBroker(config?: Record<string, unknown>): Promise<CliBroker> {
  const dataDir = tempDataDir();
  if (config) writeFileSync(join(dataDir, "config.json"), JSON.stringify(config));
  const broker = await startBroker({ dataDir, port: 0, env: {} });
  const token = broker.settings.authToken;
  const api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${broker.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as T };
  };
  return {
    broker,
    dataDir,
    token,
    target: ["--port", String(broker.port), "--data-dir", dataDir],
    api,
    async close() {
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A {@link startCliBroker} broker kept by vitest hooks, and `notify(...args)`, which runs the CLI against it. */
export interface CliBrokerFixture {
  /** Always the broker running now (see hookFixture). */
  cli: CliBroker;
  notify(...args: string[]): Promise<CliResult>;
}

/** One broker for all the tests of the calling file: started before the first, closed after the last. */
export function sharedCliBroker(config?: Record<string, unknown>): CliBrokerFixture {
  return cliBrokerFixture("file", config);
}

/** A fresh broker for each test of the calling file (or describe): started before it, closed after it. */
export function cliBrokerPerTest(): CliBrokerFixture {
  return cliBrokerFixture("test");
}

function cliBrokerFixture(scope: "file" | "test", config?: Record<string, unknown>): CliBrokerFixture {
  const cli = hookFixture(
    scope,
    () => startCliBroker(config),
    (broker) => broker.close(),
  );
  return { cli, notify: (...args) => runCli([...args, ...cli.target]) };
}

/** A data dir of the test's own, removed when the test file ends. */
export function tempDataDir(): string {
  return tempDir("notify-cli-");
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
