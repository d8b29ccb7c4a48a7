import { createServer, type IncomingMessage, type Server } from "node:http";

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A loopback HTTP server that records requests and answers with the next scripted status (default 200). */
export async function recordingServer(script: (number | "hang")[] = []): Promise<{
  url: string;
  received: Received[];
  server: Server;
  setScript: (next: (number | "hang")[]) => void;
  close: () => Promise<void>;
}> {
  const received: Received[] = [];
  let queue = [...script];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      const next = queue.shift() ?? 200;
      if (next === "hang") return;
      response.writeHead(next, { "content-type": "application/json" });
      response.end(JSON.stringify({ ok: next < 300, detail: "provider says: secret stuff must not leak" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    server,
    setScript: (next) => {
      queue = [...next];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
