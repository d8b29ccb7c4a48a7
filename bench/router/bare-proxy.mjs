// The least a Node proxy can do, as a floor for the router's added latency: node:http in, undici out (the same
// client library the router uses), body bytes forwarded unchanged, the response relayed as it arrives. No framework,
// no auth, no selection, no ledger, no translation. Prints {"port": N} on stdout.
//
// Usage: node bench/router/bare-proxy.mjs --upstream http://127.0.0.1:PORT
import http from "node:http";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";

const { values: args } = parseArgs({
  options: { upstream: { type: "string" }, port: { type: "string", default: "0" } },
});
if (!args.upstream) throw new Error("--upstream is required");
const agent = new Agent({ keepAliveTimeout: 30_000, connections: null });

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    try {
      const upstream = await request(`${args.upstream}${req.url}`, {
        method: req.method,
        headers: { "content-type": "application/json" },
        body: Buffer.concat(chunks),
        dispatcher: agent,
      });
      const type = upstream.headers["content-type"];
      res.writeHead(upstream.statusCode, type ? { "content-type": type } : {});
      for await (const chunk of upstream.body) {
        if (!res.write(chunk)) await new Promise((resolveDrain) => res.once("drain", resolveDrain));
      }
      res.end();
    } catch {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(args.port), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
