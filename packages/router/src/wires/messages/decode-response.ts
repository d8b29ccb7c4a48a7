import type { Reply, ReplyPart } from "../../ir.js";
import { isObject, optionalString, requireArray, requireObject } from "../../json.js";
import { decodeMessagesFinishReason } from "./finish-reason.js";
import { decodeMessagesUsage } from "./usage.js";

/** A one-shot messages-wire response body to a reply. */
export function decodeMessagesResponse(body: unknown): Reply {
  const message = requireObject(body, "response body");
  const content: ReplyPart[] = [];
  for (const block of requireArray(message.content ?? [], "content")) {
    if (!isObject(block)) continue;
    switch (block.type) {
      case "text": {
        const text = optionalString(block.text) ?? "";
        if (text !== "") content.push({ type: "text", text });
        break;
      }
      case "thinking": {
        const thinking = optionalString(block.thinking) ?? "";
        if (thinking !== "") content.push({ type: "reasoning", text: thinking });
        break;
      }
      case "tool_use":
        content.push({
          type: "tool-call",
          id: optionalString(block.id) ?? "",
          name: optionalString(block.name) ?? "",
          argumentsJson: JSON.stringify(isObject(block.input) ? block.input : {}),
        });
        break;
      default:
        break; // redacted thinking, server tools and their results
    }
  }
  const hasToolCalls = content.some((part) => part.type === "tool-call");
  const reply: Reply = { content, finish: decodeMessagesFinishReason(message.stop_reason, hasToolCalls) };
  const usage = decodeMessagesUsage(message.usage);
  if (usage !== undefined) reply.usage = usage;
  return reply;
}
