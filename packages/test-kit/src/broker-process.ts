import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built broker CLI (packages/broker/dist/cli/main.js; `npm test` builds it first). */
export const CLI = fileURLToPath(new URL("../../broker/dist/cli/main.js", import.meta.url));

export interface BrokerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the built `notify serve` on port 0 and waits for its "listening on" line. `unsetEnv` names variables of
 * this process's environment the broker must not inherit.
 */
export async function spawnBroker(
  dataDir: string,
  extraEnv: Record<string, string> = {},
  unsetEnv: string[] = [],
): Promise<BrokerProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  delete env.NOTIFY_TOKEN;
  delete env.NOTIFY_PORT;
  for (const name of unsetEnv) delete env[name];
  Object.assign(env, extraEnv);
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data-dir", dataDir], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker did not start: ${stderr}`)), 15_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`broker exited: ${stderr}`));
    });
  });
  return { child, port, url: `http://127.0.0.1:${port}`, stderr: () => stderr, exited };
}
