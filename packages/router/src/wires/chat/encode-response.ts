import { randomId } from "../../ids.js";
import type { Reply } from "../../ir.js";
import type { EncodeOptions } from "../encode-options.js";
import type { ChatCompletion, ChatToolCall } from "./chat-api.js";
import { encodeChatFinishReason } from "./finish-reason.js";
import { encodeChatUsage } from "./usage.js";

/** A reply to a one-shot chat-wire completion body. */
export function encodeChatResponse(reply: Reply, options: EncodeOptions): ChatCompletion {
  let text = "";
  let reasoning = "";
  const toolCalls: ChatToolCall[] = [];
  for (const part of reply.content) {
    switch (part.type) {
      case "text":
        text += part.text;
        break;
      case "reasoning":
        reasoning += part.text;
        break;
      case "tool-call":
        toolCalls.push({ id: part.id, type: "function", function: { name: part.name, arguments: part.argumentsJson } });
        break;
      default: {
        const _exhaustive: never = part;
        throw new Error(`unknown reply part ${JSON.stringify(_exhaustive)}`);
      }
    }
  }
  const unified = reply.finish.unified;
  // `error` has no finish reason on this wire; the HTTP edge answers a failed reply with an error body instead.
  const finishReason = unified === "error" ? "stop" : encodeChatFinishReason(unified);
  const completion: ChatCompletion = {
    id: (options.newId ?? randomId)("chatcmpl"),
    object: "chat.completion",
    created: Math.floor((options.now ?? Date.now)() / 1000),
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && toolCalls.length > 0 ? null : text,
          ...(reasoning !== "" ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReason,
      },
    ],
  };
  if (reply.usage !== undefined) completion.usage = encodeChatUsage(reply.usage);
  return completion;
}
