import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Wire } from "@notify/router";

/**
 * The one mock model provider of the test suites: a real node:http server on 127.0.0.1 (ephemeral port) speaking the
 * vendors' own wires, one-shot JSON and SSE framed as their servers frame it:
 * - OpenAI Responses (`POST /v1/responses`, https://platform.openai.com/docs/api-reference/responses-streaming),
 * - OpenAI Chat Completions (`POST /v1/chat/completions`),
 * - Anthropic Messages (`POST /v1/messages`, https://docs.anthropic.com/en/api/messages-streaming), with
 *   `/v1/messages/count_tokens`, and the model list (`GET /v1/models`).
 *
 * A mock made for one wire (the router's upstreams) answers every other path in that wire; a mock made without one
 * (the agents' provider) picks the wire from the path and answers an unknown path 404. What each turn answers comes
 * from `reply` (default: a call of the first offered tool with TOOL_ARGUMENTS, else `text`); `script` makes the
 * next requests fail in chosen ways. Every request is recorded in `hits`.
 */
/** The wires the router speaks (issue 34: each enum once). */
export type MockWire = Wire;

// biome-ignore lint/suspicious/noExplicitAny: the wire formats are read loosely by tests.
type Loose = any;

/** A tool result the client sent back to the model (function_call_output, tool message or tool_result block). */
export interface ToolResult {
  text: string;
  isError: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: the block as the client sent it.
  block: any;
}

/** One model request, as the reply policy sees it. */
export interface Turn {
  wire: MockWire;
  model: string;
  stream: boolean;
  /** The tools the request offers (a Responses namespace entry's tools carry its name as `namespace`). */
  tools: { name: string; namespace?: string }[];
  /** Every tool result anywhere in the conversation, in order. */
  toolResults: ToolResult[];
  body: Loose;
}

/** What a turn answers: text, or one call of a tool (`input` is sent as its JSON arguments). */
export type Reply = { text: string } | { tool: string; namespace?: string; input: unknown };

export interface Hit {
  method: string;
  /** The request target as received (`/v1/messages?beta=true`). */
  url: string;
  /** The target below the mock's `url` (`/messages?beta=true`). */
  path: string;
  headers: IncomingHttpHeaders;
  body: Loose;
  bytes: number;
  /** The body exactly as received. */
  raw: Buffer;
  /** Set on model turns (not on the model list or count_tokens). */
  turn?: Turn;
}

export type Action =
  /** The wire's ordinary answer. */
  | { kind: "reply" }
  /** An error status with a provider-style body (and optional headers such as retry-after). */
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  /** Streams the opening events and the first text delta, then destroys the socket. */
  | { kind: "die-mid-stream" }
  /** Streams the opening events and the first text delta, then goes silent until the client hangs up. */
  | { kind: "stall-mid-stream" }
  /** Accepts the request and never answers (no headers). */
  | { kind: "hang" }
  /** Sends 200 and stream headers, then not a single byte. */
  | { kind: "silent-stream" };

export interface Usage {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

/** The tokens the mock reports by default: 120 input of which 20 cached, 45 output of which 5 reasoning. */
export const MOCK_USAGE: Usage = { input: 120, cached: 20, output: 45, reasoning: 5 } as const;

export const TOOL_ARGUMENTS = { city: "Paris", days: 3, units: "metric" } as const;

export interface ModelMockOptions {
  /** Answer every path in this wire; without it the wire comes from the path. */
  wire?: MockWire;
  /** What each model turn answers (default: call the first offered tool with TOOL_ARGUMENTS, else `text`). */
  reply?: (turn: Turn) => Reply;
  /** The text of the default reply. */
  text?: string;
  /** The tokens every answer reports. */
  usage?: Usage;
  /** The ids GET /models lists. */
  models?: string[];
}

const DEFAULT_TEXT = "Hello from the mock upstream, in three parts.";

export class ModelMock {
  readonly hits: Hit[] = [];
  /** Actions for the next requests, in order; when empty every request gets `reply`. */
  readonly script: Action[] = [];
  /** How many requests were closed by the client before their answer was complete. */
  aborted = 0;
  text: string;
  readonly wire: MockWire | undefined;
  /** The base URL with `/v1` (what an OpenAI-style base_url names). */
  url = "";
  /** The base URL without a path (what ANTHROPIC_BASE_URL names). */
  origin = "";
  port = 0;
  private readonly options: ModelMockOptions;
  private readonly abortWaiters: (() => void)[] = [];
  private readonly server = createServer((request, response) => {
    // A body the mock cannot read is refused the way a real provider refuses it: 400, invalid_request_error.
    this.handle(request, response).catch(() => {
      if (response.headersSent) return void response.destroy();
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { type: "invalid_request_error", message: "malformed request" } }));
    });
  });

  constructor(options: MockWire | ModelMockOptions = {}) {
    this.options = typeof options === "string" ? { wire: options } : options;
    this.wire = this.options.wire;
    this.text = this.options.text ?? DEFAULT_TEXT;
  }

  async start(): Promise<this> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.port = (this.server.address() as AddressInfo).port;
    this.origin = `http://127.0.0.1:${this.port}`;
    this.url = `${this.origin}/v1`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves once a request has been closed by the client before its answer was complete. */
  nextAbort(): Promise<void> {
    return new Promise((resolve) => this.abortWaiters.push(resolve));
  }

  /** The model turns so far (requests that got, or were to get, a model answer). */
  turns(): Turn[] {
    return this.hits.flatMap((hit) => (hit.turn === undefined ? [] : [hit.turn]));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = raw.toString("utf8");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const url = request.url ?? "/";
    const path = url.replace(/^\/v1/, "");
    const hit: Hit = {
      method: request.method ?? "GET",
      url,
      path,
      headers: request.headers,
      body,
      bytes: text.length,
      raw,
    };
    this.hits.push(hit);
    const n = this.hits.length;
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
    const route = path.split("?")[0] ?? "";
    // The provider's model list (POST /ui/api/router/models/fetch asks for it).
    if (request.method === "GET" && route === "/models") {
      const data = (this.options.models ?? ["m", "other"]).map((id) => ({ id }));
      return sendJson(response, 200, { object: "list", data });
    }
    if (route === "/messages/count_tokens") return sendJson(response, 200, { input_tokens: 42 });
    const wire = this.wire ?? wireOf(route);
    if (wire === undefined) return sendJson(response, 404, { error: { message: "not mocked" } });
    const requestBody = (body ?? {}) as Loose;
    const turn: Turn = {
      wire,
      model: typeof requestBody.model === "string" ? requestBody.model : "unknown",
      stream: requestBody.stream === true,
      tools: offeredTools(wire, requestBody),
      toolResults: toolResults(wire, requestBody),
      body,
    };
    hit.turn = turn;
    const reply = (this.options.reply ?? defaultReply(this.text))(turn);
    const answer: Answer = { n, model: turn.model, reply, usage: this.options.usage ?? MOCK_USAGE };
    if (!turn.stream) return sendJson(response, 200, oneShot(wire, answer));
    const events = streamEvents(wire, answer, includeUsage(wire, requestBody));
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (action.kind === "silent-stream") {
      response.flushHeaders();
      return;
    }
    if (action.kind === "die-mid-stream" || action.kind === "stall-mid-stream") {
      const opening = "text" in reply ? JSON.stringify(thirds(reply.text)[0]).slice(1, -1) : "";
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

/** Starts a mock on 127.0.0.1 (a wire name is short for `{ wire }`). */
export async function startModelMock(options: MockWire | ModelMockOptions = {}): Promise<ModelMock> {
  return new ModelMock(options).start();
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function wireOf(route: string): MockWire | undefined {
  if (route === "/responses") return "responses";
  if (route === "/chat/completions") return "chat";
  if (route === "/messages") return "messages";
  return undefined;
}

/** A call of the first tool the request offers (a named one: a built-in tool has only a type), else `text`. */
const defaultReply =
  (text: string) =>
  (turn: Turn): Reply => {
    const first = Array.isArray(turn.body?.tools) ? turn.body.tools[0] : undefined;
    const name = turn.wire === "chat" ? first?.function?.name : first?.name;
    return typeof name === "string" ? { tool: name, input: TOOL_ARGUMENTS } : { text };
  };

function offeredTools(wire: MockWire, body: Loose): { name: string; namespace?: string }[] {
  const tools: { name: string; namespace?: string }[] = [];
  for (const entry of Array.isArray(body.tools) ? body.tools : []) {
    const name = wire === "chat" ? entry.function?.name : (entry.name ?? entry.type);
    if (typeof name === "string") tools.push({ name });
    // Codex lists an MCP server's tools inside a namespace entry.
    for (const inner of Array.isArray(entry.tools) ? entry.tools : []) {
      if (typeof inner.name === "string") tools.push({ name: inner.name, namespace: entry.name });
    }
  }
  return tools;
}

/** A tool result's content as text: a string as is, content parts joined, anything else as JSON. */
export const resultText = (value: unknown): string =>
  typeof value === "string"
    ? value
    : Array.isArray(value)
      ? value.map((part) => (typeof part === "string" ? part : String((part as Loose).text ?? ""))).join("")
      : JSON.stringify(value);

function toolResults(wire: MockWire, body: Loose): ToolResult[] {
  const results: ToolResult[] = [];
  if (wire === "responses") {
    for (const item of Array.isArray(body.input) ? body.input : []) {
      if (item?.type === "function_call_output")
        results.push({ text: resultText(item.output), isError: false, block: item });
    }
    return results;
  }
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (wire === "chat" && message?.role === "tool") {
      results.push({ text: resultText(message.content), isError: false, block: message });
    }
    for (const block of Array.isArray(message?.content) ? message.content : []) {
      if (block?.type === "tool_result") {
        results.push({ text: resultText(block.content ?? ""), isError: block.is_error === true, block });
      }
    }
  }
  return results;
}

function includeUsage(wire: MockWire, body: Loose): boolean {
  if (wire !== "chat") return true;
  return body.stream_options?.include_usage === true;
}

function thirds(text: string): string[] {
  const size = Math.ceil(text.length / 3);
  return [text.slice(0, size), text.slice(size, 2 * size), text.slice(2 * size)];
}

/** One answer: the request's sequence number (in the ids), the model it named, what to say, the usage. */
interface Answer {
  n: number;
  model: string;
  reply: Reply;
  usage: Usage;
}

const named = (payload: Record<string, unknown> & { type: string }): string =>
  `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
const bare = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

const responsesUsage = (usage: Usage) => ({
  input_tokens: usage.input,
  input_tokens_details: { cached_tokens: usage.cached },
  output_tokens: usage.output,
  output_tokens_details: { reasoning_tokens: usage.reasoning },
  total_tokens: usage.input + usage.output,
});
const chatUsage = (usage: Usage) => ({
  prompt_tokens: usage.input,
  completion_tokens: usage.output,
  total_tokens: usage.input + usage.output,
  prompt_tokens_details: { cached_tokens: usage.cached, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: usage.reasoning, audio_tokens: 0 },
});
const messagesUsage = (usage: Usage, output: number) => ({
  input_tokens: usage.input - usage.cached,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: usage.cached,
  output_tokens: output,
});

function responsesShell(answer: Answer, status: string, output: unknown[], usage: unknown) {
  return {
    id: `resp_mock${answer.n}`,
    object: "response",
    created_at: 1_760_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model: answer.model,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage,
  };
}

/** The Responses output item of a tool call (`status` completed, or in progress with no arguments yet). */
function functionCall(answer: Answer, reply: Extract<Reply, { tool: string }>, done: boolean) {
  return {
    type: "function_call",
    id: `fc_mock${answer.n}`,
    call_id: `call_mock${answer.n}`,
    name: reply.tool,
    ...(reply.namespace === undefined ? {} : { namespace: reply.namespace }),
    arguments: done ? JSON.stringify(reply.input) : "",
    status: done ? "completed" : "in_progress",
  };
}

function oneShot(wire: MockWire, answer: Answer): object {
  const { n, model, reply, usage } = answer;
  const args = "tool" in reply ? JSON.stringify(reply.input) : "";
  switch (wire) {
    case "responses":
      return responsesShell(
        answer,
        "completed",
        [
          "tool" in reply
            ? functionCall(answer, reply, true)
            : {
                type: "message",
                id: `msg_mock${n}`,
                status: "completed",
                role: "assistant",
                content: [{ type: "output_text", text: reply.text, annotations: [] }],
              },
        ],
        responsesUsage(usage),
      );
    case "chat":
      return {
        id: `chatcmpl-mock${n}`,
        object: "chat.completion",
        created: 1_760_000_000,
        model,
        choices: [
          {
            index: 0,
            message:
              "tool" in reply
                ? {
                    role: "assistant",
                    content: null,
                    refusal: null,
                    tool_calls: [
                      { id: `call_mock${n}`, type: "function", function: { name: reply.tool, arguments: args } },
                    ],
                  }
                : { role: "assistant", content: reply.text, refusal: null },
            logprobs: null,
            finish_reason: "tool" in reply ? "tool_calls" : "stop",
          },
        ],
        usage: chatUsage(usage),
      };
    case "messages":
      return {
        id: `msg_mock${n}`,
        type: "message",
        role: "assistant",
        model,
        content:
          "tool" in reply
            ? [{ type: "tool_use", id: `toolu_mock${n}`, name: reply.tool, input: reply.input }]
            : [{ type: "text", text: reply.text }],
        stop_reason: "tool" in reply ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: messagesUsage(usage, usage.output),
      };
  }
}

function streamEvents(wire: MockWire, answer: Answer, withUsage: boolean): string[] {
  switch (wire) {
    case "responses":
      return responsesStream(answer);
    case "chat":
      return chatStream(answer, withUsage);
    case "messages":
      return messagesStream(answer);
  }
}

function responsesStream(answer: Answer): string[] {
  const { n, reply } = answer;
  let sequence = 0;
  const event = (payload: Record<string, unknown> & { type: string }) =>
    named({ ...payload, sequence_number: sequence++ });
  const events = [
    event({ type: "response.created", response: responsesShell(answer, "in_progress", [], null) }),
    event({ type: "response.in_progress", response: responsesShell(answer, "in_progress", [], null) }),
  ];
  let item: object;
  if ("tool" in reply) {
    const args = JSON.stringify(reply.input);
    const id = `fc_mock${n}`;
    events.push(
      event({ type: "response.output_item.added", output_index: 0, item: functionCall(answer, reply, false) }),
    );
    for (const delta of thirds(args)) {
      events.push(event({ type: "response.function_call_arguments.delta", item_id: id, output_index: 0, delta }));
    }
    events.push(
      event({ type: "response.function_call_arguments.done", item_id: id, output_index: 0, arguments: args }),
    );
    item = functionCall(answer, reply, true);
  } else {
    const location = { item_id: `msg_mock${n}`, output_index: 0, content_index: 0 };
    const empty = { type: "output_text", text: "", annotations: [] };
    events.push(
      event({
        type: "response.output_item.added",
        output_index: 0,
        item: { type: "message", id: `msg_mock${n}`, status: "in_progress", role: "assistant", content: [] },
      }),
      event({ type: "response.content_part.added", ...location, part: empty }),
    );
    for (const delta of thirds(reply.text)) {
      events.push(event({ type: "response.output_text.delta", ...location, delta, logprobs: [] }));
    }
    const part = { type: "output_text", text: reply.text, annotations: [] };
    events.push(
      event({ type: "response.output_text.done", ...location, text: reply.text, logprobs: [] }),
      event({ type: "response.content_part.done", ...location, part }),
    );
    item = { type: "message", id: `msg_mock${n}`, status: "completed", role: "assistant", content: [part] };
  }
  events.push(
    event({ type: "response.output_item.done", output_index: 0, item }),
    event({
      type: "response.completed",
      response: responsesShell(answer, "completed", [item], responsesUsage(answer.usage)),
    }),
  );
  return events;
}

function chatStream(answer: Answer, withUsage: boolean): string[] {
  const { n, model, reply } = answer;
  const chunk = (choices: unknown[], usage: unknown = null) =>
    bare({
      id: `chatcmpl-mock${n}`,
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
  if ("tool" in reply) {
    events.push(
      delta({
        tool_calls: [
          { index: 0, id: `call_mock${n}`, type: "function", function: { name: reply.tool, arguments: "" } },
        ],
      }),
    );
    for (const part of thirds(JSON.stringify(reply.input)))
      events.push(delta({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
    events.push(delta({}, "tool_calls"));
  } else {
    for (const part of thirds(reply.text)) events.push(delta({ content: part }));
    events.push(delta({}, "stop"));
  }
  if (withUsage) events.push(chunk([], chatUsage(answer.usage)));
  events.push("data: [DONE]\n\n");
  return events;
}

function messagesStream(answer: Answer): string[] {
  const { n, model, reply, usage } = answer;
  const events = [
    named({
      type: "message_start",
      message: {
        id: `msg_mock${n}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: messagesUsage(usage, 1),
      },
    }),
  ];
  if ("tool" in reply) {
    events.push(
      named({
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: `toolu_mock${n}`, name: reply.tool, input: {} },
      }),
    );
    for (const partial_json of thirds(JSON.stringify(reply.input))) {
      events.push(named({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } }));
    }
  } else {
    events.push(named({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    events.push(named({ type: "ping" }));
    for (const part of thirds(reply.text)) {
      events.push(named({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: part } }));
    }
  }
  events.push(
    named({ type: "content_block_stop", index: 0 }),
    named({
      type: "message_delta",
      delta: { stop_reason: "tool" in reply ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
    named({ type: "message_stop" }),
  );
  return events;
}
