import type { Request, ToolChoice } from "../../ir.js";
import { definedOnly, parseArguments } from "../../json.js";
import type { MessagesContentBlock, MessagesMessage, MessagesRequest, MessagesToolChoice } from "./messages-api.js";

/**
 * docs/router.md, "Request mappings": a messages-wire upstream requires `max_tokens`; when the inbound request has
 * none, this is used.
 */
export const DEFAULT_MAX_TOKENS = 8192;

/** The internal representation to a messages-wire request body. */
export function encodeMessagesRequest(request: Request): MessagesRequest {
  const encoded: MessagesRequest = {
    model: request.model,
    messages: encodeMessages(request),
    max_tokens: request.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
    stream: request.stream,
  };
  if (request.system !== undefined) encoded.system = request.system;
  if (request.tools.length > 0) {
    encoded.tools = request.tools.map((tool) =>
      definedOnly({ name: tool.name, description: tool.description, input_schema: tool.parametersSchema }),
    );
  }
  const toolChoice = encodeToolChoice(request.toolChoice, request.parallelToolCalls === false);
  if (toolChoice !== undefined && request.tools.length > 0) encoded.tool_choice = toolChoice;
  if (request.temperature !== undefined) encoded.temperature = request.temperature;
  if (request.topP !== undefined) encoded.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) encoded.stop_sequences = request.stop;
  if (request.reasoningEffort !== undefined) encoded.output_config = { effort: request.reasoningEffort };
  return encoded;
}

/**
 * Turns alternate strictly on this wire and tool results travel in the user turn, first in it; so consecutive user
 * and tool messages merge into one user turn with its tool results moved to the front.
 */
function encodeMessages(request: Request): MessagesMessage[] {
  const turns: { role: MessagesMessage["role"]; results: MessagesContentBlock[]; blocks: MessagesContentBlock[] }[] =
    [];
  const turn = (role: MessagesMessage["role"]) => {
    const last = turns.at(-1);
    if (last?.role === role) return last;
    const created = { role, results: [], blocks: [] };
    turns.push(created);
    return created;
  };
  for (const message of request.messages) {
    switch (message.role) {
      case "user":
        for (const part of message.parts) {
          if (part.type === "text" && part.text === "") continue; // an empty text block is refused by this wire
          turn("user").blocks.push(
            part.type === "text"
              ? { type: "text", text: part.text }
              : {
                  type: "image",
                  source:
                    part.source === "url"
                      ? { type: "url", url: part.url }
                      : { type: "base64", media_type: part.mediaType, data: part.base64 },
                },
          );
        }
        break;
      case "tool":
        for (const part of message.parts) {
          turn("user").results.push({
            type: "tool_result",
            tool_use_id: part.callId,
            content: part.text,
            ...(part.isError ? { is_error: true } : {}),
          });
        }
        break;
      case "assistant":
        for (const part of message.parts) {
          if (part.type === "text") {
            // An empty text block is refused by this wire.
            if (part.text !== "") turn("assistant").blocks.push({ type: "text", text: part.text });
          } else {
            const input = parseArguments(part.argumentsJson);
            turn("assistant").blocks.push({ type: "tool_use", id: part.id, name: part.name, input });
          }
        }
        break;
      default: {
        const _exhaustive: never = message;
        throw new Error(`unknown message ${JSON.stringify(_exhaustive)}`);
      }
    }
  }
  return turns
    .map((entry) => ({ role: entry.role, content: [...entry.results, ...entry.blocks] }))
    .filter((entry) => entry.content.length > 0);
}

function encodeToolChoice(choice: ToolChoice | undefined, disableParallel: boolean): MessagesToolChoice | undefined {
  const parallel = disableParallel ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return disableParallel ? { type: "auto", ...parallel } : undefined;
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return { type: "auto", ...parallel };
  if (choice === "required") return { type: "any", ...parallel };
  return { type: "tool", name: choice.name, ...parallel };
}
