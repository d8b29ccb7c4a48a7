import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A model provider on loopback that speaks one real wire (responses, chat or messages), one-shot and as SSE, the
 * way the vendors' own servers frame it. A request that carries tools is answered with one call of the first tool;
 * any other request with `text`. Every request is recorded; `script` makes the next requests fail in chosen ways.
 */
export type MockWire = "responses" | "chat" | "messages";

export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: the recorded body is read loosely by tests.
  body: any;
  bytes: number;
  /** The body exactly as received. */
  raw: Buffer;
}

export type Action =
  /** The wire's ordinary answer. */
  | { kind: "reply" }
  /** An error status with a provider-style body (and optional headers such as retry-after). */
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  /** Streams the opening events and the first text delta, then destroys the socket. */
  | { kind: "die-mid-stream" }
  /** Streams the opening events and the first text delta, then goes silent until the router hangs up. */
  | { kind: "stall-mid-stream" }
  /** Accepts the request and never answers (no headers). */
  | { kind: "hang" }
  /** Sends 200 and stream headers, then not a single byte. */
  | { kind: "silent-stream" };

/** The tokens every mock reports: 120 input of which 20 cached, 45 output of which 5 reasoning (where the wire can). */
export const MOCK_USAGE = { input: 120, cached: 20, output: 45, reasoning: 5 } as const;

export const TOOL_ARGUMENTS = { city: "Paris", days: 3, units: "metric" } as const;
const TOOL_ARGUMENT_CHUNKS = ['{"city":', '"Paris","da', 'ys":3,"units":"metric"}'];

export class MockUpstream {
  readonly hits: Hit[] = [];
  /** Actions for the next requests, in order; when empty every request gets `reply`. */
  readonly script: Action[] = [];
  /** How many requests were closed by the router before their answer was complete. */
  aborted = 0;
  text = "Hello from the mock upstream, in three parts.";
  private readonly abortWaiters: (() => void)[] = [];
  private readonly server = createServer((request, response) => {
    // A body the mock cannot read is refused the way a real provider refuses it: 400, invalid_request_error.
    this.handle(request, response).catch(() => {
      if (response.headersSent) return void response.destroy();
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { type: "invalid_request_error", message: "malformed request" } }));
    });
  });
  url = "";

  constructor(readonly wire: MockWire) {}

  async start(): Promise<this> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves once a request has been closed by the router before its answer was complete. */
  nextAbort(): Promise<void> {
    return new Promise((resolve) => this.abortWaiters.push(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBytes = Buffer.concat(chunks);
    const raw = rawBytes.toString("utf8");
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const path = (request.url ?? "").replace(/^\/v1/, "");
    this.hits.push({ path, headers: request.headers, body, bytes: raw.length, raw: rawBytes });
    response.on("close", () => {
      if (response.writableFinished) return;
      this.aborted += 1;
      for (const resolve of this.abortWaiters.splice(0)) resolve();
    });
    const action = this.script.shift() ?? { kind: "reply" };
    if (action.kind === "hang") return;
    if (action.kind === "status") {
      response.writeHead(action.status, { "content-type": "application/json", ...action.headers });
      response.end(JSON.stringify(action.body ?? { error: { message: "mock failure", type: "server_error" } }));
      return;
    }
    // The provider's model list (POST /ui/api/router/models/fetch asks for it).
    if (request.method === "GET" && path === "/models") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ object: "list", data: [{ id: "m" }, { id: "other" }] }));
      return;
    }
    if (path === "/messages/count_tokens") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ input_tokens: 42 }));
      return;
    }
    const request_ = body as Record<string, unknown>;
    const tool = firstToolName(this.wire, request_);
    const model = typeof request_.model === "string" ? request_.model : "unknown";
    if (request_.stream !== true) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(oneShot(this.wire, model, this.text, tool)));
      return;
    }
    const events = streamEvents(this.wire, model, this.text, tool, includeUsage(this.wire, request_));
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (action.kind === "silent-stream") {
      response.flushHeaders();
      return;
    }
    if (action.kind === "die-mid-stream" || action.kind === "stall-mid-stream") {
      const opening = JSON.stringify(thirds(this.text)[0]).slice(1, -1);
      const firstDelta = events.findIndex((event) => event.includes(opening));
      for (const event of events.slice(0, firstDelta + 1)) response.write(event);
      if (action.kind === "die-mid-stream") {
        await new Promise((resolve) => setTimeout(resolve, 30));
        response.socket?.destroy();
      }
      return;
    }
    for (const event of events) {
      response.write(event);
      await new Promise((resolve) => setImmediate(resolve));
    }
    response.end();
  }
}

export async function startMock(wire: MockWire): Promise<MockUpstream> {
  return new MockUpstream(wire).start();
}

function firstToolName(wire: MockWire, body: Record<string, unknown>): string | undefined {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  const [first] = tools;
  if (first === undefined) return undefined;
  if (wire === "chat") return (first.function as { name: string }).name;
  return first.name as string;
}

function includeUsage(wire: MockWire, body: Record<string, unknown>): boolean {
  if (wire !== "chat") return true;
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  return options?.include_usage === true;
}

function thirds(text: string): string[] {
  const size = Math.ceil(text.length / 3);
  return [text.slice(0, size), text.slice(size, 2 * size), text.slice(2 * size)];
}

const named = (payload: Record<string, unknown> & { type: string }): string =>
  `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
const bare = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

const responsesUsage = () => ({
  input_tokens: MOCK_USAGE.input,
  input_tokens_details: { cached_tokens: MOCK_USAGE.cached },
  output_tokens: MOCK_USAGE.output,
  output_tokens_details: { reasoning_tokens: MOCK_USAGE.reasoning },
  total_tokens: MOCK_USAGE.input + MOCK_USAGE.output,
});
const chatUsage = () => ({
  prompt_tokens: MOCK_USAGE.input,
  completion_tokens: MOCK_USAGE.output,
  total_tokens: MOCK_USAGE.input + MOCK_USAGE.output,
  prompt_tokens_details: { cached_tokens: MOCK_USAGE.cached, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: MOCK_USAGE.reasoning, audio_tokens: 0 },
});
const messagesUsage = (output: number) => ({
  input_tokens: MOCK_USAGE.input - MOCK_USAGE.cached,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: MOCK_USAGE.cached,
  output_tokens: output,
});

function responsesShell(model: string, status: string, output: unknown[], usage: unknown) {
  return {
    id: "resp_mock0001",
    object: "response",
    created_at: 1_760_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage,
  };
}

function oneShot(wire: MockWire, model: string, text: string, tool: string | undefined): object {
  const args = JSON.stringify(TOOL_ARGUMENTS);
  switch (wire) {
    case "responses":
      return responsesShell(
        model,
        "completed",
        [
          tool
            ? {
                type: "function_call",
                id: "fc_mock1",
                call_id: "call_mock1",
                name: tool,
                arguments: args,
                status: "completed",
              }
            : {
                type: "message",
                id: "msg_mock1",
                status: "completed",
                role: "assistant",
                content: [{ type: "output_text", text, annotations: [] }],
              },
        ],
        responsesUsage(),
      );
    case "chat":
      return {
        id: "chatcmpl-mock1",
        object: "chat.completion",
        created: 1_760_000_000,
        model,
        choices: [
          {
            index: 0,
            message: tool
              ? {
                  role: "assistant",
                  content: null,
                  refusal: null,
                  tool_calls: [{ id: "call_mock1", type: "function", function: { name: tool, arguments: args } }],
                }
              : { role: "assistant", content: text, refusal: null },
            logprobs: null,
            finish_reason: tool ? "tool_calls" : "stop",
          },
        ],
        usage: chatUsage(),
      };
    case "messages":
      return {
        id: "msg_mock1",
        type: "message",
        role: "assistant",
        model,
        content: tool
          ? [{ type: "tool_use", id: "toolu_mock1", name: tool, input: TOOL_ARGUMENTS }]
          : [{ type: "text", text }],
        stop_reason: tool ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: messagesUsage(MOCK_USAGE.output),
      };
  }
}

function streamEvents(
  wire: MockWire,
  model: string,
  text: string,
  tool: string | undefined,
  withUsage: boolean,
): string[] {
  switch (wire) {
    case "responses":
      return responsesStream(model, text, tool);
    case "chat":
      return chatStream(model, text, tool, withUsage);
    case "messages":
      return messagesStream(model, text, tool);
  }
}

function responsesStream(model: string, text: string, tool: string | undefined): string[] {
  let sequence = 0;
  const event = (payload: Record<string, unknown> & { type: string }) =>
    named({ ...payload, sequence_number: sequence++ });
  const events = [
    event({ type: "response.created", response: responsesShell(model, "in_progress", [], null) }),
    event({ type: "response.in_progress", response: responsesShell(model, "in_progress", [], null) }),
  ];
  let item: object;
  if (tool) {
    const args = JSON.stringify(TOOL_ARGUMENTS);
    const base = { type: "function_call", id: "fc_mock1", call_id: "call_mock1", name: tool };
    events.push(
      event({
        type: "response.output_item.added",
        output_index: 0,
        item: { ...base, arguments: "", status: "in_progress" },
      }),
    );
    for (const delta of TOOL_ARGUMENT_CHUNKS) {
      events.push(
        event({ type: "response.function_call_arguments.delta", item_id: "fc_mock1", output_index: 0, delta }),
      );
    }
    events.push(
      event({ type: "response.function_call_arguments.done", item_id: "fc_mock1", output_index: 0, arguments: args }),
    );
    item = { ...base, arguments: args, status: "completed" };
  } else {
    const location = { item_id: "msg_mock1", output_index: 0, content_index: 0 };
    const empty = { type: "output_text", text: "", annotations: [] };
    events.push(
      event({
        type: "response.output_item.added",
        output_index: 0,
        item: { type: "message", id: "msg_mock1", status: "in_progress", role: "assistant", content: [] },
      }),
      event({ type: "response.content_part.added", ...location, part: empty }),
    );
    for (const delta of thirds(text)) {
      events.push(event({ type: "response.output_text.delta", ...location, delta, logprobs: [] }));
    }
    const part = { type: "output_text", text, annotations: [] };
    events.push(
      event({ type: "response.output_text.done", ...location, text, logprobs: [] }),
      event({ type: "response.content_part.done", ...location, part }),
    );
    item = { type: "message", id: "msg_mock1", status: "completed", role: "assistant", content: [part] };
  }
  events.push(
    event({ type: "response.output_item.done", output_index: 0, item }),
    event({ type: "response.completed", response: responsesShell(model, "completed", [item], responsesUsage()) }),
  );
  return events;
}

function chatStream(model: string, text: string, tool: string | undefined, withUsage: boolean): string[] {
  const chunk = (choices: unknown[], usage: unknown = null) =>
    bare({
      id: "chatcmpl-mock1",
      object: "chat.completion.chunk",
      created: 1_760_000_000,
      model,
      system_fingerprint: null,
      choices,
      ...(withUsage ? { usage } : {}),
    });
  const delta = (value: object, finish: string | null = null) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finish }]);
  const events = [delta({ role: "assistant", content: "", refusal: null })];
  if (tool) {
    events.push(
      delta({
        tool_calls: [{ index: 0, id: "call_mock1", type: "function", function: { name: tool, arguments: "" } }],
      }),
    );
    for (const part of TOOL_ARGUMENT_CHUNKS)
      events.push(delta({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
    events.push(delta({}, "tool_calls"));
  } else {
    for (const part of thirds(text)) events.push(delta({ content: part }));
    events.push(delta({}, "stop"));
  }
  if (withUsage) events.push(chunk([], chatUsage()));
  events.push("data: [DONE]\n\n");
  return events;
}

function messagesStream(model: string, text: string, tool: string | undefined): string[] {
  const events = [
    named({
      type: "message_start",
      message: {
        id: "msg_mock1",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: messagesUsage(1),
      },
    }),
  ];
  if (tool) {
    events.push(
      named({
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_mock1", name: tool, input: {} },
      }),
    );
    for (const partial_json of TOOL_ARGUMENT_CHUNKS) {
      events.push(named({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } }));
    }
  } else {
    events.push(named({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    events.push(named({ type: "ping" }));
    for (const part of thirds(text)) {
      events.push(named({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: part } }));
    }
  }
  events.push(
    named({ type: "content_block_stop", index: 0 }),
    named({
      type: "message_delta",
      delta: { stop_reason: tool ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: MOCK_USAGE.output },
    }),
    named({ type: "message_stop" }),
  );
  return events;
}
