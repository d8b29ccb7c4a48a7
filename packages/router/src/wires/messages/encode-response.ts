import { randomId } from "../../ids.js";
import type { Reply } from "../../ir.js";
import { parseArguments } from "../../json.js";
import type { EncodeOptions } from "../encode-options.js";
import { encodeMessagesFinishReason } from "./finish-reason.js";
import type { MessagesResponse, MessagesResponseBlock } from "./messages-api.js";
import { encodeMessagesUsage } from "./usage.js";

/** A reply to a one-shot messages-wire response body. */
export function encodeMessagesResponse(reply: Reply, options: EncodeOptions): MessagesResponse {
  const content: MessagesResponseBlock[] = [];
  for (const part of reply.content) {
    switch (part.type) {
      case "text":
        if (part.text !== "") content.push({ type: "text", text: part.text });
        break;
      case "reasoning":
        content.push({ type: "thinking", thinking: part.text, signature: "" });
        break;
      case "tool-call":
        content.push({ type: "tool_use", id: part.id, name: part.name, input: parseArguments(part.argumentsJson) });
        break;
      default: {
        const _exhaustive: never = part;
        throw new Error(`unknown reply part ${JSON.stringify(_exhaustive)}`);
      }
    }
  }
  const hasToolCalls = content.some((block) => block.type === "tool_use");
  return {
    id: (options.newId ?? randomId)("msg"),
    type: "message",
    role: "assistant",
    model: options.model,
    content,
    stop_reason: encodeMessagesFinishReason(reply.finish, hasToolCalls),
    stop_sequence: null,
    usage: reply.usage === undefined ? { input_tokens: 0, output_tokens: 0 } : encodeMessagesUsage(reply.usage),
  };
}
