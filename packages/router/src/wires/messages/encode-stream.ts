import type { Transformer } from "node:stream/web";
import { randomId } from "../../ids.js";
import type { FinishReason, StreamPart } from "../../ir.js";
import { namedJsonEvent } from "../../sse.js";
import type { EncodeOptions } from "../encode-options.js";
import { type ContentPart, WireStream } from "../stream-encoder.js";
import { encodeMessagesFinishReason } from "./finish-reason.js";
import type { MessagesStreamEvent } from "./messages-api.js";
import { encodeMessagesUsage } from "./usage.js";

/**
 * Stream parts to messages-wire SSE frames (docs/router.md, "Stream framing written to the client"): `message_start`,
 * per content block `content_block_start`, deltas and `content_block_stop`, then `message_delta` and `message_stop`; a
 * failure ends the stream with an `error` event. `message_start` waits for the first content so that input usage,
 * when the upstream reports it up front, can go in it.
 */
/** As a TransformStream, for web-stream pipelines. */
export function encodeMessagesStream(options: EncodeOptions): TransformStream<StreamPart, string> {
  return new TransformStream(encodeMessagesStreamTransformer(options));
}

/** The transformer itself: the router's proxy runs it synchronously (it only ever calls `enqueue`). */
export function encodeMessagesStreamTransformer(options: EncodeOptions): Transformer<StreamPart, string> {
  const messageId = (options.newId ?? randomId)("msg");
  const toolBlocks = new Map<number, number>();
  const stream = new WireStream();
  let started = false;
  let nextBlock = 0;
  let textBlock: number | undefined;
  let reasoningBlock: number | undefined;
  let sawToolCall = false;

  const send = (event: MessagesStreamEvent) => stream.emit(namedJsonEvent(event.type, event));
  const wireUsage = () =>
    stream.usage === undefined ? { input_tokens: 0, output_tokens: 0 } : encodeMessagesUsage(stream.usage);
  const ensureStarted = () => {
    if (started) return;
    started = true;
    send({
      type: "message_start",
      message: {
        id: messageId,
        type: "message",
        role: "assistant",
        model: options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: wireUsage(),
      },
    });
  };
  const openBlock = (contentBlock: Extract<MessagesStreamEvent, { type: "content_block_start" }>["content_block"]) => {
    ensureStarted();
    const index = nextBlock++;
    send({ type: "content_block_start", index, content_block: contentBlock });
    return index;
  };
  const stopBlock = (index: number | undefined) => {
    if (index !== undefined) send({ type: "content_block_stop", index });
  };
  const closeText = () => {
    stopBlock(textBlock);
    textBlock = undefined;
  };
  const closeReasoning = () => {
    stopBlock(reasoningBlock);
    reasoningBlock = undefined;
  };
  const closeAll = () => {
    closeReasoning();
    closeText();
    for (const [, index] of [...toolBlocks.entries()].sort(([left], [right]) => left - right)) stopBlock(index);
    toolBlocks.clear();
  };
  const fail = (code: string, message: string) => {
    send({ type: "error", error: { type: code, message } });
  };
  const end = (reason: FinishReason) => {
    if (reason.unified === "error") return fail("upstream_error", "upstream finished with an error");
    ensureStarted();
    closeAll();
    const stopReason = encodeMessagesFinishReason(reason, sawToolCall);
    send({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: wireUsage() });
    send({ type: "message_stop" });
  };

  const content = (part: ContentPart) => {
    switch (part.type) {
      case "text-start":
        closeReasoning();
        closeText();
        textBlock = openBlock({ type: "text", text: "" });
        return;
      case "text-delta":
        textBlock ??= openBlock({ type: "text", text: "" });
        return send({ type: "content_block_delta", index: textBlock, delta: { type: "text_delta", text: part.text } });
      case "text-end":
        return closeText();
      case "reasoning-delta":
        reasoningBlock ??= openBlock({ type: "thinking", thinking: "", signature: "" });
        return send({
          type: "content_block_delta",
          index: reasoningBlock,
          delta: { type: "thinking_delta", thinking: part.text },
        });
      case "tool-call-start":
        sawToolCall = true;
        closeReasoning();
        closeText();
        toolBlocks.set(part.index, openBlock({ type: "tool_use", id: part.id, name: part.name, input: {} }));
        return;
      case "tool-call-delta": {
        const index = toolBlocks.get(part.index);
        if (index === undefined) return;
        return send({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: part.json },
        });
      }
      case "tool-call-end":
        stopBlock(toolBlocks.get(part.index));
        toolBlocks.delete(part.index);
        return;
      default: {
        const _exhaustive: never = part;
        throw new Error(`unknown stream part ${JSON.stringify(_exhaustive)}`);
      }
    }
  };

  return stream.transformer({
    content,
    end,
    fail,
  });
}
