import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { type Broker, type BrokerOptions, createBroker } from "../src/broker.js";
import type { BrokerSettings } from "../src/config/settings.js";
import { ManualClock } from "../src/domain/clock.js";
import { createMemoryLogger } from "../src/log/logger.js";

export const TOKEN = "test-token-0123456789abcdefghijklmnopqrstuv";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

export function tempDir(prefix = "notify-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface TestBroker extends Broker {
  clock: ManualClock;
  lines: string[];
  dataDir: string;
  /** app.inject with the bearer token and a JSON body. */
  call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
}

export interface Reply {
  status: number;
  body: unknown;
  text: string;
  headers: Record<string, unknown>;
}

/** A broker on a temp data dir with a manual clock and an in-memory logger, closed after the test. */
export function testBroker(
  overrides: Partial<BrokerSettings> = {},
  options: Pick<BrokerOptions, "dispatcher" | "relayPoller" | "attention"> = {},
): TestBroker {
  const dataDir = tempDir();
  const clock = new ManualClock();
  const logger = createMemoryLogger();
  const settings: BrokerSettings = {
    dataDir,
    port: 0,
    authToken: TOKEN,
    maxRequestBodyBytes: 65536,
    // High by default so suites that freeze the clock are not throttled; the rate-limit tests set it low.
    rateLimitPerSecond: 1_000_000,
    notificationTypes: [],
    ...overrides,
  };
  const broker = createBroker({ settings, logger, clock, ...options });
  cleanups.push(() => broker.close());
  const call = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const response = await broker.app.inject({
      method: method as "GET",
      url,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    let parsed: unknown;
    try {
      parsed = response.body.length > 0 ? JSON.parse(response.body) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, body: parsed, text: response.body, headers: response.headers };
  };
  return { ...broker, clock, lines: logger.lines, dataDir, call };
}

export type { Json } from "@notify/test-kit";
