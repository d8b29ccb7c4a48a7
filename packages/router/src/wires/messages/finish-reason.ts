import type { FinishReason } from "../../ir.js";
import type { MessagesStopReason } from "./messages-api.js";

/** `stop_reason` to the unified reason. */
export function decodeMessagesFinishReason(raw: unknown, hasToolCalls: boolean): FinishReason {
  const value = typeof raw === "string" ? raw : null;
  switch (value) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return { unified: "length", raw: value };
    case "tool_use":
      return { unified: "tool_calls", raw: value };
    case "refusal":
      return { unified: "content_filter", raw: value };
    default: // end_turn, stop_sequence, pause_turn
      return { unified: hasToolCalls ? "tool_calls" : "stop", raw: value };
  }
}

/**
 * The unified reason as `stop_reason`, one of the four docs/router.md, "Stream framing written to the client", allows.
 * A raw `stop_sequence` from a messages-wire upstream is kept; a filtered reply ends as `end_turn`, the wire's plain
 * stop.
 */
export function encodeMessagesFinishReason(reason: FinishReason, hasToolCalls: boolean): MessagesStopReason {
  switch (reason.unified) {
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "stop":
    case "content_filter":
    case "error":
      if (hasToolCalls) return "tool_use";
      return reason.raw === "stop_sequence" ? "stop_sequence" : "end_turn";
    default: {
      const _exhaustive: never = reason.unified;
      throw new Error(`unknown finish reason ${String(_exhaustive)}`);
    }
  }
}
