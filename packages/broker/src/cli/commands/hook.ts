import { fstatSync, readSync } from "node:fs";
import { brokerTarget, type ClientOptions, createClient } from "../../client/client.js";
import { AGENTS, isAgent } from "../../hooks/agents.js";
import { FollowUpCount } from "../../hooks/follow-up-count.js";
import { OpenMarks } from "../../hooks/open-marks.js";
import { runHook } from "../../hooks/run-hook.js";
import { appendObservation } from "../../sessions/journal.js";
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
      observe: (observation) => appendObservation(target.dataDir, { ...observation, at: Date.now() }),
      followUps: new FollowUpCount(target.dataDir),
      ...stopBlockCap(process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP),
      ...(ttl !== undefined && Number.isInteger(ttl) && ttl > 0 ? { ttlSeconds: ttl } : {}),
    });
    if (output !== undefined) process.stdout.write(`${output}\n`);
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
}

/**
 * The agent's JSON: read straight from fd 0 while it blocks (the agents' pipes do), which loads no stream modules
 * (process.stdin and node:tty do); a non-blocking stdin (EAGAIN) is read to its end as a stream instead. A terminal
 * (or /dev/null), a character device, has no JSON to wait for.
 */
async function readStdin(): Promise<string> {
  if (fstatSync(0).isCharacterDevice()) return "";
  const chunks: Buffer[] = [];
  const buffer = Buffer.allocUnsafe(64 * 1024);
  try {
    for (;;) {
      const read = readSync(0, buffer, 0, buffer.length, null);
      if (read === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, read)));
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EAGAIN") {
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    } else if (code !== "EOF") {
      throw error;
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Claude Code's Stop block cap as its environment sets it (a positive integer), else nothing (the default). */
function stopBlockCap(value: string | undefined): { stopBlockCap?: number } {
  const cap = value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
  return cap !== undefined && cap > 0 ? { stopBlockCap: cap } : {};
}
