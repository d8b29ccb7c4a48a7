import { type RunningBroker, startBroker } from "@notify/broker";
import { expect } from "vitest";
import { brokerApi } from "./broker-api.js";
import type { Json } from "./json.js";

/** A real broker on loopback (system clock, running dispatcher and relay poll) with a small HTTP client. */
export interface LiveBroker {
  broker: RunningBroker;
  dataDir: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  close(): Promise<void>;
}

export type StartBroker = typeof startBroker;

/** `start` is @notify/broker's startBroker (its build); the broker's own suites pass their source's. */
export async function liveBroker(dataDir: string, start: StartBroker = startBroker): Promise<LiveBroker> {
  const broker = await start({ dataDir, port: 0, env: {}, relayPoller: { rescanMs: 100, idleMs: 200 } });
  const api = brokerApi(broker.url, broker.settings.authToken);
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, body, { "x-notify-ui": "1" });
  return { broker, dataDir, call, close: () => broker.close() };
}

/** Creates the enabled relay provider "phone" and route "questions"; returns the provider id. */
export async function addRelayProvider(
  live: LiveBroker,
  relayUrl: string,
  installation: { installation_id: string; token: string },
): Promise<string> {
  const provider = await live.call("POST", "/ui/api/outbound/providers", {
    kind: "relay",
    name: "phone",
    enabled: true,
    settings: { url: relayUrl, installationId: installation.installation_id },
    secrets: { installationToken: installation.token },
  });
  expect(provider.status).toBe(201);
  const route = await live.call("POST", "/ui/api/outbound/routes", {
    name: "questions",
    provider: "phone",
    enabled: true,
  });
  expect(route.status).toBe(201);
  return provider.body.id;
}
