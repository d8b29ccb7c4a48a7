import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    // Suites start real brokers on loopback and SQLite files; forks keep them isolated.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll's own default (1 s) is shorter than a wait across processes takes on a loaded 2-core machine.
    expect: { poll: { timeout: 20_000 } },
  },
});
