import type { AssistantMessage, DecodedRequest, ImagePart, Request, TextPart, Tool, ToolChoice } from "../../ir.js";
import {
  isObject,
  type JsonObject,
  optionalNumber,
  optionalString,
  requireArray,
  requireObject,
  requireString,
} from "../../json.js";
import { invalidRequest } from "../../translation-error.js";
import { ConversationBuilder } from "../conversation.js";

/** Messages-wire request body to the internal representation (docs/router.md, "Request mappings", messages row). */
export function decodeMessagesRequest(body: unknown): DecodedRequest {
  const request = requireObject(body, "request body");
  const conversation = new ConversationBuilder();
  if (typeof request.system === "string") conversation.addSystem(request.system);
  else if (request.system !== undefined) conversation.addSystem(systemText(request.system, conversation));
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
  const choice = isObject(request.tool_choice) ? request.tool_choice : undefined;
  const toolChoice = decodeToolChoice(choice);
  if (toolChoice !== undefined) decoded.toolChoice = toolChoice;
  if (choice?.disable_parallel_tool_use === true) decoded.parallelToolCalls = false;
  const maxOutputTokens = optionalNumber(request.max_tokens);
  if (maxOutputTokens !== undefined) decoded.maxOutputTokens = maxOutputTokens;
  const temperature = optionalNumber(request.temperature);
  if (temperature !== undefined) decoded.temperature = temperature;
  const topP = optionalNumber(request.top_p);
  if (topP !== undefined) decoded.topP = topP;
  if (Array.isArray(request.stop_sequences) && request.stop_sequences.length > 0) {
    decoded.stop = request.stop_sequences.map((entry) => requireString(entry, "stop_sequences"));
  }
  const effort = isObject(request.output_config) ? optionalString(request.output_config.effort) : undefined;
  if (effort !== undefined) decoded.reasoningEffort = effort;
  return { request: decoded, warnings: conversation.warnings };
}

function systemText(system: unknown, conversation: ConversationBuilder): string {
  const texts: string[] = [];
  for (const entry of requireArray(system, "system")) {
    const block = requireObject(entry, "system block");
    if (block.type === "text") texts.push(requireString(block.text, "system text"));
    else conversation.warn("blocks_dropped", typeof block.type === "string" ? block.type : "untyped block");
  }
  return texts.join("\n\n");
}

function blocksOf(content: unknown): JsonObject[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return requireArray(content, "message content").map((entry) => requireObject(entry, "content block"));
}

function decodeMessage(message: JsonObject, conversation: ConversationBuilder): void {
  switch (message.role) {
    case "system":
      // Not part of the public wire, but some clients send it; it joins the system text
      // (docs/router.md, "Request mappings").
      conversation.addSystem(
        typeof message.content === "string" ? message.content : systemText(message.content, conversation),
      );
      return;
    case "user":
      for (const block of blocksOf(message.content)) decodeUserBlock(block, conversation);
      return;
    case "assistant":
      for (const block of blocksOf(message.content)) decodeAssistantBlock(block, conversation);
      return;
    default:
      throw invalidRequest("message role must be user or assistant");
  }
}

function decodeUserBlock(block: JsonObject, conversation: ConversationBuilder): void {
  switch (block.type) {
    case "text":
      conversation.addUser([{ type: "text", text: requireString(block.text, "text") }]);
      return;
    case "image": {
      const image = decodeImage(block.source);
      if (image === undefined) conversation.warn("blocks_dropped", "image source");
      else conversation.addUser([image]);
      return;
    }
    case "tool_result":
      conversation.addToolResult({
        type: "tool-result",
        callId: requireString(block.tool_use_id, "tool_use_id"),
        text: toolResultText(block.content, conversation),
        isError: block.is_error === true,
      });
      return;
    default:
      conversation.warn("blocks_dropped", typeof block.type === "string" ? block.type : "untyped block");
  }
}

function decodeAssistantBlock(block: JsonObject, conversation: ConversationBuilder): void {
  const parts: AssistantMessage["parts"] = [];
  switch (block.type) {
    case "text": {
      const text = requireString(block.text, "text");
      if (text !== "") parts.push({ type: "text", text });
      break;
    }
    case "tool_use":
      parts.push({
        type: "tool-call",
        id: requireString(block.id, "tool_use.id"),
        name: requireString(block.name, "tool_use.name"),
        argumentsJson: JSON.stringify(isObject(block.input) ? block.input : {}),
      });
      break;
    case "thinking":
    case "redacted_thinking":
      return; // signed by the vendor that made it; no other upstream can use it (docs/router.md, "Request mappings": dropped)
    default:
      conversation.warn("blocks_dropped", typeof block.type === "string" ? block.type : "untyped block");
      return;
  }
  conversation.addAssistant(parts);
}

function decodeImage(source: unknown): ImagePart | undefined {
  if (!isObject(source)) return undefined;
  if (source.type === "base64" && typeof source.data === "string" && typeof source.media_type === "string") {
    return { type: "image", source: "base64", base64: source.data, mediaType: source.media_type };
  }
  if (source.type === "url" && typeof source.url === "string") return { type: "image", source: "url", url: source.url };
  return undefined;
}

function toolResultText(content: unknown, conversation: ConversationBuilder): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  const texts: TextPart[] = [];
  for (const block of blocksOf(content)) {
    if (block.type === "text") texts.push({ type: "text", text: requireString(block.text, "text") });
    else conversation.warn("blocks_dropped", `tool_result ${typeof block.type === "string" ? block.type : "block"}`);
  }
  return texts.map((part) => part.text).join("\n");
}

function decodeTools(tools: unknown, conversation: ConversationBuilder): Tool[] {
  if (tools === undefined || tools === null) return [];
  const decoded: Tool[] = [];
  for (const entry of requireArray(tools, "tools")) {
    const tool = requireObject(entry, "tool");
    // Versioned built-in tools (`web_search_...`, `bash_...`, `text_editor_...`) carry a type and no schema.
    if ((tool.type !== undefined && tool.type !== "custom") || !isObject(tool.input_schema)) {
      conversation.warn("tools_dropped", typeof tool.type === "string" ? tool.type : "tool without input_schema");
      continue;
    }
    const description = optionalString(tool.description);
    decoded.push({
      kind: "function",
      name: requireString(tool.name, "tool name"),
      parametersSchema: tool.input_schema,
      ...(description !== undefined ? { description } : {}),
    });
  }
  return decoded;
}

function decodeToolChoice(choice: JsonObject | undefined): ToolChoice | undefined {
  switch (choice?.type) {
    case "auto":
      return "auto";
    case "any":
      return "required";
    case "none":
      return "none";
    case "tool":
      return { name: requireString(choice.name, "tool_choice.name") };
    default:
      return undefined;
  }
}
