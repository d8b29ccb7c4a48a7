import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import type { DeliveryContext, DeliveryResult, OutboundPayload } from "../../../src/outbox/types.js";

/** One request as the provider saw it. `headers` leaves out `host` and `connection`, which are transport. */
export interface RecordedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type Responder = (request: RecordedRequest, response: ServerResponse) => void;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` with no trailing slash. */
  origin: string;
  requests: RecordedRequest[];
  /** Changes how the next requests are answered (default: 200 `ok`). */
  respond(responder: Responder): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, port 0, that records every request. */
export async function loopbackHttp(): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  let responder: Responder = (_request, response) => response.end("ok");
  const server = createServer((incoming: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (name !== "host" && name !== "connection" && value !== undefined) {
          headers[name] = Array.isArray(value) ? value.join(", ") : value;
        }
      }
      const recorded = {
        method: incoming.method ?? "",
        url: incoming.url ?? "",
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      responder(recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      responder = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const MESSAGE = "The build finished: 42 tests passed.";

/** A notification payload as the outbox stores it (docs/outbound.md, Payload). */
export function samplePayload(overrides: Partial<OutboundPayload> = {}): OutboundPayload {
  return {
    id: "ntf_0123456789abcdef",
    title: "Build done",
    message: MESSAGE,
    type: "task_complete",
    priority: "normal",
    agent: "claude",
    project: "notify",
    createdAt: "2026-03-04T10:11:12.000Z",
    ...overrides,
  };
}

/** The payload of a route with IncludeMessage off (docs/outbound.md, "Delivery rules", rule 3). */
export function titleOnly(overrides: Partial<OutboundPayload> = {}): OutboundPayload {
  const { message: _dropped, ...rest } = samplePayload(overrides);
  return rest;
}

export function deliveryContext(signal: AbortSignal = AbortSignal.timeout(5_000)): DeliveryContext {
  return { idempotencyKey: "obx_00112233445566778899aabb", signal };
}

/** Secrets must never reach a DeliveryResult (docs/outbound.md, "Delivery rules", rule 6). */
export function expectNoSecrets(result: DeliveryResult, secrets: Record<string, string>): void {
  const json = JSON.stringify(result);
  for (const value of Object.values(secrets)) expect(json).not.toContain(value);
}

export function jsonBody(request: RecordedRequest | undefined): unknown {
  return JSON.parse(request?.body ?? "null") as unknown;
}

export function byteLength(text: string): string {
  return String(Buffer.byteLength(text, "utf8"));
}
