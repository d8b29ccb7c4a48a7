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
import { TranslationError } from "../../translation-error.js";
import { ConversationBuilder } from "../conversation.js";
import { CUSTOM_TOOL_PARAMETERS, customInputToArguments } from "../custom-tools.js";
import { imageFromUrl } from "../images.js";

export interface DecodeResponsesRequestOptions {
  /**
   * True when the request goes to an upstream of another wire. `previous_response_id` names state only a
   * responses-wire upstream holds, so a translated hop must refuse it (docs/router.md, "Request mappings").
   */
  translatedHop?: boolean;
}

/** Responses-wire request body to the internal representation (docs/router.md, "Request mappings", responses row). */
export function decodeResponsesRequest(body: unknown, options: DecodeResponsesRequestOptions = {}): DecodedRequest {
  const request = requireObject(body, "request body");
  if ((options.translatedHop ?? true) && request.previous_response_id != null) {
    throw new TranslationError(
      "unsupported_previous_response_id",
      "previous_response_id needs a responses-wire upstream; send the whole conversation instead",
    );
  }
  const conversation = new ConversationBuilder();
  const instructions = optionalString(request.instructions);
  if (instructions !== undefined) conversation.addSystem(instructions);
  if (typeof request.input === "string") {
    conversation.addUser([{ type: "text", text: request.input }]);
  } else if (request.input !== undefined) {
    for (const [position, item] of requireArray(request.input, "input").entries()) {
      decodeItem(requireObject(item, `input[${position}]`), conversation);
    }
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
  const maxOutputTokens = optionalNumber(request.max_output_tokens);
  if (maxOutputTokens !== undefined) decoded.maxOutputTokens = maxOutputTokens;
  const temperature = optionalNumber(request.temperature);
  if (temperature !== undefined) decoded.temperature = temperature;
  const topP = optionalNumber(request.top_p);
  if (topP !== undefined) decoded.topP = topP;
  const effort = isObject(request.reasoning) ? optionalString(request.reasoning.effort) : undefined;
  if (effort !== undefined) decoded.reasoningEffort = effort;
  const parallelToolCalls = optionalBoolean(request.parallel_tool_calls);
  if (parallelToolCalls !== undefined) decoded.parallelToolCalls = parallelToolCalls;
  return { request: decoded, warnings: conversation.warnings };
}

function decodeItem(item: JsonObject, conversation: ConversationBuilder): void {
  const type = item.type ?? (item.role !== undefined ? "message" : undefined);
  switch (type) {
    case "message":
      decodeMessage(item, conversation);
      break;
    case "function_call":
      conversation.addAssistant([
        {
          type: "tool-call",
          id: requireString(item.call_id, "function_call.call_id"),
          name: requireString(item.name, "function_call.name"),
          argumentsJson: optionalString(item.arguments) ?? "",
        },
      ]);
      break;
    case "custom_tool_call":
      conversation.addAssistant([
        {
          type: "tool-call",
          id: requireString(item.call_id, "custom_tool_call.call_id"),
          name: requireString(item.name, "custom_tool_call.name"),
          argumentsJson: customInputToArguments(optionalString(item.input) ?? ""),
        },
      ]);
      break;
    case "function_call_output":
    case "custom_tool_call_output":
      conversation.addToolResult({
        type: "tool-result",
        callId: requireString(item.call_id, `${type}.call_id`),
        text: outputText(item.output, conversation),
        isError: false,
      });
      break;
    case "reasoning":
      break; // reasoning is the upstream's own state; another wire cannot use it (docs/router.md, "Request mappings": dropped)
    default:
      conversation.warn("blocks_dropped", typeof type === "string" ? type : "untyped item");
  }
}

function decodeMessage(item: JsonObject, conversation: ConversationBuilder): void {
  const role = item.role;
  const parts = messageParts(item.content, conversation);
  switch (role) {
    case "system":
    case "developer":
      conversation.addSystem(textOf(parts));
      return;
    case "user":
      conversation.addUser(parts);
      return;
    case "assistant":
      conversation.addAssistant(parts.filter((part): part is TextPart => part.type === "text"));
      return;
    default:
      throw new TranslationError("invalid_request", "message role must be user, assistant, system or developer");
  }
}

function messageParts(content: unknown, conversation: ConversationBuilder): (TextPart | ImagePart)[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts: (TextPart | ImagePart)[] = [];
  for (const entry of requireArray(content, "message content")) {
    const part = requireObject(entry, "content part");
    switch (part.type) {
      case "input_text":
      case "output_text":
        parts.push({ type: "text", text: requireString(part.text, `${part.type}.text`) });
        break;
      case "refusal":
        parts.push({ type: "text", text: optionalString(part.refusal) ?? "" });
        break;
      case "input_image":
        if (typeof part.image_url === "string") parts.push(imageFromUrl(part.image_url));
        else conversation.warn("blocks_dropped", "input_image.file_id");
        break;
      default:
        conversation.warn("blocks_dropped", typeof part.type === "string" ? part.type : "untyped content");
    }
  }
  return parts;
}

/** A tool result carries text only; an image inside one is dropped and noted. */
function outputText(output: unknown, conversation: ConversationBuilder): string {
  if (typeof output === "string") return output;
  if (output === undefined || output === null) return "";
  const parts = messageParts(output, conversation);
  if (parts.some((part) => part.type === "image")) conversation.warn("blocks_dropped", "tool result image");
  return textOf(parts);
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
    const description = optionalString(tool.description);
    if (tool.type === "function") {
      decoded.push({
        kind: "function",
        name: requireString(tool.name, "tool name"),
        parametersSchema: isObject(tool.parameters) ? tool.parameters : { type: "object", properties: {} },
        ...(description !== undefined ? { description } : {}),
      });
    } else if (tool.type === "custom") {
      decoded.push({
        kind: "custom",
        name: requireString(tool.name, "tool name"),
        parametersSchema: CUSTOM_TOOL_PARAMETERS,
        ...(description !== undefined ? { description } : {}),
      });
    } else {
      // Built-in tools (web search, file search, local shell, ...) run at the vendor; no other wire has them.
      conversation.warn("tools_dropped", typeof tool.type === "string" ? tool.type : "untyped tool");
    }
  }
  return decoded;
}

function decodeToolChoice(choice: unknown): ToolChoice | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isObject(choice) && (choice.type === "function" || choice.type === "custom") && typeof choice.name === "string") {
    return { name: choice.name };
  }
  return undefined; // allowed-tools lists and built-in tool choices have no counterpart: the default applies
}
