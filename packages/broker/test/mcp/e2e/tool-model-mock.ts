import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/**
 * A model provider on loopback whose first turn calls one named tool with the given input, in the two wire formats
 * the agents speak: Anthropic Messages streaming (Claude Code) and OpenAI Responses streaming (Codex CLI), as
 * test/hooks/e2e/model-mock.ts does for a shell command. Once a request carries the tool's result, it ends the turn
 * with text. Every request body is kept, so a test can read the tool result the agent sent back.
 */
export interface ToolModelMock {
  url: string;
  /** Every request body, in order. */
  bodies: Json[];
  /** The tool names each request offered. */
  offered: string[][];
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: the wire formats are read loosely.
type Json = any;
type Event = [name: string, data: Json];

export const FINAL_TEXT = "Thanks, noted.";

function sse(response: ServerResponse, events: Event[]): undefined {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [name, data] of events) response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  response.end();
  return undefined;
}

function json(response: ServerResponse, status: number, body: unknown): undefined {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
  return undefined;
}

/**
 * The tool the agent offers under `name` (Claude Code: `mcp__notify__ask_person`), else `name` itself: a tool the
 * agent defers or keeps out of the list (AskUserQuestion in `-p`) is called by name all the same.
 */
const pick = (offered: string[], name: string): string =>
  offered.find((tool) => tool === name) ??
  offered.find((tool) => tool.endsWith(name.split("__").pop() ?? name)) ??
  name;

function anthropic(request: Json, path: string, response: ServerResponse, tool: string, input: Json): undefined {
  if (path.includes("count_tokens")) return json(response, 200, { input_tokens: 10 });
  const messages: Json[] = request.messages ?? [];
  const answered = messages.some(
    (message) => Array.isArray(message.content) && message.content.some((block: Json) => block.type === "tool_result"),
  );
  const offered: string[] = (request.tools ?? []).map((entry: Json) => entry.name);
  const name = pick(offered, tool);
  const id = `msg_mock_${Date.now()}`;
  const start: Event = [
    "message_start",
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
  ];
  if (!answered && request.stream === true) {
    return sse(response, [
      start,
      [
        "content_block_start",
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: `toolu_mock_${Date.now()}`, name, input: {} },
        },
      ],
      [
        "content_block_delta",
        {
          type: "content_block_delta",
          index: 0,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(input) },
        },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      [
        "message_delta",
        {
          type: "message_delta",
          delta: { stop_reason: "tool_use", stop_sequence: null },
          usage: { output_tokens: 20 },
        },
      ],
      ["message_stop", { type: "message_stop" }],
    ]);
  }
  const text = answered ? FINAL_TEXT : "OK";
  if (request.stream !== true) {
    return json(response, 200, {
      id,
      type: "message",
      role: "assistant",
      model: request.model,
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    });
  }
  return sse(response, [
    start,
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

let sequence = 0;

/** Codex's tool list: plain functions, and MCP tools (flat, or inside a namespace entry). */
function codexTools(request: Json): { name: string; namespace?: string }[] {
  const tools: { name: string; namespace?: string }[] = [];
  for (const entry of request.tools ?? []) {
    if (typeof entry.name === "string") tools.push({ name: entry.name });
    for (const inner of entry.tools ?? []) {
      if (typeof inner.name === "string") tools.push({ name: inner.name, namespace: entry.name });
    }
  }
  return tools;
}

function openai(request: Json, response: ServerResponse, tool: string, input: Json): undefined {
  const items: Json[] = request.input ?? [];
  const answered = items.some((item) => item.type === "function_call_output");
  sequence += 1;
  const id = `resp_mock_${sequence}`;
  const offered = codexTools(request);
  const short = tool.split("__").pop() ?? tool;
  const found =
    offered.find((entry) => entry.name === tool) ??
    offered.find((entry) => entry.name.endsWith(short) && entry.name !== short) ??
    offered.find((entry) => entry.name === short);
  let item: Json;
  if (!answered && found !== undefined) {
    item = {
      type: "function_call",
      id: `fc_mock_${sequence}`,
      call_id: `call_mock_${sequence}`,
      name: found.name,
      ...(found.namespace !== undefined ? { namespace: found.namespace } : {}),
      arguments: JSON.stringify(input),
      status: "completed",
    };
  } else {
    item = {
      type: "message",
      id: `msg_mock_${sequence}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: answered ? FINAL_TEXT : "OK", annotations: [] }],
    };
  }
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  return sse(response, [
    [
      "response.created",
      { type: "response.created", response: { id, object: "response", status: "in_progress", output: [] } },
    ],
    ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    [
      "response.completed",
      { type: "response.completed", response: { id, object: "response", status: "completed", output: [item], usage } },
    ],
  ]);
}

/** Starts the mock: its first turn calls `tool` (e.g. `mcp__notify__ask_person`, `AskUserQuestion`) with `input`. */
export async function startToolModelMock(tool: string, input: Json): Promise<ToolModelMock> {
  const bodies: Json[] = [];
  const offered: string[][] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const path = request.url ?? "/";
      let parsed: Json = {};
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = {};
      }
      if (path.startsWith("/v1/messages") && !path.includes("count_tokens")) {
        bodies.push(parsed);
        offered.push((parsed.tools ?? []).map((entry: Json) => entry.name));
        return anthropic(parsed, path, response, tool, input);
      }
      if (path.startsWith("/v1/messages")) return anthropic(parsed, path, response, tool, input);
      if (path.startsWith("/v1/responses")) {
        bodies.push(parsed);
        offered.push(
          codexTools(parsed).map((entry) => (entry.namespace ? `${entry.namespace}/${entry.name}` : entry.name)),
        );
        return openai(parsed, response, tool, input);
      }
      if (path.startsWith("/v1/models")) return json(response, 200, { object: "list", data: [] });
      return json(response, 404, { error: { message: "not mocked" } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    offered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
