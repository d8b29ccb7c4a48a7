import type { DecodedRequest, ImagePart, Request, TextPart, Tool, ToolChoice } from "../../ir.js";
import {
  isObject,
  type JsonObject,
  optionalBoolean,
  optionalNumber,
  optionalString,
  requireArray,
  requireObject,
  requireString,
} from "../../json.js";
import { invalidRequest } from "../../translation-error.js";
import { ConversationBuilder } from "../conversation.js";
import { imageFromUrl } from "../images.js";

/** Chat-wire request body to the internal representation (docs/router.md, "Request mappings", chat row). */
export function decodeChatRequest(body: unknown): DecodedRequest {
  const request = requireObject(body, "request body");
  const conversation = new ConversationBuilder();
  for (const [position, entry] of requireArray(request.messages, "messages").entries()) {
    decodeMessage(requireObject(entry, `messages[${position}]`), conversation);
  }
  const decoded: Request = {
    model: optionalString(request.model) ?? "",
    messages: conversation.messages,
    tools: decodeTools(request.tools, conversation),
    stream: request.stream === true,
  };
  const system = conversation.system;
  if (system !== undefined) decoded.system = system;
  const toolChoice = decodeToolChoice(request.tool_choice);
  if (toolChoice !== undefined) decoded.toolChoice = toolChoice;
  const maxOutputTokens = optionalNumber(request.max_completion_tokens) ?? optionalNumber(request.max_tokens);
  if (maxOutputTokens !== undefined) decoded.maxOutputTokens = maxOutputTokens;
  const temperature = optionalNumber(request.temperature);
  if (temperature !== undefined) decoded.temperature = temperature;
  const topP = optionalNumber(request.top_p);
  if (topP !== undefined) decoded.topP = topP;
  const stop = typeof request.stop === "string" ? [request.stop] : request.stop;
  if (Array.isArray(stop) && stop.length > 0) decoded.stop = stop.map((entry) => requireString(entry, "stop"));
  const effort = optionalString(request.reasoning_effort);
  if (effort !== undefined) decoded.reasoningEffort = effort;
  const parallelToolCalls = optionalBoolean(request.parallel_tool_calls);
  if (parallelToolCalls !== undefined) decoded.parallelToolCalls = parallelToolCalls;
  return { request: decoded, warnings: conversation.warnings };
}

/** Whether a chat-wire client asked for the final usage chunk (`stream_options.include_usage`). */
export function chatRequestWantsUsage(body: unknown): boolean {
  return isObject(body) && isObject(body.stream_options) && body.stream_options.include_usage === true;
}

function decodeMessage(message: JsonObject, conversation: ConversationBuilder): void {
  switch (message.role) {
    case "system":
    case "developer":
      conversation.addSystem(textOf(contentParts(message.content, conversation)));
      return;
    case "user":
      conversation.addUser(contentParts(message.content, conversation));
      return;
    case "assistant": {
      const texts = contentParts(message.content, conversation).filter(
        (part): part is TextPart => part.type === "text",
      );
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      conversation.addAssistant([
        ...texts.filter((part) => part.text !== ""),
        ...calls.map((entry) => {
          const call = requireObject(entry, "tool call");
          const callFunction = requireObject(call.function, "tool call function");
          return {
            type: "tool-call" as const,
            id: requireString(call.id, "tool call id"),
            name: requireString(callFunction.name, "tool call name"),
            argumentsJson: optionalString(callFunction.arguments) ?? "",
          };
        }),
      ]);
      return;
    }
    case "tool": {
      const parts = contentParts(message.content, conversation);
      if (parts.some((part) => part.type === "image")) conversation.warn("blocks_dropped", "tool result image");
      conversation.addToolResult({
        type: "tool-result",
        callId: requireString(message.tool_call_id, "tool_call_id"),
        text: textOf(parts),
        isError: false,
      });
      return;
    }
    case "function":
      conversation.warn("blocks_dropped", "function message");
      return;
    default:
      throw invalidRequest("message role must be system, developer, user, assistant or tool");
  }
}

function contentParts(content: unknown, conversation: ConversationBuilder): (TextPart | ImagePart)[] {
  if (content === undefined || content === null) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts: (TextPart | ImagePart)[] = [];
  for (const entry of requireArray(content, "message content")) {
    const part = requireObject(entry, "content part");
    if (part.type === "text") {
      parts.push({ type: "text", text: requireString(part.text, "text") });
    } else if (part.type === "image_url") {
      const image = isObject(part.image_url) ? part.image_url.url : part.image_url;
      parts.push(imageFromUrl(requireString(image, "image_url.url")));
    } else if (part.type === "refusal") {
      parts.push({ type: "text", text: optionalString(part.refusal) ?? "" });
    } else {
      conversation.warn("blocks_dropped", typeof part.type === "string" ? part.type : "untyped content");
    }
  }
  return parts;
}

function textOf(parts: (TextPart | ImagePart)[]): string {
  return parts
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

function decodeTools(tools: unknown, conversation: ConversationBuilder): Tool[] {
  if (tools === undefined || tools === null) return [];
  const decoded: Tool[] = [];
  for (const entry of requireArray(tools, "tools")) {
    const tool = requireObject(entry, "tool");
    if (tool.type !== "function" || !isObject(tool.function)) {
      conversation.warn("tools_dropped", typeof tool.type === "string" ? tool.type : "untyped tool");
      continue;
    }
    const description = optionalString(tool.function.description);
    decoded.push({
      kind: "function",
      name: requireString(tool.function.name, "tool name"),
      parametersSchema: isObject(tool.function.parameters)
        ? tool.function.parameters
        : { type: "object", properties: {} },
      ...(description !== undefined ? { description } : {}),
    });
  }
  return decoded;
}

function decodeToolChoice(choice: unknown): ToolChoice | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === "string") {
    return { name: choice.function.name };
  }
  return undefined;
}
