import type { TurnRole } from "@notify/contracts/item-context";
/**
 * The messages wire: the block-based messages format (`POST /messages`). Only the fields the router reads or writes
 * are typed; everything arrives as `unknown` and is checked where it is read.
 */

export type MessagesImageSource = { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };

export type MessagesContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: MessagesImageSource }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string | { type: "text"; text: string }[]; is_error?: boolean }
  | { type: "thinking"; thinking: string; signature: string };

export interface MessagesMessage {
  /** The Messages wire's two roles are a turn's two speakers (@notify/contracts/item-context). */
  role: TurnRole;
  content: string | MessagesContentBlock[];
}

export interface MessagesTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type MessagesToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: boolean }
  | { type: "any"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean }
  | { type: "none" };

export interface MessagesRequest {
  model: string;
  system?: string | { type: "text"; text: string }[];
  messages: MessagesMessage[];
  tools?: MessagesTool[];
  tool_choice?: MessagesToolChoice;
  max_tokens: number;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  output_config?: { effort?: string };
}

export type MessagesStopReason = "end_turn" | "max_tokens" | "tool_use" | "stop_sequence";

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type MessagesResponseBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "thinking"; thinking: string; signature: string };

export interface MessagesResponse {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: MessagesResponseBlock[];
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export type MessagesStreamEvent =
  | { type: "message_start"; message: MessagesResponse }
  | { type: "content_block_start"; index: number; content_block: MessagesResponseBlock }
  | {
      type: "content_block_delta";
      index: number;
      delta:
        | { type: "text_delta"; text: string }
        | { type: "input_json_delta"; partial_json: string }
        | { type: "thinking_delta"; thinking: string };
    }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason: MessagesStopReason | null; stop_sequence: string | null };
      usage: Partial<MessagesUsage> & { output_tokens: number };
    }
  | { type: "message_stop" }
  | { type: "error"; error: { type: string; message: string } };
