/**
 * The responses wire: the item-based conversation format (`POST /responses`). Only the fields the router reads or
 * writes are typed; everything arrives as `unknown` and is checked where it is read.
 */

export type ResponsesInputContent =
  | { type: "input_text"; text: string }
  | { type: "output_text"; text: string; annotations?: unknown[] }
  | { type: "input_image"; image_url?: string; file_id?: string; detail?: string }
  | { type: "refusal"; refusal: string };

export type ResponsesInputItem =
  | {
      type?: "message";
      id?: string;
      role: "user" | "assistant" | "system" | "developer";
      content: string | ResponsesInputContent[];
    }
  | { type: "function_call"; id?: string; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; id?: string; call_id: string; output: string | ResponsesInputContent[] }
  | { type: "custom_tool_call"; id?: string; call_id: string; name: string; input: string }
  | { type: "custom_tool_call_output"; id?: string; call_id: string; output: string | ResponsesInputContent[] }
  | { type: "reasoning"; id?: string; summary: unknown[]; encrypted_content?: string };

export type ResponsesTool =
  | { type: "function"; name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean }
  | { type: "custom"; name: string; description?: string; format?: unknown };

export type ResponsesToolChoice =
  | "auto"
  | "none"
  | "required"
  | { type: "function"; name: string }
  | { type: "custom"; name: string };

export interface ResponsesRequest {
  model: string;
  instructions?: string;
  input: string | ResponsesInputItem[];
  tools?: ResponsesTool[];
  tool_choice?: ResponsesToolChoice;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  reasoning?: { effort?: string; summary?: string };
  parallel_tool_calls?: boolean;
  store?: boolean;
  previous_response_id?: string;
}

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations: unknown[];
  logprobs?: unknown[];
}

export type ResponsesOutputItem =
  | {
      type: "message";
      id: string;
      status: "in_progress" | "completed" | "incomplete";
      role: "assistant";
      content: ResponsesOutputText[];
    }
  | {
      type: "function_call";
      id: string;
      status: "in_progress" | "completed" | "incomplete";
      call_id: string;
      name: string;
      arguments: string;
    }
  | {
      type: "custom_tool_call";
      id: string;
      status?: "in_progress" | "completed";
      call_id: string;
      name: string;
      input: string;
    }
  | { type: "reasoning"; id: string; summary: { type: "summary_text"; text: string }[] };

export type ResponsesStatus = "in_progress" | "completed" | "incomplete" | "failed";

export interface ResponsesResponse {
  id: string;
  object: "response";
  created_at: number;
  status: ResponsesStatus;
  model: string;
  output: ResponsesOutputItem[];
  usage: ResponsesUsage | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
}

/** The streamed events the router writes; every one carries `sequence_number`. */
export type ResponsesStreamEvent = { sequence_number: number } & (
  | { type: "response.created"; response: ResponsesResponse }
  | { type: "response.in_progress"; response: ResponsesResponse }
  | { type: "response.output_item.added"; output_index: number; item: ResponsesOutputItem }
  | { type: "response.output_item.done"; output_index: number; item: ResponsesOutputItem }
  | {
      type: "response.content_part.added" | "response.content_part.done";
      item_id: string;
      output_index: number;
      content_index: number;
      part: ResponsesOutputText;
    }
  | {
      type: "response.output_text.delta";
      item_id: string;
      output_index: number;
      content_index: number;
      delta: string;
      logprobs: unknown[];
    }
  | {
      type: "response.output_text.done";
      item_id: string;
      output_index: number;
      content_index: number;
      text: string;
      logprobs: unknown[];
    }
  | { type: "response.function_call_arguments.delta"; item_id: string; output_index: number; delta: string }
  | {
      type: "response.function_call_arguments.done";
      item_id: string;
      output_index: number;
      name: string;
      arguments: string;
    }
  | {
      type: "response.reasoning_summary_part.added" | "response.reasoning_summary_part.done";
      item_id: string;
      output_index: number;
      summary_index: number;
      part: { type: "summary_text"; text: string };
    }
  | {
      type: "response.reasoning_summary_text.delta";
      item_id: string;
      output_index: number;
      summary_index: number;
      delta: string;
    }
  | {
      type: "response.reasoning_summary_text.done";
      item_id: string;
      output_index: number;
      summary_index: number;
      text: string;
    }
  | { type: "response.completed" | "response.incomplete" | "response.failed"; response: ResponsesResponse }
  | { type: "error"; code: string; message: string; param: null }
);
