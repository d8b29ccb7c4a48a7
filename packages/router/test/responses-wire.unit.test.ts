import { describe, expect, it } from "vitest";
import {
  decodeResponsesRequest,
  decodeResponsesResponse,
  encodeResponsesRequest,
  encodeResponsesResponse,
  type Request,
  TranslationError,
} from "../src/index.js";
import { decodeSse, deterministic, encodeParts, summarize } from "./helpers.js";

describe("responses wire: decode request (docs/router.md, 'Request mappings', responses row)", () => {
  it("joins instructions, system and developer messages into the system text", () => {
    const { request } = decodeResponsesRequest({
      model: "gpt-5",
      instructions: "Be brief.",
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "Use tools." }] },
        { role: "system", content: "No markdown." },
        { role: "user", content: "hi" },
      ],
    });
    expect(request.system).toBe("Be brief.\n\nUse tools.\n\nNo markdown.");
    expect(request.messages).toEqual([{ role: "user", parts: [{ type: "text", text: "hi" }] }]);
  });

  it("reads a string input as one user message", () => {
    expect(decodeResponsesRequest({ model: "m", input: "hello" }).request.messages).toEqual([
      { role: "user", parts: [{ type: "text", text: "hello" }] },
    ]);
  });

  it("reads input_text, output_text and input_image (URL and data URL)", () => {
    const { request } = decodeResponsesRequest({
      model: "m",
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "look" },
            { type: "input_image", image_url: "https://example.test/cat.png" },
            { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
          ],
        },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "A cat.", annotations: [] }] },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: "user",
        parts: [
          { type: "text", text: "look" },
          { type: "image", source: "url", url: "https://example.test/cat.png" },
          { type: "image", source: "base64", mediaType: "image/png", base64: "iVBORw0KGgo=" },
        ],
      },
      { role: "assistant", parts: [{ type: "text", text: "A cat." }] },
    ]);
  });

  it("groups an assistant message and its function calls into one turn and reads their outputs", () => {
    const { request, warnings } = decodeResponsesRequest({
      model: "m",
      input: [
        { role: "user", content: "list files" },
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "opaque" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Listing." }] },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "shell", arguments: '{"cmd":["ls"]}' },
        { type: "function_call_output", call_id: "call_1", output: "a.txt\nb.txt" },
      ],
    });
    expect(warnings).toEqual([]);
    expect(request.messages.slice(1)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "text", text: "Listing." },
          { type: "tool-call", id: "call_1", name: "shell", argumentsJson: '{"cmd":["ls"]}' },
        ],
      },
      { role: "tool", parts: [{ type: "tool-result", callId: "call_1", text: "a.txt\nb.txt", isError: false }] },
    ]);
  });

  it("maps custom tool calls and outputs to a function call whose arguments are {input}", () => {
    const { request } = decodeResponsesRequest({
      model: "m",
      input: [
        { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: '*** Begin Patch\n"x"' },
        { type: "custom_tool_call_output", call_id: "call_p", output: "Done" },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: "assistant",
        parts: [
          {
            type: "tool-call",
            id: "call_p",
            name: "apply_patch",
            argumentsJson: JSON.stringify({ input: '*** Begin Patch\n"x"' }),
          },
        ],
      },
      { role: "tool", parts: [{ type: "tool-result", callId: "call_p", text: "Done", isError: false }] },
    ]);
  });

  it("maps function and custom tools, drops built-in tools with tools_dropped", () => {
    const { request, warnings } = decodeResponsesRequest({
      model: "m",
      input: [],
      tools: [
        { type: "function", name: "shell", description: "Run", parameters: { type: "object", properties: {} } },
        { type: "custom", name: "apply_patch", description: "Patch", format: { type: "grammar" } },
        { type: "web_search" },
        { type: "local_shell" },
      ],
      tool_choice: { type: "function", name: "shell" },
    });
    expect(request.tools).toEqual([
      { kind: "function", name: "shell", description: "Run", parametersSchema: { type: "object", properties: {} } },
      {
        kind: "custom",
        name: "apply_patch",
        description: "Patch",
        parametersSchema: {
          type: "object",
          properties: { input: { type: "string", description: "The free-form input of the tool." } },
          required: ["input"],
          additionalProperties: false,
        },
      },
    ]);
    expect(warnings).toEqual([
      { code: "tools_dropped", detail: "web_search" },
      { code: "tools_dropped", detail: "local_shell" },
    ]);
    expect(request.toolChoice).toEqual({ name: "shell" });
  });

  it("notes unknown item types as blocks_dropped", () => {
    const { warnings } = decodeResponsesRequest({
      model: "m",
      input: [
        { type: "web_search_call", id: "ws_1" },
        { type: "item_reference", id: "x" },
      ],
    });
    expect(warnings.map((warning) => warning.detail)).toEqual(["web_search_call", "item_reference"]);
  });

  it("reads the sampling and control fields", () => {
    const { request } = decodeResponsesRequest({
      model: "gpt-5",
      input: [],
      max_output_tokens: 1000,
      temperature: 0.2,
      top_p: 0.9,
      stream: true,
      reasoning: { effort: "high", summary: "auto" },
      parallel_tool_calls: false,
      tool_choice: "required",
    });
    expect(request).toMatchObject({
      model: "gpt-5",
      maxOutputTokens: 1000,
      temperature: 0.2,
      topP: 0.9,
      stream: true,
      reasoningEffort: "high",
      parallelToolCalls: false,
      toolChoice: "required",
    });
  });

  it("refuses previous_response_id on a translated hop with unsupported_previous_response_id", () => {
    const body = { model: "m", input: "next", previous_response_id: "resp_1" };
    expect(() => decodeResponsesRequest(body)).toThrow(TranslationError);
    expect(() => decodeResponsesRequest(body)).toThrow(
      expect.objectContaining({ code: "unsupported_previous_response_id" }),
    );
    expect(decodeResponsesRequest(body, { translatedHop: false }).request.messages).toHaveLength(1);
  });

  it("rejects a body it cannot read with invalid_request", () => {
    for (const body of [
      null,
      [],
      { model: "m", input: 42 },
      { model: "m", input: [{ role: "robot", content: "x" }] },
    ]) {
      expect(() => decodeResponsesRequest(body)).toThrow(expect.objectContaining({ code: "invalid_request" }));
    }
  });
});

describe("responses wire: encode request", () => {
  const request: Request = {
    model: "gpt-5",
    system: "Be brief.",
    messages: [
      { role: "user", parts: [{ type: "text", text: "patch it" }] },
      {
        role: "assistant",
        parts: [
          { type: "text", text: "Patching." },
          { type: "tool-call", id: "call_p", name: "apply_patch", argumentsJson: '{"input":"*** Begin Patch"}' },
          { type: "tool-call", id: "call_s", name: "shell", argumentsJson: '{"cmd":"ls"}' },
        ],
      },
      {
        role: "tool",
        parts: [
          { type: "tool-result", callId: "call_p", text: "ok", isError: false },
          { type: "tool-result", callId: "call_s", text: "a.txt", isError: false },
        ],
      },
    ],
    tools: [
      { kind: "custom", name: "apply_patch", parametersSchema: {} },
      { kind: "function", name: "shell", parametersSchema: { type: "object" } },
    ],
    toolChoice: "auto",
    maxOutputTokens: 500,
    stream: true,
    reasoningEffort: "low",
  };

  it("writes items, instructions and custom tools back in the responses form", () => {
    expect(encodeResponsesRequest(request)).toEqual({
      model: "gpt-5",
      instructions: "Be brief.",
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "patch it" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Patching.", annotations: [] }] },
        { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: "*** Begin Patch" },
        { type: "function_call", call_id: "call_s", name: "shell", arguments: '{"cmd":"ls"}' },
        { type: "custom_tool_call_output", call_id: "call_p", output: "ok" },
        { type: "function_call_output", call_id: "call_s", output: "a.txt" },
      ],
      tools: [
        { type: "custom", name: "apply_patch" },
        { type: "function", name: "shell", parameters: { type: "object" }, strict: false },
      ],
      tool_choice: "auto",
      max_output_tokens: 500,
      stream: true,
      store: false,
      reasoning: { effort: "low" },
    });
  });

  it("round-trips through decode", () => {
    const decoded = decodeResponsesRequest(encodeResponsesRequest(request)).request;
    expect(decoded.messages).toEqual(request.messages);
    expect(decoded.tools.map((tool) => [tool.kind, tool.name])).toEqual([
      ["custom", "apply_patch"],
      ["function", "shell"],
    ]);
  });

  it("throws not_supported for stop sequences, which the wire cannot express", () => {
    expect(() => encodeResponsesRequest({ ...request, stop: ["END"] })).toThrow(
      expect.objectContaining({ code: "not_supported" }),
    );
  });
});

describe("responses wire: one-shot responses", () => {
  const body = {
    id: "resp_1",
    object: "response",
    status: "completed",
    output: [
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Think." }] },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        content: [{ type: "output_text", text: "Hi", annotations: [] }],
      },
      { type: "function_call", id: "fc_1", call_id: "call_1", name: "shell", arguments: '{"cmd":"ls"}' },
      { type: "custom_tool_call", id: "ctc_1", call_id: "call_2", name: "apply_patch", input: "diff" },
      { type: "web_search_call", id: "ws_1" },
    ],
    usage: {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 40 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 130,
    },
  };

  it("decodes output items, usage and a tool-call finish", () => {
    expect(decodeResponsesResponse(body)).toEqual({
      content: [
        { type: "reasoning", text: "Think." },
        { type: "text", text: "Hi" },
        { type: "tool-call", id: "call_1", name: "shell", argumentsJson: '{"cmd":"ls"}' },
        { type: "tool-call", id: "call_2", name: "apply_patch", argumentsJson: '{"input":"diff"}' },
      ],
      usage: { input: 100, cachedInput: 40, output: 30, reasoning: 10 },
      finish: { unified: "tool_calls", raw: "completed" },
    });
  });

  it("decodes an incomplete response as length or content_filter", () => {
    const incomplete = (reason: string) =>
      decodeResponsesResponse({ status: "incomplete", incomplete_details: { reason }, output: [] }).finish;
    expect(incomplete("max_output_tokens")).toEqual({ unified: "length", raw: "max_output_tokens" });
    expect(incomplete("content_filter")).toEqual({ unified: "content_filter", raw: "content_filter" });
  });

  it("encodes a reply and decodes back to the same reply", () => {
    const reply = decodeResponsesResponse(body);
    const encoded = encodeResponsesResponse(reply, { ...deterministic(), customToolNames: new Set(["apply_patch"]) });
    expect(encoded.output.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "custom_tool_call",
    ]);
    expect(encoded.usage?.total_tokens).toBe(130);
    expect(decodeResponsesResponse(encoded)).toEqual(reply);
  });

  it("encodes a length finish as an incomplete response", () => {
    const encoded = encodeResponsesResponse(
      { content: [{ type: "text", text: "Once" }], finish: { unified: "length", raw: "length" } },
      deterministic(),
    );
    expect(encoded.status).toBe("incomplete");
    expect(encoded.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(encoded.usage).toBeNull();
  });
});

describe("responses wire: streams", () => {
  it("numbers every event and ends with response.completed carrying the whole output and usage", async () => {
    const text = await encodeParts("responses", [
      { type: "text-start" },
      { type: "text-delta", text: "Hi" },
      { type: "text-end" },
      { type: "usage", usage: { input: 10, cachedInput: 2, output: 3, reasoning: 1 } },
      { type: "finish", reason: { unified: "stop", raw: "stop" } },
    ]);
    const events = text
      .trimEnd()
      .split("\n\n")
      .map((frame) => JSON.parse(frame.split("\ndata: ")[1] ?? "{}"));
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.at(-1).response.usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 2 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 1 },
      total_tokens: 13,
    });
    expect(events.at(-1).response.id).toMatch(/^resp_/);
    expect(events[2].item.id).toMatch(/^msg_/);
  });

  it("sends a custom tool call as one item on output_item.done, with no argument deltas", async () => {
    const text = await encodeParts(
      "responses",
      [
        { type: "tool-call-start", index: 0, id: "call_p", name: "apply_patch" },
        { type: "tool-call-delta", index: 0, json: '{"input":"*** Begin' },
        { type: "tool-call-delta", index: 0, json: ' Patch\\n"}' },
        { type: "tool-call-end", index: 0 },
        { type: "finish", reason: { unified: "tool_calls", raw: null } },
      ],
      { customToolNames: new Set(["apply_patch"]) },
    );
    expect(text).not.toContain("function_call_arguments");
    const done = text.split("\n\n").find((frame) => frame.startsWith("event: response.output_item.done"));
    expect(JSON.parse(done?.split("\ndata: ")[1] ?? "{}").item).toMatchObject({
      type: "custom_tool_call",
      call_id: "call_p",
      name: "apply_patch",
      input: "*** Begin Patch\n",
    });
  });

  it("decodes arguments that arrive only in the done events", async () => {
    const sse = [
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { type: "function_call", id: "fc_1", call_id: "c", name: "f", arguments: "" },
      },
      { type: "response.function_call_arguments.delta", output_index: 0, item_id: "fc_1", delta: '{"a"' },
      { type: "response.function_call_arguments.done", output_index: 0, item_id: "fc_1", arguments: '{"a":1}' },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: { type: "function_call", id: "fc_1", call_id: "c", name: "f", arguments: '{"a":1}' },
      },
      { type: "response.completed", response: { status: "completed" } },
    ]
      .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
      .join("");
    const summary = summarize(await decodeSse("responses", sse));
    expect(summary.toolCalls).toEqual([{ id: "c", name: "f", arguments: '{"a":1}' }]);
    expect(summary.finish).toBe("tool_calls");
    expect(summary.usage).toBeNull();
  });
});
