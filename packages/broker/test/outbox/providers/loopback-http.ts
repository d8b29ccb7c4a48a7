import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { PRIORITIES } from "../../../src/notifications/types.js";
import type { DeliveryResult, OutboundPayload } from "../../../src/outbox/types.js";
import { hookFixture } from "../../hook-fixture.js";
import { samplePayload } from "./delivery-fixtures.js";

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

/** A fresh {@link loopbackHttp} server for each test of the calling `describe` (see hookFixture). */
export function loopbackHttpPerTest(): LoopbackServer {
  return hookFixture("test", loopbackHttp, (server) => server.close());
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Checks that `request` is a POST to `url` carrying the outbox's own headers (`content-type`, `content-length` of
 * the body, `user-agent`) plus `extraHeaders`, and no other header.
 */
export function expectPost(
  request: RecordedRequest | undefined,
  url: string,
  extraHeaders: Record<string, string> = {},
  contentType = "application/json",
): void {
  expect(request?.method).toBe("POST");
  expect(request?.url).toBe(url);
  expect(request?.headers).toEqual({
    ...extraHeaders,
    "content-type": contentType,
    "content-length": byteLength(request?.body ?? ""),
    "user-agent": "notify-outbox",
  });
}

/** Sends the sample payload once at each priority, lowest first, and returns the requests the server saw. */
export async function requestsAtEachPriority(
  server: LoopbackServer,
  send: (payload: OutboundPayload) => Promise<DeliveryResult>,
): Promise<RecordedRequest[]> {
  const before = server.requests.length;
  for (const priority of PRIORITIES) await send(samplePayload({ priority }));
  return server.requests.slice(before);
}

export function jsonBody(request: RecordedRequest | undefined): unknown {
  return JSON.parse(request?.body ?? "null") as unknown;
}

export function byteLength(text: string): string {
  return String(Buffer.byteLength(text, "utf8"));
}
