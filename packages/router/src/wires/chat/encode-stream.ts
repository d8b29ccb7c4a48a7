import type { Transformer } from "node:stream/web";
import { randomId } from "../../ids.js";
import type { FinishReason, StreamPart } from "../../ir.js";
import { encodeSseEvent, jsonEvent } from "../../sse.js";
import type { EncodeOptions } from "../encode-options.js";
import { type ContentPart, WireStream } from "../stream-encoder.js";
import type { ChatCompletionChunk, ChatErrorChunk } from "./chat-api.js";
import { encodeChatFinishReason } from "./finish-reason.js";
import { encodeChatUsage } from "./usage.js";

type Delta = ChatCompletionChunk["choices"][number]["delta"];

/**
 * Stream parts to chat-wire SSE frames (docs/router.md, "Stream framing written to the client"):
 * `chat.completion.chunk` objects, a final usage chunk when the client asked for one, then `data: [DONE]`. A failure
 * ends the stream with an error chunk and no `[DONE]`.
 */
/** As a TransformStream, for web-stream pipelines. */
export function encodeChatStream(options: EncodeOptions): TransformStream<StreamPart, string> {
  return new TransformStream(encodeChatStreamTransformer(options));
}

/** The transformer itself: the router's proxy runs it synchronously (it only ever calls `enqueue`). */
export function encodeChatStreamTransformer(options: EncodeOptions): Transformer<StreamPart, string> {
  const id = (options.newId ?? randomId)("chatcmpl");
  const created = Math.floor((options.now ?? Date.now)() / 1000);
  const chatIndexByPart = new Map<number, number>();
  const stream = new WireStream();
  let sawToolCall = false;

  const chunk = (choices: ChatCompletionChunk["choices"], extra: Partial<ChatCompletionChunk> = {}) => {
    const body: ChatCompletionChunk = {
      id,
      object: "chat.completion.chunk",
      created,
      model: options.model,
      choices,
      ...extra,
    };
    stream.emit(jsonEvent(body));
  };
  const delta = (value: Delta) => chunk([{ index: 0, delta: value, finish_reason: null }]);
  const fail = (code: string, message: string) => {
    const body: ChatErrorChunk = { error: { message, type: code, code } };
    stream.emit(jsonEvent(body));
  };
  const end = (reason: FinishReason) => {
    if (reason.unified === "error") return fail("upstream_error", "upstream finished with an error");
    // A tool-call turn that the upstream called a plain stop still has to read as one to a chat client.
    const unified = reason.unified === "stop" && sawToolCall ? "tool_calls" : reason.unified;
    chunk([{ index: 0, delta: {}, finish_reason: encodeChatFinishReason(unified) }]);
    const { usage } = stream;
    if (options.includeUsage === true && usage !== undefined) chunk([], { usage: encodeChatUsage(usage) });
    stream.emit(encodeSseEvent({ data: "[DONE]" }));
  };

  const content = (part: ContentPart) => {
    switch (part.type) {
      case "text-start":
      case "text-end":
      case "tool-call-end":
        return; // the chat wire has no item boundaries
      case "text-delta":
        return delta({ content: part.text });
      case "reasoning-delta":
        // Not in the chat-completions schema, but the field reasoning servers use and clients read.
        return delta({ reasoning_content: part.text });
      case "tool-call-start": {
        sawToolCall = true;
        const index = chatIndexByPart.size;
        chatIndexByPart.set(part.index, index);
        const call = { index, id: part.id, type: "function" as const, function: { name: part.name, arguments: "" } };
        return delta({ tool_calls: [call] });
      }
      case "tool-call-delta": {
        const index = chatIndexByPart.get(part.index);
        if (index === undefined) return;
        return delta({ tool_calls: [{ index, function: { arguments: part.json } }] });
      }
      default: {
        const _exhaustive: never = part;
        throw new Error(`unknown stream part ${JSON.stringify(_exhaustive)}`);
      }
    }
  };

  return stream.transformer({
    open: () => delta({ role: "assistant", content: "" }),
    content,
    end,
    fail,
  });
}
