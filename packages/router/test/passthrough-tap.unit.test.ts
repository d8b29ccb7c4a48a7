import { describe, expect, it } from "vitest";
import { PassthroughTap } from "../src/passthrough-tap.js";
import { TRUNCATED_STREAM_MESSAGE } from "../src/upstream-error.js";

const encoder = new TextEncoder();

/** Feeds `text` in pieces of `size` bytes, so events and UTF-8 characters split across chunks. */
function feed(tap: PassthroughTap, text: string, size: number): void {
  const bytes = encoder.encode(text);
  for (let offset = 0; offset < bytes.length; offset += size) tap.push(bytes.subarray(offset, offset + size));
  tap.end();
}

const chat = [
  'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"héllo"}}]}',
  'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":3},"completion_tokens_details":{"reasoning_tokens":2}}}',
  "data: [DONE]",
].join("\n\n");

const messages = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m1","usage":{"input_tokens":20,"cache_read_input_tokens":5,"output_tokens":1}}}',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}',
  'event: message_stop\ndata: {"type":"message_stop"}',
].join("\n\n");

const responses = [
  'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1"}}',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":1,"delta":"hi"}',
  'event: response.completed\ndata: {"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","usage":{"input_tokens":30,"input_tokens_details":{"cached_tokens":4},"output_tokens":8,"output_tokens_details":{"reasoning_tokens":1}}}}',
].join("\n\n");

describe("passthrough tap (docs/router.md, 'Passthrough': streamed bytes relayed unchanged while a tap parses usage for the ledger)", () => {
  for (const size of [1, 7, 4096]) {
    it(`reads usage and the terminal event of each wire, chunks of ${size} bytes`, () => {
      const chatTap = new PassthroughTap("chat");
      feed(chatTap, `${chat}\n\n`, size);
      expect(chatTap.failure).toBeUndefined();
      expect(chatTap.usage).toEqual({ input: 11, cachedInput: 3, output: 7, reasoning: 2 });

      const messagesTap = new PassthroughTap("messages");
      feed(messagesTap, `${messages}\n\n`, size);
      expect(messagesTap.failure).toBeUndefined();
      expect(messagesTap.usage).toMatchObject({ output: 9, cachedInput: 5 });
      expect(messagesTap.usage?.input).toBeGreaterThanOrEqual(20);

      const responsesTap = new PassthroughTap("responses");
      feed(responsesTap, `${responses}\n\n`, size);
      expect(responsesTap.failure).toBeUndefined();
      expect(responsesTap.usage).toEqual({ input: 30, cachedInput: 4, output: 8, reasoning: 1 });
      expect(responsesTap.relayed).toEqual({ responseId: "resp_1", lastSequence: 2 });
    });
  }

  it("a stream cut before its terminal event is truncated, and usage seen so far is kept", () => {
    const chatTap = new PassthroughTap("chat");
    feed(chatTap, chat.slice(0, chat.indexOf("data: [DONE]")), 13);
    expect(chatTap.truncated).toBe(true);
    expect(chatTap.failure?.message).toBe(TRUNCATED_STREAM_MESSAGE);
    expect(chatTap.usage?.output).toBe(7);
    const messagesTap = new PassthroughTap("messages");
    feed(messagesTap, messages.slice(0, messages.indexOf("event: message_stop")), 5);
    expect(messagesTap.truncated).toBe(true);
  });

  it("the upstream's own error event and a malformed chunk are failures, not truncation", () => {
    const messagesTap = new PassthroughTap("messages");
    feed(
      messagesTap,
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"secret words"}}\n\n',
      9,
    );
    expect(messagesTap.failure?.message).toContain("overloaded_error");
    expect(messagesTap.failure?.message).not.toContain("secret words");
    expect(messagesTap.truncated).toBe(false);
    const chatTap = new PassthroughTap("chat");
    feed(chatTap, "data: {not json\n\n", 4);
    expect(chatTap.failure).toBeDefined();
    expect(chatTap.truncated).toBe(false);
  });
});
