import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/**
 * A model provider on loopback that always wants one shell command run, speaking the two wire formats the agents
 * use: Anthropic Messages streaming (Claude Code, `POST /v1/messages`, https://docs.anthropic.com/en/api/messages-streaming)
 * and OpenAI Responses streaming (Codex CLI, `POST /v1/responses`,
 * https://platform.openai.com/docs/api-reference/responses-streaming). The first turn asks for `command` through
 * the agent's shell tool; once the conversation holds the tool's result (run or refused) it answers with text
 * and ends the turn.
 */
export interface ModelMock {
  url: string;
  /** Every request's method and path, in order (to show the agents only reached this server). */
  requests: string[];
  close(): Promise<void>;
}

const FINAL_TEXT = "Done: the command ran or was refused.";

type Json = Record<string, unknown>;
type Event = [name: string, data: Json];

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

function anthropic(request: Json, path: string, response: ServerResponse, command: string): undefined {
  if (path.includes("count_tokens")) return json(response, 200, { input_tokens: 10 });
  const messages = (request.messages as Json[] | undefined) ?? [];
  const last = messages[messages.length - 1];
  const content = Array.isArray(last?.content) ? (last.content as Json[]) : [];
  const answered = content.some((block) => block.type === "tool_result");
  const tools = ((request.tools as Json[] | undefined) ?? []).map((tool) => tool.name);
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
  if (!answered && tools.includes("Bash") && request.stream === true) {
    const input = JSON.stringify({ command, description: "Create the marker file" });
    return sse(response, [
      start,
      [
        "content_block_start",
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: `toolu_mock_${Date.now()}`, name: "Bash", input: {} },
        },
      ],
      [
        "content_block_delta",
        { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: input } },
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
  sse(response, [
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

function openai(request: Json, response: ServerResponse, command: string): undefined {
  const input = (request.input as Json[] | undefined) ?? [];
  const answered = input.some((item) => item.type === "function_call_output");
  sequence += 1;
  const id = `resp_mock_${sequence}`;
  let item: Json;
  if (!answered) {
    // Codex 0.169 offers `exec_command` (unified exec); an older tool set has `shell`.
    const tools = ((request.tools as Json[] | undefined) ?? []).map((tool) => tool.name);
    // Asking to leave the sandbox is what makes Codex ask for approval (approval_policy on-request).
    const [name, args] = tools.includes("exec_command")
      ? [
          "exec_command",
          { cmd: command, sandbox_permissions: "require_escalated", justification: "Create the marker file" },
        ]
      : [
          "shell",
          {
            command: ["bash", "-lc", command],
            with_escalated_permissions: true,
            justification: "Create the marker file",
          },
        ];
    item = {
      type: "function_call",
      id: `fc_mock_${sequence}`,
      call_id: `call_mock_${sequence}`,
      name,
      arguments: JSON.stringify(args),
      status: "completed",
    };
  } else {
    item = {
      type: "message",
      id: `msg_mock_${sequence}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: FINAL_TEXT, annotations: [] }],
    };
  }
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
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

export async function startModelMock(command: string): Promise<ModelMock> {
  const requests: string[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const path = request.url ?? "/";
      requests.push(`${request.method} ${path}`);
      let parsed: Json = {};
      try {
        parsed = JSON.parse(body) as Json;
      } catch {
        parsed = {};
      }
      if (path.startsWith("/v1/messages")) return anthropic(parsed, path, response, command);
      if (path.startsWith("/v1/responses")) return openai(parsed, response, command);
      if (path.startsWith("/v1/models")) return json(response, 200, { object: "list", data: [] });
      json(response, 404, { error: { message: "not mocked" } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
