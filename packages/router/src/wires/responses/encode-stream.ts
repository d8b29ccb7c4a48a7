import type { Transformer } from "node:stream/web";
import { randomId } from "../../ids.js";
import type { FinishReason, StreamPart } from "../../ir.js";
import { namedJsonEvent } from "../../sse.js";
import { argumentsToCustomInput } from "../custom-tools.js";
import type { EncodeOptions } from "../encode-options.js";
import { type ContentPart, WireStream } from "../stream-encoder.js";
import { encodeResponsesFinishReason } from "./finish-reason.js";
import type { ResponsesOutputItem, ResponsesResponse, ResponsesStreamEvent } from "./responses-api.js";
import { encodeResponsesUsage } from "./usage.js";

/** An event before the encoder numbers it. */
type UnnumberedEvent = ResponsesStreamEvent extends infer Event
  ? Event extends ResponsesStreamEvent
    ? Omit<Event, "sequence_number">
    : never
  : never;

interface OpenItem {
  outputIndex: number;
  itemId: string;
  text: string;
}

interface OpenTool {
  outputIndex: number;
  itemId: string;
  callId: string;
  name: string;
  argumentsJson: string;
  custom: boolean;
}

/**
 * Stream parts to responses-wire SSE frames (docs/router.md, "Stream framing written to the client"):
 * `response.created`,
 * `response.in_progress`, the added/delta/done events of each output item, then `response.completed`,
 * `response.incomplete` or `error` followed by `response.failed`. Every event carries `sequence_number`.
 */
/** As a TransformStream, for web-stream pipelines. */
export function encodeResponsesStream(options: EncodeOptions): TransformStream<StreamPart, string> {
  return new TransformStream(encodeResponsesStreamTransformer(options));
}

/** The transformer itself: the router's proxy runs it synchronously (it only ever calls `enqueue`). */
export function encodeResponsesStreamTransformer(options: EncodeOptions): Transformer<StreamPart, string> {
  const newId = options.newId ?? randomId;
  const customToolNames = options.customToolNames ?? new Set<string>();
  const responseId = newId("resp");
  const createdAt = Math.floor((options.now ?? Date.now)() / 1000);
  const output: ResponsesOutputItem[] = [];
  const tools = new Map<number, OpenTool>();
  const stream = new WireStream();
  let sequenceNumber = 0;
  let text: OpenItem | undefined;
  let reasoning: OpenItem | undefined;

  const send = (event: UnnumberedEvent) =>
    stream.emit(namedJsonEvent(event.type, { ...event, sequence_number: sequenceNumber++ }));

  const snapshot = (
    status: ResponsesResponse["status"],
    extra: Partial<ResponsesResponse> = {},
  ): ResponsesResponse => ({
    id: responseId,
    object: "response",
    created_at: createdAt,
    status,
    model: options.model,
    output: [...output],
    usage: stream.usage === undefined ? null : encodeResponsesUsage(stream.usage),
    error: null,
    incomplete_details: null,
    ...extra,
  });

  const addItem = (item: ResponsesOutputItem): number => {
    const outputIndex = output.length;
    output.push(item);
    send({ type: "response.output_item.added", output_index: outputIndex, item });
    return outputIndex;
  };
  const finishItem = (outputIndex: number, item: ResponsesOutputItem) => {
    output[outputIndex] = item;
    send({ type: "response.output_item.done", output_index: outputIndex, item });
  };

  const openText = (): OpenItem => {
    closeReasoning();
    const itemId = newId("msg");
    const outputIndex = addItem({ type: "message", id: itemId, status: "in_progress", role: "assistant", content: [] });
    const part = { type: "output_text" as const, text: "", annotations: [] };
    send({ type: "response.content_part.added", item_id: itemId, output_index: outputIndex, content_index: 0, part });
    text = { outputIndex, itemId, text: "" };
    return text;
  };
  const closeText = () => {
    if (text === undefined) return;
    const { outputIndex, itemId } = text;
    const part = { type: "output_text" as const, text: text.text, annotations: [] };
    const location = { item_id: itemId, output_index: outputIndex, content_index: 0 };
    send({ type: "response.output_text.done", ...location, text: text.text, logprobs: [] });
    send({ type: "response.content_part.done", ...location, part });
    finishItem(outputIndex, { type: "message", id: itemId, status: "completed", role: "assistant", content: [part] });
    text = undefined;
  };

  // Reasoning goes out as a reasoning item's summary text, the one place the responses wire shows reasoning.
  const openReasoning = (): OpenItem => {
    const itemId = newId("rs");
    const outputIndex = addItem({ type: "reasoning", id: itemId, summary: [] });
    const part = { type: "summary_text" as const, text: "" };
    send({
      type: "response.reasoning_summary_part.added",
      item_id: itemId,
      output_index: outputIndex,
      summary_index: 0,
      part,
    });
    reasoning = { outputIndex, itemId, text: "" };
    return reasoning;
  };
  const closeReasoning = () => {
    if (reasoning === undefined) return;
    const { outputIndex, itemId } = reasoning;
    const location = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
    const part = { type: "summary_text" as const, text: reasoning.text };
    send({ type: "response.reasoning_summary_text.done", ...location, text: reasoning.text });
    send({ type: "response.reasoning_summary_part.done", ...location, part });
    finishItem(outputIndex, { type: "reasoning", id: itemId, summary: [part] });
    reasoning = undefined;
  };

  const openTool = (index: number, callId: string, name: string) => {
    closeReasoning();
    const custom = customToolNames.has(name);
    const itemId = newId(custom ? "ctc" : "fc");
    const outputIndex = addItem(
      custom
        ? { type: "custom_tool_call", id: itemId, status: "in_progress", call_id: callId, name, input: "" }
        : { type: "function_call", id: itemId, status: "in_progress", call_id: callId, name, arguments: "" },
    );
    tools.set(index, { outputIndex, itemId, callId, name, argumentsJson: "", custom });
  };
  const closeTool = (index: number) => {
    const tool = tools.get(index);
    if (tool === undefined) return;
    tools.delete(index);
    const { outputIndex, itemId, callId, name, argumentsJson } = tool;
    if (tool.custom) {
      // A custom tool call is whole only here: its free text is the `input` field of the arguments
      // (docs/router.md, "Request mappings").
      const input = argumentsToCustomInput(argumentsJson);
      finishItem(outputIndex, {
        type: "custom_tool_call",
        id: itemId,
        status: "completed",
        call_id: callId,
        name,
        input,
      });
      return;
    }
    const location = { item_id: itemId, output_index: outputIndex };
    send({ type: "response.function_call_arguments.done", ...location, name, arguments: argumentsJson });
    const item = { id: itemId, status: "completed" as const, call_id: callId, name, arguments: argumentsJson };
    finishItem(outputIndex, { type: "function_call", ...item });
  };

  const closeAll = () => {
    closeReasoning();
    closeText();
    for (const index of [...tools.keys()].sort((left, right) => left - right)) closeTool(index);
  };
  // The `error` event is what the vendor's clients raise on (a `response.failed` alone reads as a finished, failed
  // response to them); `response.failed` then ends the stream for clients that wait for a terminal response event.
  const fail = (code: string, message: string) => {
    send({ type: "error", code, message, param: null });
    send({ type: "response.failed", response: snapshot("failed", { error: { code, message } }) });
  };
  const end = (reason: FinishReason) => {
    closeAll();
    const { status, incompleteDetails } = encodeResponsesFinishReason(reason.unified);
    switch (status) {
      case "completed":
        return send({ type: "response.completed", response: snapshot("completed") });
      case "incomplete":
        return send({
          type: "response.incomplete",
          response: snapshot("incomplete", { incomplete_details: incompleteDetails }),
        });
      default:
        return fail("upstream_error", "upstream finished with an error");
    }
  };

  const content = (part: ContentPart) => {
    switch (part.type) {
      case "text-start":
        closeText();
        openText();
        return;
      case "text-delta": {
        const open = text ?? openText();
        open.text += part.text;
        const location = { item_id: open.itemId, output_index: open.outputIndex, content_index: 0 };
        return send({ type: "response.output_text.delta", ...location, delta: part.text, logprobs: [] });
      }
      case "text-end":
        return closeText();
      case "reasoning-delta": {
        const open = reasoning ?? openReasoning();
        open.text += part.text;
        const location = { item_id: open.itemId, output_index: open.outputIndex, summary_index: 0 };
        return send({ type: "response.reasoning_summary_text.delta", ...location, delta: part.text });
      }
      case "tool-call-start":
        return openTool(part.index, part.id, part.name);
      case "tool-call-delta": {
        const tool = tools.get(part.index);
        if (tool === undefined) return;
        tool.argumentsJson += part.json;
        if (tool.custom) return;
        const location = { item_id: tool.itemId, output_index: tool.outputIndex };
        return send({ type: "response.function_call_arguments.delta", ...location, delta: part.json });
      }
      case "tool-call-end":
        return closeTool(part.index);
      default: {
        const _exhaustive: never = part;
        throw new Error(`unknown stream part ${JSON.stringify(_exhaustive)}`);
      }
    }
  };

  return stream.transformer({
    open() {
      send({ type: "response.created", response: snapshot("in_progress") });
      send({ type: "response.in_progress", response: snapshot("in_progress") });
    },
    content,
    end,
    fail,
  });
}
