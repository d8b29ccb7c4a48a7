import type { FinishReason, UnifiedFinishReason } from "../../ir.js";
import type { ResponsesResponse } from "./responses-api.js";

/**
 * The responses wire has no finish reason: a response is `completed`, `incomplete` (with a reason) or `failed`, and
 * a completed response that holds function calls is the tool-call turn. `raw` keeps the status or incomplete reason.
 */
export function decodeResponsesFinishReason(
  status: unknown,
  incompleteReason: unknown,
  hasToolCalls: boolean,
): FinishReason {
  if (status === "incomplete") {
    const raw = typeof incompleteReason === "string" ? incompleteReason : "incomplete";
    return { unified: raw === "content_filter" ? "content_filter" : "length", raw };
  }
  if (status === "failed" || status === "cancelled") return { unified: "error", raw: status };
  return { unified: hasToolCalls ? "tool_calls" : "stop", raw: typeof status === "string" ? status : null };
}

/** What ends a responses-wire reply for a unified reason. */
export function encodeResponsesFinishReason(unified: UnifiedFinishReason): {
  status: ResponsesResponse["status"];
  incompleteDetails: ResponsesResponse["incomplete_details"];
} {
  switch (unified) {
    case "stop":
    case "tool_calls":
      return { status: "completed", incompleteDetails: null };
    case "length":
      return { status: "incomplete", incompleteDetails: { reason: "max_output_tokens" } };
    case "content_filter":
      return { status: "incomplete", incompleteDetails: { reason: "content_filter" } };
    case "error":
      return { status: "failed", incompleteDetails: null };
    default: {
      const _exhaustive: never = unified;
      throw new Error(`unknown finish reason ${String(_exhaustive)}`);
    }
  }
}
