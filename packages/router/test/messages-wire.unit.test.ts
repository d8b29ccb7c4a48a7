import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_TOKENS,
  decodeMessagesRequest,
  decodeMessagesResponse,
  encodeMessagesRequest,
  encodeMessagesResponse,
  type Request,
} from "../src/index.js";
import { decodeSse, deterministic, encodeParts, summarize } from "./helpers.js";

describe("messages wire: decode request (docs/router.md, 'Request mappings', messages row)", () => {
  it("reads system blocks and joins mid-conversation system messages to it", () => {
    const { request } = decodeMessagesRequest({
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      system: [
        { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } },
        { type: "text", text: "Be brief." },
      ],
      messages: [
        { role: "user", content: "hi" },
        { role: "system", content: "Reminder: tests first." },
      ],
    });
    expect(request.system).toBe("You are Claude Code.\n\nBe brief.\n\nReminder: tests first.");
    expect(request.messages).toEqual([{ role: "user", parts: [{ type: "text", text: "hi" }] }]);
  });

  it("reads text, images, tool_use and tool_result (text, blocks, is_error); drops thinking silently", () => {
    const { request, warnings } = decodeMessagesRequest({
      model: "m",
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" } },
            { type: "image", source: { type: "url", url: "https://example.test/a.png" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "Running both." },
            { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
            { type: "tool_use", id: "toolu_2", name: "read", input: { path: "a" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" },
            {
              type: "tool_result",
              tool_use_id: "toolu_2",
              is_error: true,
              content: [
                { type: "text", text: "no such file" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: "x" } },
              ],
            },
            { type: "text", text: "go on" },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: "user",
        parts: [
          { type: "text", text: "see" },
          { type: "image", source: "base64", mediaType: "image/png", base64: "iVBOR" },
          { type: "image", source: "url", url: "https://example.test/a.png" },
        ],
      },
      {
        role: "assistant",
        parts: [
          { type: "text", text: "Running both." },
          { type: "tool-call", id: "toolu_1", name: "bash", argumentsJson: '{"command":"ls"}' },
          { type: "tool-call", id: "toolu_2", name: "read", argumentsJson: '{"path":"a"}' },
        ],
      },
      {
        role: "tool",
        parts: [
          { type: "tool-result", callId: "toolu_1", text: "a.txt", isError: false },
          { type: "tool-result", callId: "toolu_2", text: "no such file", isError: true },
        ],
      },
      { role: "user", parts: [{ type: "text", text: "go on" }] },
    ]);
    expect(warnings).toEqual([{ code: "blocks_dropped", detail: "tool_result image" }]);
  });

  it("drops other block types with blocks_dropped and built-in tools with tools_dropped", () => {
    const { request, warnings } = decodeMessagesRequest({
      model: "m",
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "text", data: "x" } },
            { type: "text", text: "q" },
          ],
        },
        { role: "assistant", content: [{ type: "server_tool_use", id: "s", name: "web_search", input: {} }] },
      ],
      tools: [
        {
          name: "bash",
          description: "Run",
          input_schema: { type: "object", properties: { command: { type: "string" } } },
        },
        { type: "web_search_20250305", name: "web_search", max_uses: 5 },
        { type: "text_editor_20250124", name: "str_replace_editor" },
      ],
    });
    expect(request.tools).toEqual([
      {
        kind: "function",
        name: "bash",
        description: "Run",
        parametersSchema: { type: "object", properties: { command: { type: "string" } } },
      },
    ]);
    expect(warnings).toEqual([
      { code: "blocks_dropped", detail: "document" },
      { code: "blocks_dropped", detail: "server_tool_use" },
      { code: "tools_dropped", detail: "web_search_20250305" },
      { code: "tools_dropped", detail: "text_editor_20250124" },
    ]);
  });

  it("maps tool_choice auto, any, tool and none, and disable_parallel_tool_use", () => {
    const choice = (tool_choice: object) =>
      decodeMessagesRequest({ model: "m", max_tokens: 1, messages: [], tool_choice }).request;
    expect(choice({ type: "auto" }).toolChoice).toBe("auto");
    expect(choice({ type: "any" }).toolChoice).toBe("required");
    expect(choice({ type: "none" }).toolChoice).toBe("none");
    expect(choice({ type: "tool", name: "bash", disable_parallel_tool_use: true })).toMatchObject({
      toolChoice: { name: "bash" },
      parallelToolCalls: false,
    });
  });

  it("reads max_tokens, stop_sequences, temperature, top_p, stream and output_config.effort", () => {
    const { request } = decodeMessagesRequest({
      model: "m",
      max_tokens: 4096,
      stop_sequences: ["</answer>"],
      temperature: 0.5,
      top_p: 0.8,
      stream: true,
      output_config: { effort: "high" },
      messages: [],
    });
    expect(request).toMatchObject({
      maxOutputTokens: 4096,
      stop: ["</answer>"],
      temperature: 0.5,
      topP: 0.8,
      stream: true,
      reasoningEffort: "high",
    });
  });
});

describe("messages wire: encode request", () => {
  const request: Request = {
    model: "claude-sonnet-4-5",
    system: "Be brief.",
    messages: [
      { role: "user", parts: [{ type: "text", text: "run it" }] },
      {
        role: "assistant",
        parts: [
          { type: "text", text: "" },
          { type: "tool-call", id: "call_1", name: "bash", argumentsJson: '{"command":"ls"}' },
        ],
      },
      { role: "tool", parts: [{ type: "tool-result", callId: "call_1", text: "failed", isError: true }] },
      { role: "user", parts: [{ type: "text", text: "and?" }] },
    ],
    tools: [{ kind: "function", name: "bash", description: "Run", parametersSchema: { type: "object" } }],
    toolChoice: "required",
    parallelToolCalls: false,
    stream: true,
  };

  it("uses max_tokens 8192 when the request has none (docs/router.md, 'Request mappings')", () => {
    expect(DEFAULT_MAX_TOKENS).toBe(8192);
    expect(encodeMessagesRequest(request).max_tokens).toBe(8192);
    expect(encodeMessagesRequest({ ...request, maxOutputTokens: 100 }).max_tokens).toBe(100);
  });

  it("merges tool results and the next user text into one user turn, results first, and skips empty text", () => {
    expect(encodeMessagesRequest(request)).toEqual({
      model: "claude-sonnet-4-5",
      system: "Be brief.",
      messages: [
        { role: "user", content: [{ type: "text", text: "run it" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "bash", input: { command: "ls" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "failed", is_error: true },
            { type: "text", text: "and?" },
          ],
        },
      ],
      tools: [{ name: "bash", description: "Run", input_schema: { type: "object" } }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      max_tokens: 8192,
      stream: true,
    });
  });

  it("moves tool results ahead of user text that came before them", () => {
    const encoded = encodeMessagesRequest({
      ...request,
      messages: [
        { role: "user", parts: [{ type: "text", text: "note" }] },
        { role: "tool", parts: [{ type: "tool-result", callId: "c", text: "r", isError: false }] },
      ],
    });
    expect(encoded.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c", content: "r" },
          { type: "text", text: "note" },
        ],
      },
    ]);
  });
});

describe("messages wire: one-shot responses", () => {
  it("decodes blocks, stop_reason and usage, counting cache reads and writes as input", () => {
    const reply = decodeMessagesResponse({
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm", signature: "s" },
        { type: "text", text: "Listing." },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 20 },
    });
    expect(reply).toEqual({
      content: [
        { type: "reasoning", text: "hmm" },
        { type: "text", text: "Listing." },
        { type: "tool-call", id: "toolu_1", name: "bash", argumentsJson: '{"command":"ls"}' },
      ],
      usage: { input: 115, cachedInput: 100, output: 20, reasoning: 0 },
      finish: { unified: "tool_calls", raw: "tool_use" },
    });
    const encoded = encodeMessagesResponse(reply, deterministic());
    expect(encoded.usage).toEqual({
      input_tokens: 15,
      output_tokens: 20,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 0,
    });
    expect(decodeMessagesResponse(encoded)).toEqual(reply);
  });

  it("keeps stop_sequence from a messages upstream and maps the other reasons", () => {
    const stopReason = (unified: "stop" | "length" | "tool_calls" | "content_filter", raw: string | null) =>
      encodeMessagesResponse({ content: [], finish: { unified, raw } }, deterministic()).stop_reason;
    expect(stopReason("stop", "stop_sequence")).toBe("stop_sequence");
    expect(stopReason("stop", "stop")).toBe("end_turn");
    expect(stopReason("length", "length")).toBe("max_tokens");
    expect(stopReason("tool_calls", "tool_calls")).toBe("tool_use");
    expect(stopReason("content_filter", "content_filter")).toBe("end_turn");
  });
});

describe("messages wire: streams", () => {
  it("puts input usage in message_start when it is known before the first content", async () => {
    const text = await encodeParts("messages", [
      { type: "usage", usage: { input: 120, cachedInput: 100, output: 1, reasoning: 0 } },
      { type: "text-start" },
      { type: "text-delta", text: "Hi" },
      { type: "text-end" },
      { type: "usage", usage: { input: 120, cachedInput: 100, output: 7, reasoning: 0 } },
      { type: "finish", reason: { unified: "stop", raw: "end_turn" } },
    ]);
    const events = text
      .trimEnd()
      .split("\n\n")
      .map((frame) => JSON.parse(frame.split("\ndata: ")[1] ?? "{}"));
    expect(events.map((event) => event.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[0].message.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 100 });
    expect(events[4]).toMatchObject({ delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } });
  });

  it("gives a tool that streams no input the empty object as arguments", async () => {
    const events = [
      { type: "message_start", message: { id: "m", usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "now", input: {} } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ];
    const sse = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
    const summary = summarize(await decodeSse("messages", sse));
    expect(summary).toMatchObject({
      toolCalls: [{ id: "t", name: "now", arguments: "{}" }],
      usage: { input: 3, cachedInput: 0, output: 9, reasoning: 0 },
      finish: "tool_calls",
    });
  });
});
