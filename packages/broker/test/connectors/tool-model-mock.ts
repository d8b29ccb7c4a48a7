import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * A loopback model that asks once for a shell command and then answers with what the command printed, on the
 * responses wire (`POST /v1/responses`, https://platform.openai.com/docs/api-reference/responses-streaming) and the
 * messages wire (`POST /v1/messages`, https://docs.anthropic.com/en/api/messages-streaming). It speaks to the
 * router, which sits between it and the agents; `toolOutputs` keeps every tool result the agents sent back.
 */
export interface ToolModelMock {
  url: string;
  requests: string[];
  /** The text of every tool result seen (function_call_output / tool_result). */
  toolOutputs: string[];
  /** The tool names offered on the first turn of each request. */
  toolNames: string[][];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

export const FINAL_PREFIX = "The command printed:";

function sse(response: ServerResponse, events: [string, Json][]): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [name, data] of events) response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  response.end();
}

const text = (value: unknown): string =>
  typeof value === "string"
    ? value
    : Array.isArray(value)
      ? value.map((part) => (typeof part === "string" ? part : String((part as Json).text ?? ""))).join("")
      : JSON.stringify(value);

let sequence = 0;

function responses(request: Json, response: ServerResponse, mock: ToolModelMock, command: string): void {
  const input = (request.input as Json[] | undefined) ?? [];
  const outputs = input.filter((item) => item.type === "function_call_output").map((item) => text(item.output));
  mock.toolOutputs.push(...outputs);
  const tools = ((request.tools as Json[] | undefined) ?? []).map((tool) => String(tool.name ?? tool.type));
  mock.toolNames.push(tools);
  sequence += 1;
  // The catalogue's `shell_command` takes `{command}`; Codex 0.169.0's unified exec `exec_command` takes `{cmd}`.
  const shell = tools.includes("shell_command")
    ? "shell_command"
    : tools.includes("exec_command")
      ? "exec_command"
      : undefined;
  const item: Json =
    outputs.length === 0 && shell !== undefined
      ? {
          type: "function_call",
          id: `fc_mock_${sequence}`,
          call_id: `call_mock_${sequence}`,
          name: shell,
          arguments: JSON.stringify(shell === "shell_command" ? { command } : { cmd: command }),
          status: "completed",
        }
      : {
          type: "message",
          id: `msg_mock_${sequence}`,
          role: "assistant",
          status: "completed",
          content: [
            { type: "output_text", text: `${FINAL_PREFIX} ${outputs.join(" ").trim() || "nothing"}`, annotations: [] },
          ],
        };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const id = `resp_mock_${sequence}`;
  sse(response, [
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

function messages(request: Json, response: ServerResponse, mock: ToolModelMock, command: string): void {
  const all = (request.messages as Json[] | undefined) ?? [];
  const results: string[] = [];
  for (const message of all) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Json[]) if (block.type === "tool_result") results.push(text(block.content));
  }
  mock.toolOutputs.push(...results);
  const tools = ((request.tools as Json[] | undefined) ?? []).map((tool) => String(tool.name));
  mock.toolNames.push(tools);
  const id = `msg_mock_${++sequence}`;
  const start: [string, Json] = [
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
  const wantsTool = results.length === 0 && tools.includes("Bash");
  const reply = `${FINAL_PREFIX} ${results.join(" ").trim() || "nothing"}`;
  if (request.stream !== true) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model: request.model,
        content: [{ type: "text", text: wantsTool ? "OK" : reply }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      }),
    );
    return;
  }
  const block: [string, Json][] = wantsTool
    ? [
        [
          "content_block_start",
          {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: `toolu_mock_${sequence}`, name: "Bash", input: {} },
          },
        ],
        [
          "content_block_delta",
          {
            type: "content_block_delta",
            index: 0,
            delta: {
              type: "input_json_delta",
              partial_json: JSON.stringify({ command, description: "Print the marker" }),
            },
          },
        ],
      ]
    : [
        ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
        ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply } }],
      ];
  sse(response, [
    start,
    ...block,
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: wantsTool ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

export async function startToolModelMock(command: string): Promise<ToolModelMock> {
  const mock: ToolModelMock = { url: "", requests: [], toolOutputs: [], toolNames: [], close: async () => {} };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const path = request.url ?? "/";
      mock.requests.push(`${request.method} ${path}`);
      let parsed: Json = {};
      try {
        parsed = JSON.parse(body) as Json;
      } catch {
        parsed = {};
      }
      if (path.startsWith("/v1/responses")) return responses(parsed, response, mock, command);
      if (path.startsWith("/v1/messages/count_tokens")) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      if (path.startsWith("/v1/messages")) return messages(parsed, response, mock, command);
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "not mocked" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  mock.url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  mock.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return mock;
}
