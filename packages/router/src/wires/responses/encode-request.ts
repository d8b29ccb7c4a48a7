import type { AssistantMessage, Request, ToolChoice } from "../../ir.js";
import { definedOnly } from "../../json.js";
import { notSupported } from "../../translation-error.js";
import { argumentsToCustomInput } from "../custom-tools.js";
import { imageToUrl } from "../images.js";
import type {
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesRequest,
  ResponsesTool,
  ResponsesToolChoice,
} from "./responses-api.js";

/** The internal representation to a responses-wire request body. */
export function encodeResponsesRequest(request: Request): ResponsesRequest {
  if (request.stop !== undefined && request.stop.length > 0) {
    // The responses wire has no stop sequences, and ignoring them changes what the client gets back.
    throw notSupported("stop sequences cannot be expressed on the responses wire");
  }
  const customToolNames = new Set(request.tools.filter((tool) => tool.kind === "custom").map((tool) => tool.name));
  const encoded: ResponsesRequest = {
    model: request.model,
    input: encodeInput(request, customToolNames),
    stream: request.stream,
    // The whole conversation travels in every translated request, so nothing needs keeping upstream.
    store: false,
  };
  if (request.system !== undefined) encoded.instructions = request.system;
  if (request.tools.length > 0) encoded.tools = request.tools.map(encodeTool);
  // A tool choice without tools is refused upstream; without tools there is nothing to choose anyway.
  if (request.toolChoice !== undefined && request.tools.length > 0) {
    encoded.tool_choice = encodeToolChoice(request.toolChoice, customToolNames);
  }
  if (request.maxOutputTokens !== undefined) encoded.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) encoded.temperature = request.temperature;
  if (request.topP !== undefined) encoded.top_p = request.topP;
  if (request.reasoningEffort !== undefined) encoded.reasoning = { effort: request.reasoningEffort };
  if (request.parallelToolCalls !== undefined) encoded.parallel_tool_calls = request.parallelToolCalls;
  return encoded;
}

function encodeInput(request: Request, customToolNames: ReadonlySet<string>): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  const customCallIds = new Set<string>();
  for (const message of request.messages) {
    switch (message.role) {
      case "user":
        items.push({
          type: "message",
          role: "user",
          content: message.parts.map(
            (part): ResponsesInputContent =>
              part.type === "text"
                ? { type: "input_text", text: part.text }
                : { type: "input_image", image_url: imageToUrl(part), detail: "auto" },
          ),
        });
        break;
      case "assistant":
        items.push(...encodeAssistant(message, customToolNames, customCallIds));
        break;
      case "tool":
        for (const part of message.parts) {
          items.push({
            type: customCallIds.has(part.callId) ? "custom_tool_call_output" : "function_call_output",
            call_id: part.callId,
            output: part.text,
          });
        }
        break;
      default: {
        const _exhaustive: never = message;
        throw new Error(`unknown message ${JSON.stringify(_exhaustive)}`);
      }
    }
  }
  return items;
}

function encodeAssistant(
  message: AssistantMessage,
  customToolNames: ReadonlySet<string>,
  customCallIds: Set<string>,
): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  let texts: ResponsesInputContent[] = [];
  const flushTexts = () => {
    if (texts.length > 0) items.push({ type: "message", role: "assistant", content: texts });
    texts = [];
  };
  for (const part of message.parts) {
    if (part.type === "text") {
      texts.push({ type: "output_text", text: part.text, annotations: [] });
      continue;
    }
    flushTexts();
    if (customToolNames.has(part.name)) {
      customCallIds.add(part.id);
      items.push({
        type: "custom_tool_call",
        call_id: part.id,
        name: part.name,
        input: argumentsToCustomInput(part.argumentsJson),
      });
    } else {
      items.push({ type: "function_call", call_id: part.id, name: part.name, arguments: part.argumentsJson });
    }
  }
  flushTexts();
  return items;
}

function encodeTool(tool: Request["tools"][number]): ResponsesTool {
  if (tool.kind === "custom") return definedOnly({ type: "custom", name: tool.name, description: tool.description });
  return definedOnly({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parametersSchema,
    strict: false,
  });
}

function encodeToolChoice(choice: ToolChoice, customToolNames: ReadonlySet<string>): ResponsesToolChoice {
  if (typeof choice === "string") return choice;
  return { type: customToolNames.has(choice.name) ? "custom" : "function", name: choice.name };
}
