import type Anthropic from "@anthropic-ai/sdk";
import { MOCK_USAGE, type MockWire, type ModelMock, startModelMock, TOOL_ARGUMENTS } from "@notify/test-kit";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Json, type RouterBroker, startRouterBroker } from "./harness.js";

/**
 * The official clients of each inbound wire, pointed at the router, against mock upstreams that speak each real
 * wire: all nine pairs, one-shot and streamed through the SDKs' own stream helpers, text and a tool call, and the
 * usage the upstream reported as the SDK shows it and as the ledger keeps it.
 */

const WIRES: MockWire[] = ["responses", "chat", "messages"];
const PROMPT = "What is the weather like?";
const WEATHER_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" }, units: { type: "string" } },
  required: ["city"],
};

interface Outcome {
  text: string;
  toolArguments?: unknown;
  /** The usage as the client's own wire shows it, read back into one shape. */
  usage: { input: number; cached: number; output: number; reasoning?: number };
}

interface Clients {
  openai: OpenAI;
  anthropic: Anthropic;
}

type Call = (clients: Clients, model: string) => Promise<Outcome>;

interface InboundWire {
  plain: Call;
  streamText: Call;
  streamTool: Call;
}

const INBOUND: Record<MockWire, InboundWire> = {
  responses: {
    async plain({ openai }, model) {
      const response = await openai.responses.create({ model, input: PROMPT });
      return { text: response.output_text, usage: responsesUsage(response.usage) };
    },
    async streamText({ openai }, model) {
      const stream = openai.responses.stream({ model, input: PROMPT });
      let deltas = "";
      stream.on("response.output_text.delta", (event) => {
        deltas += event.delta;
      });
      const response = await stream.finalResponse();
      expect(deltas).toBe(response.output_text);
      return { text: response.output_text, usage: responsesUsage(response.usage) };
    },
    async streamTool({ openai }, model) {
      const stream = openai.responses.stream({
        model,
        input: PROMPT,
        tools: [{ type: "function", name: "get_weather", parameters: WEATHER_SCHEMA, strict: false }],
      });
      const response = await stream.finalResponse();
      const call = response.output.find((item) => item.type === "function_call");
      expect(call?.name).toBe("get_weather");
      return {
        text: response.output_text,
        toolArguments: JSON.parse(call?.arguments ?? "null"),
        usage: responsesUsage(response.usage),
      };
    },
  },
  chat: {
    async plain({ openai }, model) {
      const completion = await openai.chat.completions.create({ model, messages: [{ role: "user", content: PROMPT }] });
      expect(completion.choices[0]?.finish_reason).toBe("stop");
      return { text: completion.choices[0]?.message.content ?? "", usage: chatUsage(completion.usage) };
    },
    async streamText({ openai }, model) {
      const stream = openai.chat.completions.stream({
        model,
        messages: [{ role: "user", content: PROMPT }],
        stream_options: { include_usage: true },
      });
      const completion = await stream.finalChatCompletion();
      expect(completion.choices[0]?.finish_reason).toBe("stop");
      return { text: completion.choices[0]?.message.content ?? "", usage: chatUsage(completion.usage) };
    },
    async streamTool({ openai }, model) {
      const stream = openai.chat.completions.stream({
        model,
        messages: [{ role: "user", content: PROMPT }],
        tools: [{ type: "function", function: { name: "get_weather", parameters: WEATHER_SCHEMA } }],
        stream_options: { include_usage: true },
      });
      const completion = await stream.finalChatCompletion();
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe("tool_calls");
      const call = choice?.message.tool_calls?.[0];
      expect(call?.type === "function" && call.function.name).toBe("get_weather");
      return {
        text: choice?.message.content ?? "",
        toolArguments: call?.type === "function" ? JSON.parse(call.function.arguments) : undefined,
        usage: chatUsage(completion.usage),
      };
    },
  },
  messages: {
    async plain({ anthropic }, model) {
      const message = await anthropic.messages.create({
        model,
        max_tokens: 256,
        messages: [{ role: "user", content: PROMPT }],
      });
      expect(message.stop_reason).toBe("end_turn");
      return { text: messageText(message.content), usage: messagesUsage(message.usage) };
    },
    async streamText({ anthropic }, model) {
      const stream = anthropic.messages.stream({
        model,
        max_tokens: 256,
        messages: [{ role: "user", content: PROMPT }],
      });
      let deltas = "";
      stream.on("text", (text) => {
        deltas += text;
      });
      const message = await stream.finalMessage();
      expect(deltas).toBe(messageText(message.content));
      return { text: messageText(message.content), usage: messagesUsage(message.usage) };
    },
    async streamTool({ anthropic }, model) {
      const stream = anthropic.messages.stream({
        model,
        max_tokens: 256,
        messages: [{ role: "user", content: PROMPT }],
        tools: [{ name: "get_weather", input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema }],
      });
      const message = await stream.finalMessage();
      expect(message.stop_reason).toBe("tool_use");
      const call = message.content.find((block) => block.type === "tool_use");
      expect(call?.name).toBe("get_weather");
      return { text: messageText(message.content), toolArguments: call?.input, usage: messagesUsage(message.usage) };
    },
  },
};

function responsesUsage(usage: OpenAI.Responses.ResponseUsage | undefined): Outcome["usage"] {
  expect(usage).toBeDefined();
  return {
    input: usage?.input_tokens ?? -1,
    cached: usage?.input_tokens_details.cached_tokens ?? -1,
    output: usage?.output_tokens ?? -1,
    reasoning: usage?.output_tokens_details.reasoning_tokens ?? -1,
  };
}

function chatUsage(usage: OpenAI.CompletionUsage | undefined): Outcome["usage"] {
  expect(usage).toBeDefined();
  return {
    input: usage?.prompt_tokens ?? -1,
    cached: usage?.prompt_tokens_details?.cached_tokens ?? -1,
    output: usage?.completion_tokens ?? -1,
    reasoning: usage?.completion_tokens_details?.reasoning_tokens ?? -1,
  };
}

function messagesUsage(usage: Anthropic.Usage): Outcome["usage"] {
  // The messages wire counts uncached input apart from cache reads.
  return {
    input: usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
    cached: usage.cache_read_input_tokens ?? -1,
    output: usage.output_tokens,
  };
}

function messageText(content: Anthropic.ContentBlock[]): string {
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

let router: RouterBroker;
let clients: Clients;
const mocks = {} as Record<MockWire, ModelMock>;

beforeAll(async () => {
  router = await startRouterBroker();
  for (const wire of WIRES) {
    mocks[wire] = await startModelMock(wire);
    mocks[wire].text = `Hello from the ${wire} upstream, streamed in three parts.`;
    await router.addUpstream({
      slug: `up-${wire}`,
      wire,
      base_url: mocks[wire].url,
      key: `upstream-key-${wire}`,
    });
  }
  clients = { openai: router.openai(), anthropic: router.anthropic() };
});

afterAll(async () => {
  await router?.close();
  for (const mock of Object.values(mocks)) await mock.close();
});

const PAIRS = WIRES.flatMap((inbound) => WIRES.map((upstream) => ({ inbound, upstream })));
const KINDS = ["plain", "streamText", "streamTool"] as const;

describe.each(PAIRS)("$inbound client -> $upstream upstream", ({ inbound, upstream }) => {
  it.each(KINDS)("%s", async (kind) => {
    const mock = mocks[upstream];
    const hits = mock.hits.length;
    const before = await router.ledgerSize();
    const model = `up-${upstream}/native-${upstream}-model`;
    const outcome = await INBOUND[inbound][kind](clients, model);

    // What the upstream received: its own wire, the native model, its own key, streaming as the client asked.
    expect(mock.hits.length).toBe(hits + 1);
    const hit = mock.hits.at(-1);
    expect(hit?.path).toBe({ responses: "/responses", chat: "/chat/completions", messages: "/messages" }[upstream]);
    expect(hit?.body.model).toBe(`native-${upstream}-model`);
    expect(hit?.body.stream === true).toBe(kind !== "plain");
    if (upstream === "messages") expect(hit?.headers["x-api-key"]).toBe(`upstream-key-${upstream}`);
    else expect(hit?.headers.authorization).toBe(`Bearer upstream-key-${upstream}`);
    expect(JSON.stringify(hit?.body)).toContain(PROMPT);

    if (kind === "streamTool") expect(outcome.toolArguments).toEqual(TOOL_ARGUMENTS);
    else expect(outcome.text).toBe(mock.text);

    // Usage: the client's wire shows what the upstream reported. Reasoning is lost only where a wire has no field.
    const reasoning = upstream === "messages" ? 0 : MOCK_USAGE.reasoning;
    expect(outcome.usage).toEqual({
      input: MOCK_USAGE.input,
      cached: MOCK_USAGE.cached,
      output: MOCK_USAGE.output,
      ...(inbound === "messages" ? {} : { reasoning }),
    });

    const row = await router.nextLedgerRow(before);
    expect(row).toMatchObject({
      inbound_wire: inbound,
      requested_model: model,
      route_kind: "explicit",
      upstream_slug: `up-${upstream}`,
      upstream_model: `native-${upstream}-model`,
      stream: kind !== "plain",
      status: 200,
      outcome: "ok",
      usage_status: "reported",
      error_code: null,
      tokens: { input: MOCK_USAGE.input, cached_input: MOCK_USAGE.cached, output: MOCK_USAGE.output, reasoning },
    });
    expect(row.attempts).toHaveLength(1);
    expect(row.attempts[0]).toMatchObject({ ordinal: 1, upstream_wire: upstream, status: 200, bytes_streamed: true });
  });
});

describe("passthrough", () => {
  it("relays a same-wire stream byte for byte, replacing only the model", async () => {
    const mock = mocks.chat;
    const reply = await fetch(`${router.base}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${router.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "up-chat/native",
        messages: [{ role: "user", content: PROMPT }],
        stream: true,
        stream_options: { include_usage: true },
        some_vendor_field: { kept: true },
      }),
    });
    const text = await reply.text();
    expect(reply.headers.get("content-type")).toContain("text/event-stream");
    // The mock numbers its answers by request: this one is its latest.
    expect(text).toContain(`"id":"chatcmpl-mock${mock.hits.length}"`);
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const hit = mock.hits.at(-1) as Json;
    expect(hit.body).toMatchObject({ model: "native", some_vendor_field: { kept: true } });
  });
});
