import { backoffMs, delay } from "@notify/contracts/retry";
import { ExitError } from "../cli/exit-error.js";
import type { InteractionDto } from "../interactions/types.js";
import { type BrokerClient, HttpFailure } from "./client.js";

/**
 * Seconds per long-poll (docs/api.md, "GET /v1/interactions/{id}/wait": timeout 1-300, default 60); the request allows
 * some slack on top.
 */
const WAIT_SECONDS = 60;
const WAIT_SLACK_MS = 30_000;
/** No request runs past the question's expiry by more than this: a stopped broker cannot hold a waiter longer. */
const EXPIRY_GRACE_MS = 5_000;

export interface SettleWaitOptions {
  /** Aborts the wait (SIGINT, SIGTERM); the promise rejects with the abort. */
  signal?: AbortSignal;
  /** Called once per failed attempt while the broker cannot be reached (the CLI says so on stderr). */
  onRetry?: (attempt: number, delayMs: number) => void;
  /** Reconnect backoff; tests shorten it. */
  backoff?: { baseMs: number; maxMs: number };
  now?: () => number;
}

/** The broker could not be reached, or kept failing, until the question's expiry passed. */
export class BrokerLost extends ExitError {
  constructor(id: string) {
    super(1, `lost the broker; interaction ${id} expired before it could be reached again`);
    this.name = "BrokerLost";
  }
}

const retriable = (error: unknown): boolean =>
  error instanceof HttpFailure
    ? error.status >= 500 || error.status === 429
    : error instanceof ExitError && error.exitCode === 1;

/**
 * Long-polls `GET /v1/interactions/{id}/wait` until the question is settled. As durable as the question: a broker
 * that is down or restarting (connection refused, 5xx, 429) is retried with capped, jittered backoff until the
 * question's `expires_at`, since the question itself survives the restart in SQLite. 401 and 404 end the wait at
 * once: no retry can fix them.
 */
export async function waitUntilSettled(
  client: BrokerClient,
  interaction: InteractionDto,
  options: SettleWaitOptions = {},
): Promise<InteractionDto> {
  const now = options.now ?? Date.now;
  const backoff = options.backoff ?? { baseMs: 250, maxMs: 5_000 };
  const expiresAt = Date.parse(interaction.expires_at);
  const path = `/v1/interactions/${encodeURIComponent(interaction.id)}/wait`;
  let current = interaction;
  let failures = 0;
  while (current.status === "pending") {
    // Never ask to wait past the expiry by much: the broker answers `expired` once it passes.
    const left = Math.ceil((expiresAt - now()) / 1000);
    const seconds = Math.min(WAIT_SECONDS, Math.max(1, left + 1));
    try {
      const request: Parameters<BrokerClient["request"]>[2] = {
        query: { timeout: String(seconds) },
        timeoutMs: Math.max(1_000, Math.min(seconds * 1000 + WAIT_SLACK_MS, expiresAt + EXPIRY_GRACE_MS - now())),
      };
      if (options.signal !== undefined) request.signal = options.signal;
      current = await client.request<InteractionDto>("GET", path, request);
      failures = 0;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (!retriable(error)) throw error;
      if (now() >= expiresAt) throw new BrokerLost(interaction.id);
      failures += 1;
      const wait = Math.min(backoffMs(failures, backoff), Math.max(0, expiresAt - now()));
      options.onRetry?.(failures, wait);
      await delay(wait, options.signal);
      options.signal?.throwIfAborted();
    }
  }
  return current;
}
