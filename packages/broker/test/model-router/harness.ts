import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { UpstreamTimeouts } from "@notify/router";
import type { Json, MockWire } from "@notify/test-kit";
import OpenAI from "openai";
import { expect } from "vitest";
import { type RunningBroker, startBroker } from "../../src/broker.js";
import { readConfigFile, updateConfigFile } from "../../src/config/config-file.js";

export type { Json } from "@notify/test-kit";
export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: Json;
}

/** Any HTTP request, with full control of Host, Origin and the body bytes. */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? "GET", headers: options.headers ?? {} },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: Json;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

export const RECORD_WIRE: Record<MockWire, string> = {
  responses: "responses_wire",
  chat: "chat_wire",
  messages: "messages_wire",
};

export interface RouterBroker {
  broker: RunningBroker;
  dataDir: string;
  /** The router key, read from config.json as `notify router key` does. */
  key: string;
  /** `${broker.url}/router/v1` */
  base: string;
  /** A /ui/api call with X-Notify-UI: 1. */
  ui(method: string, path: string, body?: unknown): Promise<RawReply>;
  addUpstream(fields: {
    slug: string;
    wire: MockWire;
    base_url: string;
    models?: string[];
    key?: string;
    model_wires?: Record<string, string>;
    auth?: string;
    credential_ref?: string | null;
  }): Promise<Json>;
  addRoute(name: string, kind: "alias" | "combo", targets: string[]): Promise<Json>;
  /** Ledger rows, newest first. */
  activity(limit?: number): Promise<Json[]>;
  /** Waits until the ledger holds `count` more rows than `before`, and returns the newest. */
  nextLedgerRow(before: number): Promise<Json>;
  ledgerSize(): Promise<number>;
  openai(options?: { apiKey?: string }): OpenAI;
  anthropic(options?: { apiKey?: string }): Anthropic;
  close(): Promise<void>;
}

/** A real broker on loopback with the router switched on through /ui/api, as an owner would do it. */
export async function startRouterBroker(
  options: {
    routerTimeouts?: UpstreamTimeouts;
    enable?: boolean;
    config?: Record<string, unknown>;
    /** The broker's environment (CODEX_HOME, HOME for sign-in files); empty by default. */
    env?: NodeJS.ProcessEnv;
    routerTokenUrl?: string;
    routerFlatPlanHosts?: ReadonlySet<string>;
  } = {},
): Promise<RouterBroker> {
  const dataDir = mkdtempSync(join(tmpdir(), "notify-router-"));
  // config.json keys read at start (e.g. RouterNativeBaseUrl pointing at a loopback "vendor").
  if (options.config) updateConfigFile(dataDir, (contents) => Object.assign(contents, options.config));
  const broker = await startBroker({
    dataDir,
    port: 0,
    env: options.env ?? {},
    ...(options.routerTimeouts ? { routerTimeouts: options.routerTimeouts } : {}),
    ...(options.routerTokenUrl ? { routerTokenUrl: options.routerTokenUrl } : {}),
    ...(options.routerFlatPlanHosts ? { routerFlatPlanHosts: options.routerFlatPlanHosts } : {}),
  });
  const ui = (method: string, path: string, body?: unknown) =>
    raw(`${broker.url}/ui/api${path}`, {
      method,
      headers: {
        "x-notify-ui": "1",
        authorization: `Bearer ${broker.settings.authToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  if (options.enable !== false) {
    const enabled = await ui("PUT", "/router/settings", { enabled: true });
    expect(enabled.status).toBe(200);
  }
  const key = String(readConfigFile(dataDir).RouterKey ?? "");
  const base = `${broker.url}/router/v1`;
  const activity = async (limit = 50): Promise<Json[]> => {
    const reply = await ui("GET", `/router/activity?limit=${limit}`);
    expect(reply.status).toBe(200);
    return reply.body as Json[];
  };
  const ledgerSize = async () => (await activity(500)).length;
  return {
    broker,
    dataDir,
    key,
    base,
    ui,
    async addUpstream(fields) {
      const reply = await ui("POST", "/router/upstreams", {
        label: fields.slug,
        models: [],
        enabled: true,
        ...fields,
        wire: RECORD_WIRE[fields.wire],
      });
      expect(reply.status, reply.text).toBe(201);
      return reply.body;
    },
    async addRoute(name, kind, targets) {
      const reply = await ui("POST", "/router/routes", { name, kind, targets });
      expect(reply.status, reply.text).toBe(201);
      return reply.body;
    },
    activity,
    ledgerSize,
    async nextLedgerRow(before) {
      for (let tries = 0; tries < 200; tries++) {
        const rows = await activity(500);
        if (rows.length > before) return rows[0];
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error("no new ledger row");
    },
    openai: ({ apiKey } = {}) => new OpenAI({ baseURL: base, apiKey: apiKey ?? key, maxRetries: 0 }),
    // The messages-wire SDK appends /v1/messages itself, so its base URL stops at /router.
    anthropic: ({ apiKey } = {}) =>
      new Anthropic({ baseURL: `${broker.url}/router`, apiKey: apiKey ?? key, maxRetries: 0 }),
    async close() {
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
