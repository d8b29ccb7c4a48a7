/**
 * The chat wire: the chat-completions format (`POST /chat/completions`). Only the fields the router reads or writes
 * are typed; everything arrives as `unknown` and is checked where it is read.
 */

export type ChatContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system" | "developer"; content: string | ChatContentPart[] }
  | { role: "user"; content: string | ChatContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[]; reasoning_content?: string }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export type ChatToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  reasoning_effort?: string;
  parallel_tool_calls?: boolean;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: "assistant"; content: string | null; reasoning_content?: string; tool_calls?: ChatToolCall[] };
    finish_reason: ChatFinishReason;
  }[];
  usage?: ChatUsage;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: "assistant"; content?: string; reasoning_content?: string; tool_calls?: ChatToolCallDelta[] };
    finish_reason: ChatFinishReason | null;
  }[];
  usage?: ChatUsage;
}

/** The chat wire's mid-stream failure: a data line holding an error object instead of a chunk. */
export interface ChatErrorChunk {
  error: { message: string; type: string; code: string };
}
