import type { Transformer } from "node:stream/web";
import type { StreamPart } from "../../ir.js";
import { isObject, type JsonObject, optionalString, parseObject } from "../../json.js";
import type { SseEvent } from "../../sse.js";
import { malformedChunkPart, truncatedStreamPart, upstreamErrorPart } from "../../upstream-error.js";
import { decodeResponsesFinishReason } from "./finish-reason.js";
import { decodeResponsesUsage } from "./usage.js";

interface ToolItem {
  kind: "tool";
  index: number;
  /** What the deltas carried so far, in the wire's own form (arguments JSON, or a custom tool's free text). */
  streamed: string;
  custom: boolean;
}

type ItemState =
  | { kind: "text"; emitted: string }
  | ToolItem
  | { kind: "reasoning"; summaryIndex: number }
  | { kind: "ignored" };

/** A custom tool's free text, as it appears inside the JSON string of `{"input": ...}`. */
const escapeJsonText = (text: string): string => JSON.stringify(text).slice(1, -1);

/**
 * Responses-wire stream events to stream parts. Output items are tracked by `output_index`. A custom tool call's
 * free text is re-encoded on the fly as the JSON string inside `{"input": ...}`. The terminal events are
 * `response.completed`, `response.incomplete`, `response.failed` and `error`; a stream that ends before one of them
 * ends in an error part.
 */
/** As a TransformStream, for web-stream pipelines. */
export function decodeResponsesStream(): TransformStream<SseEvent, StreamPart> {
  return new TransformStream(decodeResponsesStreamTransformer());
}

/** The transformer itself: the router's proxy runs it synchronously (it only ever calls `enqueue`). */
export function decodeResponsesStreamTransformer(): Transformer<SseEvent, StreamPart> {
  const items = new Map<number, ItemState>();
  const outputIndexByItemId = new Map<string, number>();
  let sink: TransformStreamDefaultController<StreamPart> | undefined;
  let textOpen = false;
  let textPosition: number | undefined;
  let toolCount = 0;
  let finished = false;

  const emit = (part: StreamPart) => sink?.enqueue(part);
  const fail = (part: StreamPart) => {
    finished = true;
    emit(part);
  };

  const closeText = () => {
    if (!textOpen) return;
    textOpen = false;
    textPosition = undefined;
    emit({ type: "text-end" });
  };
  const textDelta = (position: number | undefined, text: string) => {
    if (text === "") return;
    if (!textOpen || textPosition !== position) {
      closeText();
      textOpen = true;
      textPosition = position;
      emit({ type: "text-start" });
    }
    const state = position === undefined ? undefined : items.get(position);
    if (state?.kind === "text") state.emitted += text;
    emit({ type: "text-delta", text });
  };

  const toolDelta = (tool: ToolItem, text: string) => {
    if (text === "") return;
    tool.streamed += text;
    emit({ type: "tool-call-delta", index: tool.index, json: tool.custom ? escapeJsonText(text) : text });
  };
  /** Done events repeat the whole value; only what the deltas did not already carry is sent on. */
  const toolRemainder = (tool: ToolItem, whole: unknown) => {
    if (typeof whole === "string" && whole.startsWith(tool.streamed))
      toolDelta(tool, whole.slice(tool.streamed.length));
  };
  const startTool = (item: JsonObject, custom: boolean): ToolItem => {
    const tool: ToolItem = { kind: "tool", index: toolCount++, streamed: "", custom };
    const id = optionalString(item.call_id) ?? optionalString(item.id) ?? `call_${tool.index}`;
    emit({ type: "tool-call-start", index: tool.index, id, name: optionalString(item.name) ?? "" });
    if (custom) emit({ type: "tool-call-delta", index: tool.index, json: '{"input":"' });
    toolRemainder(tool, custom ? item.input : item.arguments);
    return tool;
  };
  const endTool = (tool: ToolItem) => {
    if (tool.custom) emit({ type: "tool-call-delta", index: tool.index, json: '"}' });
    emit({ type: "tool-call-end", index: tool.index });
  };

  const addItem = (position: number, item: JsonObject) => {
    if (typeof item.id === "string") outputIndexByItemId.set(item.id, position);
    switch (item.type) {
      case "message":
        return items.set(position, { kind: "text", emitted: "" });
      case "function_call":
      case "custom_tool_call":
        closeText();
        return items.set(position, startTool(item, item.type === "custom_tool_call"));
      case "reasoning":
        return items.set(position, { kind: "reasoning", summaryIndex: 0 });
      default:
        return items.set(position, { kind: "ignored" });
    }
  };
  const finishItem = (position: number, item: JsonObject) => {
    const state = items.get(position);
    if (state?.kind === "text") {
      const whole = messageText(item);
      if (whole.startsWith(state.emitted)) textDelta(position, whole.slice(state.emitted.length));
      if (textOpen && textPosition === position) closeText();
    } else if (state?.kind === "tool") {
      toolRemainder(state, state.custom ? item.input : item.arguments);
      endTool(state);
    }
    items.delete(position);
  };
  const reasoningDelta = (position: number | undefined, summaryIndex: number, text: string) => {
    if (text === "") return;
    const state = position === undefined ? undefined : items.get(position);
    // Summary parts are separate paragraphs; keep them apart once flattened into one reasoning text.
    if (state?.kind === "reasoning" && summaryIndex !== state.summaryIndex) {
      state.summaryIndex = summaryIndex;
      emit({ type: "reasoning-delta", text: "\n\n" });
    }
    emit({ type: "reasoning-delta", text });
  };
  const end = (response: JsonObject, defaultStatus: string) => {
    closeText();
    for (const position of [...items.keys()].sort((left, right) => left - right)) {
      const state = items.get(position);
      if (state?.kind === "tool") endTool(state);
      items.delete(position);
    }
    const usage = decodeResponsesUsage(response.usage);
    if (usage !== undefined) emit({ type: "usage", usage });
    const incompleteReason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    const reason = decodeResponsesFinishReason(response.status ?? defaultStatus, incompleteReason, toolCount > 0);
    finished = true;
    emit({ type: "finish", reason });
  };

  const handle = (data: JsonObject, type: string | undefined) => {
    const outputIndex =
      typeof data.output_index === "number"
        ? data.output_index
        : typeof data.item_id === "string"
          ? outputIndexByItemId.get(data.item_id)
          : undefined;
    const tool = () => {
      const state = outputIndex === undefined ? undefined : items.get(outputIndex);
      return state?.kind === "tool" ? state : undefined;
    };
    const response = isObject(data.response) ? data.response : {};
    switch (type) {
      case "response.output_item.added":
        return addItem(outputIndex ?? items.size, isObject(data.item) ? data.item : {});
      case "response.output_item.done":
        if (outputIndex !== undefined) finishItem(outputIndex, isObject(data.item) ? data.item : {});
        return;
      case "response.output_text.delta":
      case "response.refusal.delta":
        return textDelta(outputIndex, optionalString(data.delta) ?? "");
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta": {
        const state = tool();
        if (state !== undefined) toolDelta(state, optionalString(data.delta) ?? "");
        return;
      }
      case "response.function_call_arguments.done":
      case "response.custom_tool_call_input.done": {
        const state = tool();
        if (state !== undefined) toolRemainder(state, state.custom ? data.input : data.arguments);
        return;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const summaryIndex = typeof data.summary_index === "number" ? data.summary_index : 0;
        return reasoningDelta(outputIndex, summaryIndex, optionalString(data.delta) ?? "");
      }
      case "response.completed":
        return end(response, "completed");
      case "response.incomplete":
        return end(response, "incomplete");
      case "response.failed":
        return fail(upstreamErrorPart(response));
      case "error":
        return fail(upstreamErrorPart(data));
      default:
        return; // lifecycle events (created, in_progress, content_part.*, text .done) carry nothing new
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

function messageText(item: JsonObject): string {
  if (!Array.isArray(item.content)) return "";
  return item.content
    .map((part: unknown) => (isObject(part) && part.type === "output_text" ? (optionalString(part.text) ?? "") : ""))
    .join("");
}
