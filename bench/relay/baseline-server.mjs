// The baseline: bare fastify on one process. A POST route that parses the same JSON body and answers 201 with the
// same shape, storing nothing; and a held GET (released all at once by POST /release) to compare memory per held
// request. Prints its URL on stdout.
import Fastify from "fastify";

const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
const held = new Set();
app.post("/v1/interaction-responses", async (request, reply) =>
  reply.code(201).send({ status: "accepted", response_id: request.body.response_id }),
);
app.get("/v1/interaction-responses", (_request, reply) => {
  held.add(reply);
});
app.post("/release", async () => {
  for (const reply of held) reply.send({ responses: [{ response_id: "fanout" }], next_cursor: "x" });
  const count = held.size;
  held.clear();
  return { released: count };
});
app.get("/healthz", async () => ({ held_polls: held.size }));
const url = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`listening on ${url}\n`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
