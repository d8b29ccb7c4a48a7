import { AGENTS, isAgent } from "../../hooks/agents.js";
import { OpenMarks } from "../../hooks/open-marks.js";
import { runHook } from "../../hooks/run-hook.js";
import { brokerTarget, type ClientOptions, createClient } from "../client.js";
import { ExitError } from "../exit-error.js";

export interface HookOptions extends ClientOptions {
  agent: string;
  event: string;
  /** Codex's legacy `notify` program gets its JSON as the last argument instead of on stdin. */
  payload?: string | undefined;
  ttl?: string | undefined;
}

/**
 * `notify hook <agent> <event>`: what the agent runs (docs/hooks.md). Reads the agent's JSON from stdin, prints the
 * decision in the agent's format when a person answered, and otherwise prints nothing and exits 0, so the agent's
 * own prompt decides. Exit 0 always, except for a command line that names no known agent (exit 1): a non-zero
 * exit 2 would be a refusal to Claude Code.
 */
export async function hook(options: HookOptions): Promise<void> {
  if (!isAgent(options.agent)) {
    throw new ExitError(1, `unknown agent ${options.agent}: expected ${AGENTS.join(" or ")}`);
  }
  const payload = options.payload ?? (await readStdin());
  const log = (line: string): void => {
    process.stderr.write(`notify hook: ${line}\n`);
  };
  let target: ReturnType<typeof brokerTarget>;
  let client: ReturnType<typeof createClient>;
  try {
    target = brokerTarget(options);
    client = createClient(options);
  } catch (error) {
    log(`${(error as Error).message}; the agent decides`);
    return;
  }
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  try {
    const ttl = options.ttl !== undefined ? Number(options.ttl) : undefined;
    const output = await runHook({
      agent: options.agent,
      event: options.event,
      payload,
      broker: { baseUrl: target.baseUrl, token: target.token },
      client,
      signal: stop.signal,
      pid: process.ppid,
      log,
      marks: new OpenMarks(target.dataDir),
      ...(ttl !== undefined && Number.isInteger(ttl) && ttl > 0 ? { ttlSeconds: ttl } : {}),
    });
    if (output !== undefined) process.stdout.write(`${output}\n`);
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
