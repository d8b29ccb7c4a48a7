import { randomId } from "../../ids.js";
import type { Reply } from "../../ir.js";
import { argumentsToCustomInput } from "../custom-tools.js";
import type { EncodeOptions } from "../encode-options.js";
import { encodeResponsesFinishReason } from "./finish-reason.js";
import type { ResponsesOutputItem, ResponsesResponse } from "./responses-api.js";
import { encodeResponsesUsage } from "./usage.js";

/** A reply to a one-shot responses-wire response body. */
export function encodeResponsesResponse(reply: Reply, options: EncodeOptions): ResponsesResponse {
  const newId = options.newId ?? randomId;
  const customToolNames = options.customToolNames ?? new Set<string>();
  const output: ResponsesOutputItem[] = [];
  for (const part of reply.content) {
    switch (part.type) {
      case "text": {
        const last = output.at(-1);
        const content = { type: "output_text" as const, text: part.text, annotations: [] };
        if (last?.type === "message") last.content.push(content);
        else
          output.push({
            type: "message",
            id: newId("msg"),
            status: "completed",
            role: "assistant",
            content: [content],
          });
        break;
      }
      case "reasoning":
        output.push({ type: "reasoning", id: newId("rs"), summary: [{ type: "summary_text", text: part.text }] });
        break;
      case "tool-call":
        if (customToolNames.has(part.name)) {
          const input = argumentsToCustomInput(part.argumentsJson);
          output.push({ type: "custom_tool_call", id: newId("ctc"), call_id: part.id, name: part.name, input });
        } else {
          output.push({
            type: "function_call",
            id: newId("fc"),
            status: "completed",
            call_id: part.id,
            name: part.name,
            arguments: part.argumentsJson,
          });
        }
        break;
      default: {
        const _exhaustive: never = part;
        throw new Error(`unknown reply part ${JSON.stringify(_exhaustive)}`);
      }
    }
  }
  const { status, incompleteDetails } = encodeResponsesFinishReason(reply.finish.unified);
  return {
    id: newId("resp"),
    object: "response",
    created_at: Math.floor((options.now ?? Date.now)() / 1000),
    status,
    model: options.model,
    output,
    usage: reply.usage === undefined ? null : encodeResponsesUsage(reply.usage),
    error: status === "failed" ? { code: "upstream_error", message: "upstream finished with an error" } : null,
    incomplete_details: incompleteDetails,
  };
}
