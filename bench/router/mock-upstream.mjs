// A loopback mock model provider for the router benchmark: the chat wire (POST /v1/chat/completions) and the
// messages wire (POST /v1/messages), one-shot JSON and SSE streams, fixed small payloads.
//
// A model whose name contains "slow" streams `--slow-chunks` text deltas `--slow-delay-ms` apart; any other model
// streams `--fast-chunks` deltas written back to back. Prints {"port": N} on stdout once listening.
// GET /__stats returns request counters and the most streams it held at once; POST /__stats/reset zeroes them.
//
// Usage: node bench/router/mock-upstream.mjs [--port 0] [--fast-chunks 8] [--slow-chunks 20] [--slow-delay-ms 100]
import http from "node:http";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    "fast-chunks": { type: "string", default: "8" },
    "slow-chunks": { type: "string", default: "20" },
    "slow-delay-ms": { type: "string", default: "100" },
  },
});
const FAST_CHUNKS = Number(args["fast-chunks"]);
const SLOW_CHUNKS = Number(args["slow-chunks"]);
const SLOW_DELAY_MS = Number(args["slow-delay-ms"]);

const CREATED = 1_700_000_000;
const REPLY = "Hello from the mock upstream.";
const WORDS = ["Hello", " from", " the", " mock", " upstream", "."];
const USAGE = { input: 12, output: 7 };
const MAX_BODY = 1024 * 1024;

const stats = {
  chatJson: 0,
  chatStream: 0,
  messagesJson: 0,
  messagesStream: 0,
  models: 0,
  other: 0,
  badRequest: 0,
  inflightStreams: 0,
  maxInflightStreams: 0,
  connections: 0,
  maxConnections: 0,
};

const word = (index) => WORDS[index % WORDS.length];

/** Frames per (wire, model, chunk count), built once: the mock spends its time on HTTP, not on JSON. */
const cache = new Map();
function frames(kind, model, chunks) {
  const key = `${kind}\0${model}\0${chunks}`;
  let value = cache.get(key);
  if (value !== undefined) return value;
  value = kind === "chat" ? chatFrames(model, chunks) : messagesFrames(model, chunks);
  if (cache.size < 64) cache.set(key, value);
  return value;
}

function chatFrames(model, chunks) {
  const base = { id: "chatcmpl-mock", object: "chat.completion.chunk", created: CREATED, model };
  const data = (payload) => Buffer.from(`data: ${JSON.stringify({ ...base, ...payload })}\n\n`);
  const head = data({
    choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }],
  });
  const deltas = [];
  for (let index = 0; index < chunks; index++) {
    deltas.push(
      data({ choices: [{ index: 0, delta: { content: word(index) }, logprobs: null, finish_reason: null }] }),
    );
  }
  const finish = data({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }] });
  const usage = data({
    choices: [],
    usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output },
  });
  const done = Buffer.from("data: [DONE]\n\n");
  const json = Buffer.from(
    JSON.stringify({
      id: "chatcmpl-mock",
      object: "chat.completion",
      created: CREATED,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: REPLY }, logprobs: null, finish_reason: "stop" }],
      usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output },
    }),
  );
  return { head: [head], deltas, tail: [finish], usageTail: [usage], done: [done], json };
}

function messagesFrames(model, chunks) {
  const event = (name, payload) => Buffer.from(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
  const head = [
    event("message_start", {
      type: "message_start",
      message: {
        id: "msg_mock",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: USAGE.input, output_tokens: 1 },
      },
    }),
    event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  ];
  const deltas = [];
  for (let index = 0; index < chunks; index++) {
    deltas.push(
      event("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: word(index) },
      }),
    );
  }
  const tail = [
    event("content_block_stop", { type: "content_block_stop", index: 0 }),
    event("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: USAGE.output },
    }),
    event("message_stop", { type: "message_stop" }),
  ];
  const json = Buffer.from(
    JSON.stringify({
      id: "msg_mock",
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text: REPLY }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: USAGE.input, output_tokens: USAGE.output },
    }),
  );
  return { head, deltas, tail, usageTail: [], done: [], json };
}

function sendJson(res, status, body) {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  res.writeHead(status, { "content-type": "application/json", "content-length": payload.length });
  res.end(payload);
}

function stream(res, kind, model, request) {
  const slow = model.includes("slow");
  const set = frames(kind, model, slow ? SLOW_CHUNKS : FAST_CHUNKS);
  // The chat wire sends its usage chunk only when asked (stream_options.include_usage), as the real one does.
  const wantsUsage = kind === "chat" && request.stream_options?.include_usage === true;
  const closing = [...set.tail, ...(wantsUsage ? set.usageTail : []), ...set.done];
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  stats.inflightStreams++;
  if (stats.inflightStreams > stats.maxInflightStreams) stats.maxInflightStreams = stats.inflightStreams;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    stats.inflightStreams--;
  };
  res.once("close", finish);
  for (const frame of set.head) res.write(frame);
  if (!slow) {
    for (const frame of set.deltas) res.write(frame);
    for (const frame of closing) res.write(frame);
    res.end();
    finish();
    return;
  }
  let index = 0;
  const tick = () => {
    if (res.destroyed) return finish();
    if (index < set.deltas.length) {
      res.write(set.deltas[index++]);
      setTimeout(tick, SLOW_DELAY_MS);
      return;
    }
    for (const frame of closing) res.write(frame);
    res.end();
    finish();
  };
  setTimeout(tick, SLOW_DELAY_MS);
}

function handle(req, res, text) {
  const path = req.url.split("?")[0];
  if (req.method === "GET" && path === "/__stats") return sendJson(res, 200, stats);
  if (req.method === "POST" && path === "/__stats/reset") {
    for (const name of ["chatJson", "chatStream", "messagesJson", "messagesStream", "models", "other", "badRequest"])
      stats[name] = 0;
    stats.maxInflightStreams = stats.inflightStreams;
    stats.maxConnections = stats.connections;
    return sendJson(res, 200, stats);
  }
  if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
    stats.models++;
    return sendJson(res, 200, {
      object: "list",
      data: ["mock-fast", "mock-slow"].map((id) => ({ id, object: "model", created: CREATED, owned_by: "mock" })),
    });
  }
  const kind =
    req.method !== "POST"
      ? undefined
      : path === "/v1/chat/completions" || path === "/chat/completions"
        ? "chat"
        : path === "/v1/messages" || path === "/messages"
          ? "messages"
          : undefined;
  if (kind === undefined) {
    stats.other++;
    return sendJson(res, 404, { error: { message: "not found", type: "not_found" } });
  }
  let request;
  try {
    request = JSON.parse(text);
  } catch {
    request = undefined;
  }
  if (request === null || typeof request !== "object" || typeof request.model !== "string") {
    stats.badRequest++;
    return sendJson(res, 400, { error: { message: "bad request", type: "invalid_request_error" } });
  }
  if (request.stream === true) {
    stats[kind === "chat" ? "chatStream" : "messagesStream"]++;
    return stream(res, kind, request.model, request);
  }
  stats[kind === "chat" ? "chatJson" : "messagesJson"]++;
  return sendJson(res, 200, frames(kind, request.model, 0).json);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  req.on("end", () => {
    if (size > MAX_BODY) return sendJson(res, 413, { error: { message: "too large", type: "too_large" } });
    handle(req, res, Buffer.concat(chunks).toString("utf8"));
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 70_000;
server.requestTimeout = 0;
server.on("connection", (socket) => {
  stats.connections++;
  if (stats.connections > stats.maxConnections) stats.maxConnections = stats.connections;
  socket.once("close", () => stats.connections--);
});
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
