import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

const shared = {
  // Suites start real brokers on loopback and SQLite files; forks keep them isolated.
  pool: "forks" as const,
  testTimeout: 30_000,
  hookTimeout: 30_000,
  // expect.poll's own default (1 s) is shorter than a wait across processes takes on a loaded 2-core machine.
  expect: { poll: { timeout: 20_000 } },
};

/**
 * Two tiers (docs/testing.md): `unit` is every `*.unit.test.ts` (in memory: inject, a manual clock, no sockets or
 * processes, enforced by test/unit-guard.ts; `npm run test:unit`), `e2e` every other test file (sockets, processes,
 * Chromium, PostgreSQL). `npm test` runs both.
 */
export default defineConfig({
  test: {
    // Vitest's default is one worker on 2 cores; most e2e files wait on other processes, so two halve the wall time
    // (886 s -> 496 s for the whole suite on this machine, docs/testing.md).
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          // test/: the repository's own checks over the suites (tests stay in their package).
          include: ["packages/*/test/**/*.unit.test.ts", "test/**/*.unit.test.ts"],
          setupFiles: ["./test/unit-guard.ts"],
          // The unit tier's temp files (SQLite databases, config and agent files the product writes with fsync) go
          // to tmpfs where the machine has one: the same code paths, without each fsync waiting on a disk that other
          // work keeps busy (docs/testing.md has the figures).
          env: existsSync("/dev/shm") ? { TMPDIR: "/dev/shm" } : {},
        },
      },
      {
        test: {
          ...shared,
          name: "e2e",
          include: ["packages/*/test/**/*.test.ts"],
          exclude: ["packages/*/test/**/*.unit.test.ts", "**/node_modules/**"],
        },
      },
    ],
  },
});
