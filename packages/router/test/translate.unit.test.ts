import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  clientWantsUsage,
  collectReply,
  decodeUpstreamStream,
  type Reply,
  translateRequest,
  translateResponse,
  translateStream,
  WIRE_CODECS,
  WIRES,
  type Wire,
} from "../src/index.js";
import { byteStream, deterministic, fixtureChunks, readText, renderSse } from "./helpers.js";

const claudeCodeRequest = {
  model: "claude-sonnet-4-5",
  max_tokens: 32000,
  stream: true,
  system: [{ type: "text", text: "You are a coding agent." }],
  tools: [
    {
      name: "Bash",
      description: "Run a command",
      input_schema: { type: "object", properties: { command: { type: "string" } } },
    },
    { type: "web_search_20250305", name: "web_search" },
  ],
  messages: [
    { role: "user", content: "list files" },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts" }] },
  ],
};

describe("translateRequest", () => {
  it("passes a same-wire body through, replacing only the model", () => {
    const translated = translateRequest("messages", "messages", claudeCodeRequest, {
      model: "claude-sonnet-4-5-20250929",
    });
    expect(translated.body).toEqual({ ...claudeCodeRequest, model: "claude-sonnet-4-5-20250929" });
    expect(translated.warnings).toEqual([]);
    expect(translated.stream).toBe(true);
  });

  it("strips unacceptable replayed identifiers on a responses-wire passthrough and counts them", () => {
    const body = {
      model: "gpt-5",
      input: [
        { type: "reasoning", id: "rs/bad", summary: [] },
        { role: "user", content: "hi" },
      ],
    };
    const translated = translateRequest("responses", "responses", body);
    expect(translated.replayedIdsStripped).toBe(1);
    expect(translated.body).toEqual({ model: "gpt-5", input: [{ role: "user", content: "hi" }] });
  });

  it("translates a messages-wire agent request for a chat upstream, noting dropped tools", () => {
    const translated = translateRequest("messages", "chat", claudeCodeRequest, { model: "deepseek-chat" });
    expect(translated.warnings).toEqual([{ code: "tools_dropped", detail: "web_search_20250305" }]);
    expect(translated.body).toEqual({
      model: "deepseek-chat",
      messages: [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "list files" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }],
        },
        { role: "tool", tool_call_id: "toolu_1", content: "a.ts" },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: "function",
          function: {
            name: "Bash",
            description: "Run a command",
            parameters: { type: "object", properties: { command: { type: "string" } } },
          },
        },
      ],
      max_tokens: 32000,
    });
  });

  it("reports a responses-wire client's custom tools so replies map back to custom_tool_call", () => {
    const translated = translateRequest("responses", "messages", {
      model: "gpt-5",
      input: "patch it",
      tools: [{ type: "custom", name: "apply_patch" }],
      stream: true,
    });
    expect([...translated.customToolNames]).toEqual(["apply_patch"]);
    expect(translated.body).toMatchObject({ max_tokens: 8192, tools: [{ name: "apply_patch" }] });
  });

  it("refuses previous_response_id on a translated hop, and passes it through on a same-wire hop", () => {
    const body = { model: "gpt-5", input: "next", previous_response_id: "resp_1" };
    expect(() => translateRequest("responses", "chat", body)).toThrow(
      expect.objectContaining({ code: "unsupported_previous_response_id" }),
    );
    expect(translateRequest("responses", "responses", body).body).toEqual(body);
  });

  it("gives every pair a body the target wire's decoder reads back to the same conversation", () => {
    for (const from of WIRES) {
      const source = translateRequest("messages", from, claudeCodeRequest).body;
      const expected = WIRE_CODECS[from].decodeRequest(source).request.messages;
      for (const to of WIRES) {
        if (from === to) continue;
        const body = translateRequest(from, to, source).body;
        expect(WIRE_CODECS[to].decodeRequest(body).request.messages, `${from} -> ${to}`).toEqual(expected);
      }
    }
  });
});

describe("clientWantsUsage", () => {
  it("is always true on the responses and messages wires, and follows include_usage on the chat wire", () => {
    expect(clientWantsUsage("responses", {})).toBe(true);
    expect(clientWantsUsage("messages", {})).toBe(true);
    expect(clientWantsUsage("chat", { stream_options: { include_usage: true } })).toBe(true);
    expect(clientWantsUsage("chat", {})).toBe(false);
  });
});

describe("translateResponse", () => {
  const reply: Reply = {
    content: [
      { type: "reasoning", text: "Think." },
      { type: "text", text: "Running it." },
      { type: "tool-call", id: "call_1", name: "bash", argumentsJson: '{"command":"ls -la"}' },
    ],
    usage: { input: 100, cachedInput: 60, output: 20, reasoning: 5 },
    finish: { unified: "tool_calls", raw: "tool_calls" },
  };

  it("keeps content, arguments, usage and finish across all nine pairs", () => {
    for (const upstream of WIRES) {
      const upstreamBody = WIRE_CODECS[upstream].encodeResponse(reply, deterministic());
      for (const client of WIRES) {
        const clientBody = translateResponse(upstream, client, upstreamBody, deterministic());
        const decoded = WIRE_CODECS[client].decodeResponse(clientBody);
        const reasoningTokens = upstream === "messages" || client === "messages" ? 0 : 5;
        expect(decoded.content, `${upstream} -> ${client}`).toEqual(reply.content);
        expect(decoded.usage).toEqual({ ...reply.usage, reasoning: reasoningTokens });
        expect(decoded.finish.unified).toBe("tool_calls");
      }
    }
  });
});

describe("collectReply and decodeUpstreamStream", () => {
  it("gathers an upstream stream into one reply, for a client that asked for one response", async () => {
    const sse = renderSse("responses", fixtureChunks("responses-tool-calls"));
    const collected = await collectReply(decodeUpstreamStream("responses", byteStream(sse, 13)));
    expect(collected.ok).toBe(true);
    if (!collected.ok) return;
    expect(collected.reply.content.map((part) => part.type)).toEqual(["text", "tool-call", "tool-call"]);
    expect(collected.reply.usage).toEqual({ input: 2048, cachedInput: 0, output: 64, reasoning: 0 });
    expect(collected.reply.finish).toEqual({ unified: "tool_calls", raw: "completed" });
  });

  it("reports a failed stream as a failure", async () => {
    const sse = renderSse("chat", fixtureChunks("chat-text").slice(0, 3));
    expect(await collectReply(decodeUpstreamStream("chat", byteStream(sse)))).toEqual({
      ok: false,
      code: "upstream_error",
      message: "upstream stream ended before its terminal event",
    });
  });

  it("lets a tap see every part, e.g. the usage for the ledger", async () => {
    const seen: string[] = [];
    const sse = renderSse("messages", fixtureChunks("messages-text"));
    await readText(
      translateStream("messages", "chat", byteStream(sse), {
        ...deterministic(),
        onPart: (part) => seen.push(part.type),
      }),
    );
    expect(seen.filter((type) => type === "usage")).toHaveLength(2);
    expect(seen.at(-1)).toBe("finish");
  });
});

describe("wire folders", () => {
  it("hold the same set of files, so a reader who knows one knows them all", () => {
    const listing = (wire: Wire) =>
      readdirSync(fileURLToPath(new URL(`../src/wires/${wire}/`, import.meta.url)))
        .map((file) => file.replace(`${wire}-api.ts`, "WIRE-api.ts"))
        .sort();
    const [first, ...rest] = WIRES.map(listing);
    for (const other of rest) expect(other).toEqual(first);
  });
});
