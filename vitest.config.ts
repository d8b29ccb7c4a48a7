import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    // Suites start real brokers on loopback and SQLite files; forks keep them isolated.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
