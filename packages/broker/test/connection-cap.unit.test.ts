import { describe, expect, it } from "vitest";
import { connectionCap } from "../src/http/app.js";
import { testBroker } from "./helpers.js";

// docs/config.md, "Connection limits": the broker's connection cap follows the open-files limit, so 10,000 held
// long-polls (issue 2's target, bench/broker) fit wherever the limit allows them.
describe("the connection cap", () => {
  it("is 16,384, or the open-files limit less 2,048 when lower, never under 64", () => {
    expect(connectionCap(undefined)).toBe(16_384);
    expect(connectionCap(Number.POSITIVE_INFINITY)).toBe(16_384);
    expect(connectionCap(524_288)).toBe(16_384);
    expect(connectionCap(20_000)).toBe(16_384);
    expect(connectionCap(12_048)).toBe(10_000);
    expect(connectionCap(4096)).toBe(2048);
    expect(connectionCap(1024)).toBe(64);
  });

  it("is what the broker's server holds at most, read from this process's limit", async () => {
    const broker = await testBroker();
    try {
      expect(broker.app.server.maxConnections).toBe(connectionCap());
      expect(connectionCap()).toBeGreaterThanOrEqual(64);
    } finally {
      await broker.close();
    }
  });
});
