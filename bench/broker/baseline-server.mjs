// Baseline for the create benchmark: a bare fastify server on loopback that parses the JSON body of
// POST /v1/notifications and answers 201 with a small JSON object (no auth, no validation, no storage).
// Also GET /hold + POST /release, the baseline for holding many pending requests.
// Prints {"port": N} on stdout once listening; stops on SIGTERM/SIGINT.
import Fastify from "fastify";

const app = Fastify({ logger: false });
let counter = 0;

app.post("/v1/notifications", async (request, reply) => {
  counter += 1;
  const title = request.body && typeof request.body === "object" ? request.body.title : undefined;
  return reply.code(201).send({ id: `ntf_${counter}`, title, status: "active" });
});

app.get("/health", async () => ({ status: "ok" }));

// Baseline for the long-poll benchmark: GET /hold stays pending until POST /release answers every held request.
let held = [];
app.get("/hold", () => new Promise((resolve) => held.push(resolve)));
app.post("/release", async () => {
  const waiting = held;
  held = [];
  for (const resolve of waiting) resolve({ status: "released" });
  return { released: waiting.length };
});

await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
