import { describe, expect, it } from "vitest";
import {
  chatRequestWantsUsage,
  decodeChatRequest,
  decodeChatResponse,
  encodeChatRequest,
  encodeChatResponse,
  type Request,
} from "../src/index.js";
import { decodeSse, deterministic, encodeParts, summarize } from "./helpers.js";

describe("chat wire: decode request (docs/router.md, 'Request mappings', chat row)", () => {
  it("reads system and developer messages, user strings and parts, assistant tool calls and tool messages", () => {
    const { request, warnings } = decodeChatRequest({
      model: "deepseek-chat",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Use tools." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
            { type: "input_audio", input_audio: { data: "x", format: "wav" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "look", arguments: '{"zoom":2}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "a cat" },
        { role: "assistant", content: "A cat." },
      ],
    });
    expect(request.system).toBe("Be brief.\n\nUse tools.");
    expect(request.messages).toEqual([
      {
        role: "user",
        parts: [
          { type: "text", text: "what is this?" },
          { type: "image", source: "base64", mediaType: "image/jpeg", base64: "/9j/4AAQ" },
        ],
      },
      { role: "assistant", parts: [{ type: "tool-call", id: "call_1", name: "look", argumentsJson: '{"zoom":2}' }] },
      { role: "tool", parts: [{ type: "tool-result", callId: "call_1", text: "a cat", isError: false }] },
      { role: "assistant", parts: [{ type: "text", text: "A cat." }] },
    ]);
    expect(warnings).toEqual([{ code: "blocks_dropped", detail: "input_audio" }]);
  });

  it("reads tools, tool_choice, max_tokens or max_completion_tokens, stop, reasoning_effort", () => {
    const base = {
      model: "m",
      messages: [],
      tools: [{ type: "function", function: { name: "f", description: "d", parameters: { type: "object" } } }],
      tool_choice: { type: "function", function: { name: "f" } },
      stop: "END",
      reasoning_effort: "minimal",
      parallel_tool_calls: true,
      temperature: 0,
      top_p: 1,
    };
    expect(decodeChatRequest({ ...base, max_tokens: 100 }).request).toMatchObject({
      tools: [{ kind: "function", name: "f", description: "d", parametersSchema: { type: "object" } }],
      toolChoice: { name: "f" },
      maxOutputTokens: 100,
      stop: ["END"],
      reasoningEffort: "minimal",
      parallelToolCalls: true,
      temperature: 0,
      topP: 1,
    });
    expect(decodeChatRequest({ ...base, max_completion_tokens: 200, max_tokens: 100 }).request.maxOutputTokens).toBe(
      200,
    );
  });

  it("tells whether the client asked for the usage chunk", () => {
    expect(chatRequestWantsUsage({ stream: true, stream_options: { include_usage: true } })).toBe(true);
    expect(chatRequestWantsUsage({ stream: true })).toBe(false);
  });
});

describe("chat wire: encode request", () => {
  const request: Request = {
    model: "m",
    system: "Be brief.",
    messages: [
      { role: "user", parts: [{ type: "text", text: "hi" }] },
      {
        role: "assistant",
        parts: [
          { type: "tool-call", id: "a", name: "f", argumentsJson: "{}" },
          { type: "tool-call", id: "b", name: "f", argumentsJson: '{"x":1}' },
        ],
      },
      {
        role: "tool",
        parts: [
          { type: "tool-result", callId: "a", text: "one", isError: false },
          { type: "tool-result", callId: "b", text: "two", isError: true },
        ],
      },
    ],
    tools: [{ kind: "function", name: "f", parametersSchema: { type: "object" } }],
    stream: true,
    maxOutputTokens: 64,
    stop: ["END"],
  };

  it("always asks for usage upstream when streaming", () => {
    expect(encodeChatRequest(request).stream_options).toEqual({ include_usage: true });
    expect(encodeChatRequest({ ...request, stream: false }).stream_options).toBeUndefined();
  });

  it("writes system first, a tool-only assistant turn with null content, and one tool message per result", () => {
    expect(encodeChatRequest(request).messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "f", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "f", arguments: '{"x":1}' } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "one" },
      { role: "tool", tool_call_id: "b", content: "two" },
    ]);
    expect(encodeChatRequest(request)).toMatchObject({ max_tokens: 64, stop: ["END"] });
  });

  it("round-trips through decode", () => {
    const decoded = decodeChatRequest(encodeChatRequest(request)).request;
    expect(decoded.messages).toEqual(
      request.messages.map((message) =>
        message.role === "tool"
          ? { ...message, parts: message.parts.map((part) => ({ ...part, isError: false })) }
          : message,
      ),
    );
    expect(decoded.system).toBe(request.system);
  });
});

describe("chat wire: one-shot responses", () => {
  it("decodes content, reasoning_content, tool calls and usage", () => {
    const reply = decodeChatResponse({
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Checking.",
            reasoning_content: "hmm",
            tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: {
        prompt_tokens: 20,
        completion_tokens: 9,
        total_tokens: 29,
        prompt_tokens_details: { cached_tokens: 5 },
        completion_tokens_details: { reasoning_tokens: 4 },
      },
    });
    expect(reply).toEqual({
      content: [
        { type: "reasoning", text: "hmm" },
        { type: "text", text: "Checking." },
        { type: "tool-call", id: "c1", name: "f", argumentsJson: '{"a":1}' },
      ],
      usage: { input: 20, cachedInput: 5, output: 9, reasoning: 4 },
      finish: { unified: "tool_calls", raw: "tool_calls" },
    });
    expect(decodeChatResponse(encodeChatResponse(reply, deterministic()))).toEqual(reply);
  });

  it("reads a server's plain stop after tool calls as the tool-call turn, keeping the raw value", () => {
    const reply = decodeChatResponse({
      choices: [
        {
          message: { content: null, tool_calls: [{ id: "c", function: { name: "f", arguments: "{}" } }] },
          finish_reason: "stop",
        },
      ],
    });
    expect(reply.finish).toEqual({ unified: "tool_calls", raw: "stop" });
  });
});

describe("chat wire: streams", () => {
  it("writes the usage chunk only when the client asked for it, then [DONE]", async () => {
    const parts = [
      { type: "text-delta", text: "Hi" },
      { type: "usage", usage: { input: 5, cachedInput: 0, output: 1, reasoning: 0 } },
      { type: "finish", reason: { unified: "stop", raw: "end_turn" } },
    ] as const;
    const withUsage = await encodeParts("chat", [...parts], { includeUsage: true });
    const without = await encodeParts("chat", [...parts], { includeUsage: false });
    expect(withUsage).toContain('"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6');
    expect(without).not.toContain('"usage"');
    expect(withUsage.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(without.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("holds arguments that arrive before the tool name and keeps interleaved calls apart", async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const sse = [
      chunk({ tool_calls: [{ index: 0, id: "c0", function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: "f" } }] }),
      chunk({ tool_calls: [{ index: 1, id: "c1", function: { name: "g", arguments: "{" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: "}" } }] }),
      chunk({}, "tool_calls"),
      "data: [DONE]\n\n",
    ].join("");
    const summary = summarize(await decodeSse("chat", sse));
    expect(summary.toolCalls).toEqual([
      { id: "c0", name: "f", arguments: '{"a":1}' },
      { id: "c1", name: "g", arguments: "{}" },
    ]);
    expect(summary.finish).toBe("tool_calls");
  });

  it("reads reasoning_content (and reasoning) deltas as reasoning", async () => {
    const sse =
      'data: {"choices":[{"index":0,"delta":{"reasoning_content":"a"}}]}\n\n' +
      'data: {"choices":[{"index":0,"delta":{"reasoning":"b"}}]}\n\n' +
      'data: {"choices":[{"index":0,"delta":{"content":"c"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    const summary = summarize(await decodeSse("chat", sse));
    expect([summary.reasoning, summary.text, summary.finish]).toEqual(["ab", "c", "stop"]);
  });
});
