import { type Json, untilValue } from "@notify/test-kit";
import type { InjectOptions } from "fastify";
import { expect } from "vitest";
import { type Broker, createBroker } from "../../src/broker.js";
import type { Clock } from "../../src/domain/clock.js";
import { createMemoryLogger } from "../../src/log/logger.js";
import type { ChatTimings } from "../../src/surfaces/supervisor.js";
import { TOKEN, tempDir } from "../helpers.js";

export interface InProcessChat {
  broker: Broker;
  /** Every log line so far. */
  lines: string[];
  call(method: string, url: string, body?: unknown): Promise<Json>;
  /** Adds `provider` enabled, with the route "all" to it; returns its id. */
  addProvider(provider: Json): Promise<string>;
  /** The provider's answer-loop state as `GET /ui/api/outbound/providers` lists it. */
  connection(name: string): Promise<Json>;
  /** Resolves once the provider's state is `state` (and, when given, its last code `code`). */
  untilState(name: string, state: string, code?: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A caller of `broker`'s HTTP API in this process (app.inject) as the web page calls it: token, `X-Notify-UI`. */
export function injectCaller(broker: Broker): (method: string, url: string, body?: unknown) => Promise<Json> {
  return async (method, url, body) => {
    const request: InjectOptions = { method: method as "GET", url };
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, "x-notify-ui": "1" };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      request.payload = JSON.stringify(body);
    }
    const response = await broker.app.inject({ ...request, headers });
    return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined };
  };
}

/**
 * A broker in this process, with short chat timings (1 s long polls, a 1 s deadline per call, backoff from 100 ms
 * to 1 s), for the chat suites that run the broker in process. On the system clock unless `clock` is given. The chat
 * apps are the loopback servers.
 */
export function startInProcessChat(
  chat: ChatTimings = {},
  options: { clock?: Clock; prefix?: string } = {},
): InProcessChat {
  const logger = createMemoryLogger();
  const broker = createBroker({
    settings: {
      dataDir: tempDir(options.prefix ?? "notify-chat-hardening-"),
      port: 0,
      authToken: TOKEN,
      maxRequestBodyBytes: 65536,
      rateLimitPerSecond: 1_000_000,
      notificationTypes: [],
    },
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    chat: { rescanMs: 200, pollSeconds: 1, requestTimeoutMs: 1_000, baseBackoffMs: 100, maxBackoffMs: 1_000, ...chat },
  });
  const call = injectCaller(broker);
  const connection = async (name: string): Promise<Json> => {
    const providers = (await call("GET", "/ui/api/outbound/providers")).body as Json[];
    return providers.find((provider) => provider.name === name)?.connection;
  };
  return {
    broker,
    lines: logger.lines,
    call,
    async addProvider(provider) {
      const created = await call("POST", "/ui/api/outbound/providers", { ...provider, enabled: true });
      expect(created.status).toBe(201);
      const route = { name: "all", provider: provider.name, includeMessage: true, enabled: true };
      expect((await call("POST", "/ui/api/outbound/routes", route)).status).toBe(201);
      return created.body.id;
    },
    connection,
    async untilState(name, state, code, timeoutMs = 30_000) {
      let last: Json;
      await untilValue(
        `${name} ${state} ${code ?? ""}`,
        async () => {
          last = await connection(name);
          return last?.state === state && (code === undefined || last.lastCode === code) ? true : undefined;
        },
        { timeoutMs, detail: () => `last: ${JSON.stringify(last)}` },
      );
    },
    close: () => broker.close(),
  };
}
