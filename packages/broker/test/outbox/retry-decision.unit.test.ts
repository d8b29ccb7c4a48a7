import { describe, expect, it } from "vitest";
import { decideRetry, type RetryPolicy } from "../../src/outbox/retry-decision.js";

const policy: RetryPolicy = { maxAttempts: 6, baseBackoffMs: 2_000, maxBackoffMs: 300_000, maxRetryAfterMs: 600_000 };
const now = 1_000_000;

describe("decideRetry (docs/outbound.md, 'Delivery rules', rule 6: the retry bound)", () => {
  it("a delivered attempt is final", () => {
    expect(decideRetry({ ok: true, status: 200 }, 1, now, policy, () => 1)).toEqual({
      status: "Delivered",
      nextAttemptMs: now,
    });
  });

  it("a final failure, or the last attempt of the budget, is a dead letter", () => {
    const final = { ok: false as const, retryable: false, code: "http_400" };
    expect(decideRetry(final, 1, now, policy, () => 1).status).toBe("DeadLetter");
    const retryable = { ok: false as const, retryable: true, code: "http_503" };
    expect(decideRetry(retryable, 5, now, policy, () => 1).status).toBe("Retry");
    expect(decideRetry(retryable, 6, now, policy, () => 1).status).toBe("DeadLetter");
  });

  it("a retry waits the backoff, or the provider's Retry-After when longer, capped", () => {
    const retryable = { ok: false as const, retryable: true, code: "http_429" };
    const backoff = decideRetry(retryable, 1, now, policy, () => 1).nextAttemptMs - now;
    expect(backoff).toBeGreaterThan(0);
    const asked = decideRetry({ ...retryable, retryAfterMs: 120_000 }, 1, now, policy, () => 1);
    expect(asked.nextAttemptMs).toBe(now + Math.max(backoff, 120_000));
    const capped = decideRetry({ ...retryable, retryAfterMs: 3_600_000 }, 1, now, policy, () => 1);
    expect(capped.nextAttemptMs).toBe(now + 600_000);
  });

  it("a server's delay past the timer limit, infinite or NaN still gives a due time within the cap (issue 31, item 4)", () => {
    const retryable = { ok: false as const, retryable: true, code: "http_429" };
    const backoff = decideRetry(retryable, 1, now, policy, () => 1).nextAttemptMs - now;
    for (const retryAfterMs of [2_147_484_000, Number.POSITIVE_INFINITY]) {
      expect(decideRetry({ ...retryable, retryAfterMs }, 1, now, policy, () => 1).nextAttemptMs).toBe(now + 600_000);
    }
    expect(decideRetry({ ...retryable, retryAfterMs: Number.NaN }, 1, now, policy, () => 1).nextAttemptMs).toBe(
      now + backoff,
    );
  });
});
