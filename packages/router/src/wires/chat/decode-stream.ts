import type { Transformer } from "node:stream/web";
import type { StreamPart, Usage } from "../../ir.js";
import { isObject, type JsonObject, optionalString, parseObject } from "../../json.js";
import type { SseEvent } from "../../sse.js";
import { malformedChunkPart, truncatedStreamPart, upstreamErrorPart } from "../../upstream-error.js";
import { decodeChatFinishReason } from "./finish-reason.js";
import { decodeChatUsage } from "./usage.js";

interface ToolState {
  index: number;
  id: string | undefined;
  name: string | undefined;
  started: boolean;
  /** Arguments that arrived before the name did; sent on once the call can start. */
  pending: string;
}

/**
 * Chat-wire chunks to stream parts. Tool calls are keyed by their `index` in `delta.tool_calls`. The finish reason
 * arrives before the usage chunk (always asked for upstream), so the finish part waits for `[DONE]`, the terminal
 * event: a stream that stops before it may have lost its usage, and ends in an error part.
 */
/** As a TransformStream, for web-stream pipelines. */
export function decodeChatStream(): TransformStream<SseEvent, StreamPart> {
  return new TransformStream(decodeChatStreamTransformer());
}

/** The transformer itself: the router's proxy runs it synchronously (it only ever calls `enqueue`). */
export function decodeChatStreamTransformer(): Transformer<SseEvent, StreamPart> {
  const tools = new Map<number, ToolState>();
  let sink: TransformStreamDefaultController<StreamPart> | undefined;
  let textOpen = false;
  let toolCount = 0;
  let usage: Usage | undefined;
  let finishRaw: unknown;
  let finished = false;

  const emit = (part: StreamPart) => sink?.enqueue(part);
  const fail = (part: StreamPart) => {
    finished = true;
    emit(part);
  };
  const closeText = () => {
    if (!textOpen) return;
    textOpen = false;
    emit({ type: "text-end" });
  };
  const startTool = (tool: ToolState) => {
    if (tool.started) return;
    tool.started = true;
    emit({ type: "tool-call-start", index: tool.index, id: tool.id ?? `call_${tool.index}`, name: tool.name ?? "" });
    if (tool.pending !== "") emit({ type: "tool-call-delta", index: tool.index, json: tool.pending });
    tool.pending = "";
  };
  const endTools = () => {
    for (const tool of [...tools.values()].sort((left, right) => left.index - right.index)) {
      startTool(tool);
      emit({ type: "tool-call-end", index: tool.index });
    }
    tools.clear();
  };
  const end = () => {
    closeText();
    endTools();
    if (usage !== undefined) emit({ type: "usage", usage });
    finished = true;
    emit({ type: "finish", reason: decodeChatFinishReason(finishRaw, toolCount > 0) });
  };

  const toolCallDelta = (call: JsonObject, position: number) => {
    const key = typeof call.index === "number" ? call.index : position;
    let tool = tools.get(key);
    if (tool === undefined) {
      closeText();
      tool = { index: toolCount++, id: undefined, name: undefined, started: false, pending: "" };
      tools.set(key, tool);
    }
    const callFunction = isObject(call.function) ? call.function : {};
    if (!tool.started) {
      tool.id ??= optionalString(call.id) || undefined;
      tool.name ??= optionalString(callFunction.name) || undefined;
    }
    const json = optionalString(callFunction.arguments) ?? "";
    if (tool.name !== undefined) startTool(tool);
    if (json === "") return;
    if (tool.started) emit({ type: "tool-call-delta", index: tool.index, json });
    else tool.pending += json;
  };

  const handle = (chunk: JsonObject) => {
    if (chunk.error !== undefined && chunk.error !== null) return fail(upstreamErrorPart(chunk));
    const reported = decodeChatUsage(chunk.usage);
    if (reported !== undefined) usage = reported;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    // Only the first choice is relayed; the router never asks for n > 1.
    const choice = choices.find((entry: unknown) => isObject(entry) && (entry.index ?? 0) === 0);
    if (!isObject(choice)) return;
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = optionalString(delta.reasoning_content) ?? optionalString(delta.reasoning) ?? "";
    if (reasoning !== "") emit({ type: "reasoning-delta", text: reasoning });
    const text = optionalString(delta.content) ?? "";
    if (text !== "") {
      if (!textOpen) emit({ type: "text-start" });
      textOpen = true;
      emit({ type: "text-delta", text });
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const [position, call] of delta.tool_calls.entries()) if (isObject(call)) toolCallDelta(call, position);
    }
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
      finishRaw = choice.finish_reason;
      closeText();
      endTools();
    }
  };

  return {
    start(controller) {
      sink = controller;
    },
    transform(event) {
      if (finished) return;
      if (event.data.trim() === "[DONE]") return end();
      const chunk = parseObject(event.data);
      if (chunk === undefined) return fail(malformedChunkPart());
      handle(chunk);
    },
    flush() {
      if (!finished) fail(truncatedStreamPart());
    },
  };
}
