import type { Transformer } from "node:stream/web";
import type { StreamPart } from "../../ir.js";
import { isObject, type JsonObject, optionalString, parseObject } from "../../json.js";
import type { SseEvent } from "../../sse.js";
import { malformedChunkPart, truncatedStreamPart, upstreamErrorPart } from "../../upstream-error.js";
import { decodeMessagesFinishReason } from "./finish-reason.js";
import { decodeMessagesUsage } from "./usage.js";

type BlockState =
  | { kind: "text"; started: boolean }
  | { kind: "tool"; index: number; sawInput: boolean }
  | { kind: "reasoning" }
  | { kind: "ignored" };

/**
 * Messages-wire events to stream parts. Content blocks are tracked by their `index`; thinking deltas become
 * reasoning deltas, signatures and server-tool blocks are dropped. Usage is reported at `message_start` and again,
 * cumulatively, in `message_delta`. The terminal events are `message_stop` and `error`.
 */
/** As a TransformStream, for web-stream pipelines. */
export function decodeMessagesStream(): TransformStream<SseEvent, StreamPart> {
  return new TransformStream(decodeMessagesStreamTransformer());
}

/** The transformer itself: the router's proxy runs it synchronously (it only ever calls `enqueue`). */
export function decodeMessagesStreamTransformer(): Transformer<SseEvent, StreamPart> {
  const blocks = new Map<number, BlockState>();
  const usage: JsonObject = {};
  let sink: TransformStreamDefaultController<StreamPart> | undefined;
  let toolCount = 0;
  let stopReason: unknown = null;
  let finished = false;

  const emit = (part: StreamPart) => sink?.enqueue(part);
  const fail = (part: StreamPart) => {
    finished = true;
    emit(part);
  };
  const emitUsage = () => {
    const snapshot = decodeMessagesUsage(usage);
    if (snapshot !== undefined && Object.keys(usage).length > 0) emit({ type: "usage", usage: snapshot });
  };
  const mergeUsage = (reported: unknown) => {
    if (!isObject(reported)) return;
    for (const [key, value] of Object.entries(reported)) if (typeof value === "number") usage[key] = value;
  };

  const text = (block: BlockState | undefined, value: string) => {
    if (block?.kind !== "text" || value === "") return;
    if (!block.started) emit({ type: "text-start" });
    block.started = true;
    emit({ type: "text-delta", text: value });
  };
  const toolInput = (block: BlockState | undefined, json: string) => {
    if (block?.kind !== "tool" || json === "") return;
    block.sawInput = true;
    emit({ type: "tool-call-delta", index: block.index, json });
  };
  const stopBlock = (position: number) => {
    const block = blocks.get(position);
    blocks.delete(position);
    if (block?.kind === "text" && block.started) emit({ type: "text-end" });
    if (block?.kind === "tool") {
      // A tool without parameters streams no input at all; its arguments are still the empty object.
      if (!block.sawInput) emit({ type: "tool-call-delta", index: block.index, json: "{}" });
      emit({ type: "tool-call-end", index: block.index });
    }
  };

  const startBlock = (position: number, contentBlock: JsonObject) => {
    switch (contentBlock.type) {
      case "text": {
        const block: BlockState = { kind: "text", started: false };
        blocks.set(position, block);
        return text(block, optionalString(contentBlock.text) ?? "");
      }
      case "tool_use": {
        const block: BlockState = { kind: "tool", index: toolCount++, sawInput: false };
        blocks.set(position, block);
        const id = optionalString(contentBlock.id) ?? `toolu_${block.index}`;
        emit({ type: "tool-call-start", index: block.index, id, name: optionalString(contentBlock.name) ?? "" });
        const input = contentBlock.input;
        if (isObject(input) && Object.keys(input).length > 0) toolInput(block, JSON.stringify(input));
        return;
      }
      case "thinking": {
        blocks.set(position, { kind: "reasoning" });
        const thinking = optionalString(contentBlock.thinking) ?? "";
        if (thinking !== "") emit({ type: "reasoning-delta", text: thinking });
        return;
      }
      default:
        blocks.set(position, { kind: "ignored" }); // redacted thinking, server tools and their results
    }
  };

  const handle = (data: JsonObject, type: string | undefined) => {
    const position = typeof data.index === "number" ? data.index : -1;
    switch (type) {
      case "message_start": {
        const message = isObject(data.message) ? data.message : {};
        mergeUsage(message.usage);
        return emitUsage();
      }
      case "content_block_start":
        return startBlock(position, isObject(data.content_block) ? data.content_block : {});
      case "content_block_delta": {
        const delta = isObject(data.delta) ? data.delta : {};
        const block = blocks.get(position);
        if (delta.type === "text_delta") return text(block, optionalString(delta.text) ?? "");
        if (delta.type === "input_json_delta") return toolInput(block, optionalString(delta.partial_json) ?? "");
        if (delta.type === "thinking_delta" && block?.kind === "reasoning") {
          const thinking = optionalString(delta.thinking) ?? "";
          if (thinking !== "") emit({ type: "reasoning-delta", text: thinking });
        }
        return; // signature and citation deltas have no counterpart
      }
      case "content_block_stop":
        return stopBlock(position);
      case "message_delta":
        if (isObject(data.delta) && data.delta.stop_reason !== undefined) stopReason = data.delta.stop_reason;
        return mergeUsage(data.usage);
      case "message_stop":
        for (const open of [...blocks.keys()].sort((left, right) => left - right)) stopBlock(open);
        emitUsage();
        finished = true;
        return emit({ type: "finish", reason: decodeMessagesFinishReason(stopReason, toolCount > 0) });
      case "error":
        return fail(upstreamErrorPart(data));
      default:
        return; // ping and events added later
    }
  };

  return {
    start(controller) {
      sink = controller;
    },
    transform(event) {
      if (finished) return;
      const data = parseObject(event.data);
      if (data === undefined) return fail(malformedChunkPart());
      handle(data, optionalString(data.type) ?? event.event);
    },
    flush() {
      if (!finished) fail(truncatedStreamPart());
    },
  };
}
