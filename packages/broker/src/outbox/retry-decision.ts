import { backoffMs, cappedServerDelayMs } from "@notify/contracts/retry";
import type { DeliveryResult, OutboxStatus } from "./types.js";

/** The retry bounds of docs/outbound.md, "Delivery rules" (the dispatcher's options). */
export interface RetryPolicy {
  /** At most this many attempts, then DeadLetter. */
  maxAttempts: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** A provider's Retry-After is honoured up to this. */
  maxRetryAfterMs: number;
}

export interface RetryDecision {
  status: OutboxStatus;
  /** When the next attempt falls due (now for a final status). */
  nextAttemptMs: number;
}

/**
 * What an attempt's result makes of its item: Delivered; DeadLetter when the failure is final or the budget is
 * spent; else Retry after jittered exponential backoff, or the provider's Retry-After (capped) when longer. Pure:
 * `attempts` counts the attempt just made, `random` is the jitter source.
 */
export function decideRetry(
  result: DeliveryResult,
  attempts: number,
  nowMs: number,
  policy: RetryPolicy,
  random: () => number,
): RetryDecision {
  if (result.ok) return { status: "Delivered", nextAttemptMs: nowMs };
  if (!result.retryable || attempts >= policy.maxAttempts) return { status: "DeadLetter", nextAttemptMs: nowMs };
  const backoff = backoffMs(attempts, { baseMs: policy.baseBackoffMs, maxMs: policy.maxBackoffMs, random });
  const requested = cappedServerDelayMs(result.retryAfterMs, policy.maxRetryAfterMs);
  return { status: "Retry", nextAttemptMs: nowMs + Math.max(backoff, requested) };
}
