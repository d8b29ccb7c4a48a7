import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * What the loopback chat apps of the chat suites (telegram-server.ts, slack-server.ts, discord-server.ts) share: an
 * HTTP server on 127.0.0.1 that hands each request to `handle` with its body read, and, for the apps with a
 * socket, the WebSocket upgrades `upgrade` lets through. A request whose handling throws is cut off.
 */
export abstract class LoopbackServer {
  url = "";
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor() {
    this.server = createServer((request, response) => {
      this.take(request, response).catch(() => response.destroy());
    });
    this.server.on("upgrade", (request, socket, head) => {
      const refused = this.upgrade(new URL(request.url ?? "/", "http://localhost"));
      if (refused !== undefined) {
        socket.end(`HTTP/1.1 ${refused}\r\n\r\n`);
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.connected(ws, request.url ?? ""));
    });
  }

  /** Answers one request; `text` is its body. */
  protected abstract handle(request: IncomingMessage, response: ServerResponse, text: string): Promise<void>;

  /** Whether a WebSocket upgrade to `url` is taken: undefined, or the status to refuse it with (none are taken). */
  protected upgrade(_url: URL): string | undefined {
    return "404 Not Found";
  }

  /** A WebSocket the server took; `path` is the request's, with its query. */
  protected connected(_ws: WebSocket, _path: string): void {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const address = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async take(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    await this.handle(request, response, Buffer.concat(chunks).toString("utf8"));
  }
}
