import { describe, expect, it } from "vitest";
import { allCoolingAnswer, CooldownBook, cooldownMs, FAILOVER_STATUSES } from "../src/index.js";

/**
 * docs/router.md, "Failover and cooldowns": which failures fail over, the cooldown table, and the answer when every
 * target cools.
 */

const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const SECOND = 1000;

describe("failover statuses", () => {
  it("are 400, 401, 402, 403, 404, 408, 429, 500, 502, 503, 504 and 529, and no other", () => {
    expect([...FAILOVER_STATUSES].sort((a, b) => a - b)).toEqual([
      400, 401, 402, 403, 404, 408, 429, 500, 502, 503, 504, 529,
    ]);
    for (const status of [409, 413, 422, 501, 505]) expect(FAILOVER_STATUSES.has(status)).toBe(false);
  });
});

describe("cooldownMs", () => {
  it.each([
    [{ status: 429 }, 30 * SECOND],
    [{ status: 529 }, 30 * SECOND],
    [{ connectionError: true }, 15 * SECOND],
    [{ status: 500 }, 15 * SECOND],
    [{ status: 502 }, 15 * SECOND],
    [{ status: 503 }, 15 * SECOND],
    [{ status: 504 }, 15 * SECOND],
    [{ status: 401 }, 60 * SECOND],
    [{ status: 403 }, 60 * SECOND],
    [{ status: 404 }, 60 * SECOND],
    [{ status: 402 }, 5 * 60 * SECOND],
    [{ status: 400 }, 0],
  ])("%o cools for %i ms", (failure, expected) => {
    expect(cooldownMs(failure, NOW)).toBe(expected);
  });

  it("takes Retry-After in seconds over the table", () => {
    expect(cooldownMs({ status: 429, headers: { "retry-after": "7" } }, NOW)).toBe(7 * SECOND);
    expect(cooldownMs({ status: 503, headers: { "retry-after": "120" } }, NOW)).toBe(120 * SECOND);
  });

  it("takes Retry-After as an HTTP date", () => {
    const date = new Date(NOW + 90 * SECOND).toUTCString();
    expect(cooldownMs({ status: 429, headers: { "retry-after": date } }, NOW)).toBe(90 * SECOND);
  });

  it("caps Retry-After at 10 minutes, in seconds and as a date", () => {
    expect(cooldownMs({ status: 429, headers: { "retry-after": "86400" } }, NOW)).toBe(10 * 60 * SECOND);
    const date = new Date(NOW + 5 * 3_600_000).toUTCString();
    expect(cooldownMs({ status: 503, headers: { "retry-after": date } }, NOW)).toBe(10 * 60 * SECOND);
  });

  it("never cools a 400, even with Retry-After", () => {
    expect(cooldownMs({ status: 400, headers: { "retry-after": "30" } }, NOW)).toBe(0);
  });

  it("falls back to the table when Retry-After cannot be read", () => {
    expect(cooldownMs({ status: 429, headers: { "retry-after": "soon" } }, NOW)).toBe(30 * SECOND);
    expect(cooldownMs({ status: 500, headers: {} }, NOW)).toBe(15 * SECOND);
  });
});

describe("CooldownBook", () => {
  it("cools one slug and model, ends on time, and never shortens a longer cooldown", () => {
    let now = NOW;
    const book = new CooldownBook(() => now);
    book.cool("alpha", "m1", 30 * SECOND, true);
    expect(book.cooling("alpha", "m1")).toEqual({ untilMs: NOW + 30 * SECOND, rateLimited: true });
    expect(book.cooling("alpha", "m2")).toBeUndefined();
    expect(book.cooling("beta", "m1")).toBeUndefined();

    book.cool("alpha", "m1", 15 * SECOND, false);
    expect(book.cooling("alpha", "m1")).toEqual({ untilMs: NOW + 30 * SECOND, rateLimited: true });

    now += 30 * SECOND;
    expect(book.cooling("alpha", "m1")).toBeUndefined();
  });

  it("does nothing for a zero cooldown (a 400 concerns one request)", () => {
    const book = new CooldownBook(() => NOW);
    book.cool("alpha", "m1", cooldownMs({ status: 400 }, NOW), false);
    expect(book.cooling("alpha", "m1")).toBeUndefined();
  });
});

describe("allCoolingAnswer", () => {
  it("is 429 rate_limited when the soonest cooldown to end began with a 429 or 529", () => {
    const answer = allCoolingAnswer(
      [
        { untilMs: NOW + 20 * SECOND, rateLimited: false },
        { untilMs: NOW + 7 * SECOND, rateLimited: true },
      ],
      NOW,
    );
    expect(answer).toEqual({ status: 429, code: "rate_limited", retryAfterSeconds: 7 });
  });

  it("is 503 all_targets_unavailable otherwise, with the seconds until that cooldown ends", () => {
    const answer = allCoolingAnswer(
      [
        { untilMs: NOW + 30 * SECOND, rateLimited: true },
        { untilMs: NOW + 14_200, rateLimited: false },
      ],
      NOW,
    );
    expect(answer).toEqual({ status: 503, code: "all_targets_unavailable", retryAfterSeconds: 15 });
  });

  it("never advises retrying in less than a second", () => {
    expect(allCoolingAnswer([{ untilMs: NOW + 10, rateLimited: true }], NOW).retryAfterSeconds).toBe(1);
  });
});
