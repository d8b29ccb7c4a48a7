import type { Reply, ReplyPart } from "../../ir.js";
import { isObject, optionalString, requireArray, requireObject } from "../../json.js";
import { customInputToArguments } from "../custom-tools.js";
import { decodeResponsesFinishReason } from "./finish-reason.js";
import { decodeResponsesUsage } from "./usage.js";

/** A one-shot responses-wire response body to a reply. */
export function decodeResponsesResponse(body: unknown): Reply {
  const response = requireObject(body, "response body");
  const content: ReplyPart[] = [];
  for (const entry of requireArray(response.output ?? [], "output")) {
    if (!isObject(entry)) continue;
    switch (entry.type) {
      case "message":
        for (const part of Array.isArray(entry.content) ? entry.content : []) {
          if (!isObject(part)) continue;
          const text = part.type === "refusal" ? optionalString(part.refusal) : optionalString(part.text);
          if (text !== undefined && text !== "") content.push({ type: "text", text });
        }
        break;
      case "function_call":
        content.push({
          type: "tool-call",
          id: optionalString(entry.call_id) ?? "",
          name: optionalString(entry.name) ?? "",
          argumentsJson: optionalString(entry.arguments) ?? "",
        });
        break;
      case "custom_tool_call":
        content.push({
          type: "tool-call",
          id: optionalString(entry.call_id) ?? "",
          name: optionalString(entry.name) ?? "",
          argumentsJson: customInputToArguments(optionalString(entry.input) ?? ""),
        });
        break;
      case "reasoning": {
        const summary = Array.isArray(entry.summary) ? entry.summary : [];
        const text = summary
          .map((part: unknown) => (isObject(part) ? (optionalString(part.text) ?? "") : ""))
          .join("\n\n");
        if (text !== "") content.push({ type: "reasoning", text });
        break;
      }
      default:
        break; // built-in tool activity has no counterpart on other wires
    }
  }
  const hasToolCalls = content.some((part) => part.type === "tool-call");
  const incompleteReason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
  const reply: Reply = {
    content,
    finish: decodeResponsesFinishReason(response.status ?? "completed", incompleteReason, hasToolCalls),
  };
  const usage = decodeResponsesUsage(response.usage);
  if (usage !== undefined) reply.usage = usage;
  return reply;
}
