import type { Request, ToolChoice, UserMessage } from "../../ir.js";
import { definedOnly } from "../../json.js";
import { imageToUrl } from "../images.js";
import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolChoice } from "./chat-api.js";

/** The internal representation to a chat-wire request body. */
export function encodeChatRequest(request: Request): ChatRequest {
  const messages: ChatMessage[] = [];
  if (request.system !== undefined) messages.push({ role: "system", content: request.system });
  for (const message of request.messages) {
    switch (message.role) {
      case "user":
        messages.push({ role: "user", content: userContent(message) });
        break;
      case "assistant": {
        const text = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
        const toolCalls = message.parts.flatMap((part) =>
          part.type === "tool-call"
            ? [{ id: part.id, type: "function" as const, function: { name: part.name, arguments: part.argumentsJson } }]
            : [],
        );
        messages.push({
          role: "assistant",
          content: text === "" && toolCalls.length > 0 ? null : text,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        });
        break;
      }
      case "tool":
        for (const part of message.parts)
          messages.push({ role: "tool", tool_call_id: part.callId, content: part.text });
        break;
      default: {
        const _exhaustive: never = message;
        throw new Error(`unknown message ${JSON.stringify(_exhaustive)}`);
      }
    }
  }
  const encoded: ChatRequest = { model: request.model, messages, stream: request.stream };
  // Usage is always asked for upstream: the ledger needs it even when the client did not
  // (docs/router.md, "Request mappings").
  if (request.stream) encoded.stream_options = { include_usage: true };
  if (request.tools.length > 0) {
    encoded.tools = request.tools.map((tool) => ({
      type: "function",
      function: definedOnly({ name: tool.name, description: tool.description, parameters: tool.parametersSchema }),
    }));
  }
  // `tool_choice` and `parallel_tool_calls` without tools are refused upstream.
  if (request.toolChoice !== undefined && request.tools.length > 0)
    encoded.tool_choice = encodeToolChoice(request.toolChoice);
  // `max_tokens` rather than `max_completion_tokens`: the chat-wire upstreams are mostly other vendors' servers
  // and local servers, which all read `max_tokens`.
  if (request.maxOutputTokens !== undefined) encoded.max_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) encoded.temperature = request.temperature;
  if (request.topP !== undefined) encoded.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) encoded.stop = request.stop;
  if (request.reasoningEffort !== undefined) encoded.reasoning_effort = request.reasoningEffort;
  if (request.parallelToolCalls !== undefined && request.tools.length > 0) {
    encoded.parallel_tool_calls = request.parallelToolCalls;
  }
  return encoded;
}

function userContent(message: UserMessage): string | ChatContentPart[] {
  const [only] = message.parts;
  if (message.parts.length === 1 && only?.type === "text") return only.text;
  return message.parts.map(
    (part): ChatContentPart =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : { type: "image_url", image_url: { url: imageToUrl(part) } },
  );
}

function encodeToolChoice(choice: ToolChoice): ChatToolChoice {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}
