import type { FinishReason, UnifiedFinishReason } from "../../ir.js";
import type { ChatFinishReason } from "./chat-api.js";

/**
 * `finish_reason` to the unified reason. A server that says `stop` after emitting tool calls still meant the
 * tool-call turn, so `hasToolCalls` wins over a plain stop.
 */
export function decodeChatFinishReason(raw: unknown, hasToolCalls: boolean): FinishReason {
  const value = typeof raw === "string" ? raw : null;
  switch (value) {
    case "length":
      return { unified: "length", raw: value };
    case "content_filter":
      return { unified: "content_filter", raw: value };
    case "tool_calls":
    case "function_call":
      return { unified: "tool_calls", raw: value };
    case "error":
      return { unified: "error", raw: value };
    default:
      return { unified: hasToolCalls ? "tool_calls" : "stop", raw: value };
  }
}

/** The unified reason as `finish_reason`; `error` has no finish reason, the chat wire ends it with an error chunk. */
export function encodeChatFinishReason(unified: Exclude<UnifiedFinishReason, "error">): ChatFinishReason {
  switch (unified) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "tool_calls":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default: {
      const _exhaustive: never = unified;
      throw new Error(`unknown finish reason ${String(_exhaustive)}`);
    }
  }
}
