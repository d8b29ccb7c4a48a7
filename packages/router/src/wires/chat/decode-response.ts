import type { Reply, ReplyPart } from "../../ir.js";
import { isObject, optionalString, requireArray, requireObject } from "../../json.js";
import { decodeChatFinishReason } from "./finish-reason.js";
import { decodeChatUsage } from "./usage.js";

/** A one-shot chat-wire completion body to a reply (the first choice). */
export function decodeChatResponse(body: unknown): Reply {
  const completion = requireObject(body, "response body");
  const choice = requireArray(completion.choices, "choices").find(isObject);
  const message = isObject(choice?.message) ? choice.message : {};
  const content: ReplyPart[] = [];
  const reasoning = optionalString(message.reasoning_content) ?? optionalString(message.reasoning) ?? "";
  if (reasoning !== "") content.push({ type: "reasoning", text: reasoning });
  const text = optionalString(message.content) ?? optionalString(message.refusal) ?? "";
  if (text !== "") content.push({ type: "text", text });
  for (const entry of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isObject(entry)) continue;
    const callFunction = isObject(entry.function) ? entry.function : {};
    content.push({
      type: "tool-call",
      id: optionalString(entry.id) ?? "",
      name: optionalString(callFunction.name) ?? "",
      argumentsJson: optionalString(callFunction.arguments) ?? "",
    });
  }
  const hasToolCalls = content.some((part) => part.type === "tool-call");
  const reply: Reply = { content, finish: decodeChatFinishReason(choice?.finish_reason, hasToolCalls) };
  const usage = decodeChatUsage(completion.usage);
  if (usage !== undefined) reply.usage = usage;
  return reply;
}
