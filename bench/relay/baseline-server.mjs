// The baseline: bare fastify on one process, a POST route that parses the same JSON body and answers 201 with the
// same shape, storing nothing. Prints its URL on stdout.
import Fastify from "fastify";

const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
app.post("/v1/interaction-responses", async (request, reply) =>
  reply.code(201).send({ status: "accepted", response_id: request.body.response_id }),
);
const url = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`listening on ${url}\n`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
