import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built relay CLI (packages/relay/dist/cli/main.js; `npm test` builds it first). */
const MAIN = fileURLToPath(new URL("../../relay/dist/cli/main.js", import.meta.url));

export interface RelayProcess {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/** Runs `notify-relay serve` as its own process (the built CLI), and resolves once it listens. */
export async function spawnRelay(options: {
  dataDir: string;
  databaseUrl?: string;
  env?: Record<string, string>;
  /** Run under this umask (through `sh -c 'umask U; exec ...'`). */
  umask?: string;
}): Promise<RelayProcess> {
  const args = [MAIN, "serve", "--port", "0", "--data-dir", options.dataDir];
  if (options.databaseUrl) args.push("--database-url", options.databaseUrl);
  const [command, argv] = options.umask
    ? ["sh", ["-c", `umask ${options.umask} && exec "$0" "$@"`, process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command, argv, {
    env: { ...process.env, RELAY_RATE_LIMITS: "off", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`notify-relay exited (${code}): ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    url,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Minimal JSON client for a running relay. */
export async function call(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies freely
): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}
