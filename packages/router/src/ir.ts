/**
 * The internal representation every wire decodes into and encodes from (docs/router.md, "Translation"). No vendor
 * format is the hub: three decoders and three encoders give all nine pairs.
 */

export const WIRES = ["responses", "chat", "messages"] as const;
export type Wire = (typeof WIRES)[number];

// ---------------------------------------------------------------------------------------------------------------
// Request

export interface TextPart {
  type: "text";
  text: string;
}

export type ImagePart =
  | { type: "image"; source: "url"; url: string }
  | { type: "image"; source: "base64"; base64: string; mediaType: string };

export interface ToolCallPart {
  type: "tool-call";
  id: string;
  name: string;
  /** The arguments exactly as the model produced them: a JSON object in text form. */
  argumentsJson: string;
}

export interface ToolResultPart {
  type: "tool-result";
  callId: string;
  text: string;
  isError: boolean;
}

export interface UserMessage {
  role: "user";
  parts: (TextPart | ImagePart)[];
}

export interface AssistantMessage {
  role: "assistant";
  parts: (TextPart | ToolCallPart)[];
}

export interface ToolMessage {
  role: "tool";
  parts: ToolResultPart[];
}

export type Message = UserMessage | AssistantMessage | ToolMessage;

export interface Tool {
  name: string;
  description?: string;
  parametersSchema: Record<string, unknown>;
  /**
   * `custom` marks a responses-wire custom (free-form text) tool. It travels as a function with one required string
   * parameter `input`, and a call to it maps back to a `custom_tool_call` item on the responses wire.
   */
  kind: "function" | "custom";
}

export type ToolChoice = "auto" | "none" | "required" | { name: string };

export interface Request {
  model: string;
  system?: string;
  messages: Message[];
  tools: Tool[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  stream: boolean;
  /** Effort as the client wrote it; docs/router.md, "Effort mapping" rewrites it per target later. */
  reasoningEffort?: string;
  parallelToolCalls?: boolean;
}

/** Lossy but harmless input: the request still goes out, and the ledger notes it (docs/router.md, "Ledger"). */
export type WarningCode = "tools_dropped" | "blocks_dropped";

export interface Warning {
  code: WarningCode;
  /** What was dropped, e.g. the tool type or block type; never prompt content. */
  detail: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Replies: stream parts and the one-shot reply

export interface Usage {
  /** All input tokens, cached ones included. */
  input: number;
  cachedInput: number;
  /** All output tokens, reasoning included. */
  output: number;
  /** 0 where the wire does not report it. */
  reasoning: number;
}

export type UnifiedFinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

export interface FinishReason {
  unified: UnifiedFinishReason;
  /** The upstream's own value, kept so nothing is lost (null when the upstream sent none). */
  raw: string | null;
}

/**
 * One streamed reply. Order: optional `usage` snapshots anywhere; text, reasoning and tool calls in any order (tool
 * calls are told apart by `index`, so their arguments may interleave); then exactly one terminal part, `finish` or
 * `error`. A `usage` part is a cumulative snapshot: the last one wins.
 */
export type StreamPart =
  | { type: "text-start" }
  | { type: "text-delta"; text: string }
  | { type: "text-end" }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-call-start"; index: number; id: string; name: string }
  | { type: "tool-call-delta"; index: number; json: string }
  | { type: "tool-call-end"; index: number }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: FinishReason }
  | { type: "error"; code: string; message: string };

export type ReplyPart = TextPart | { type: "reasoning"; text: string } | ToolCallPart;

export interface Reply {
  content: ReplyPart[];
  /** Absent when the upstream reported none (ledger `usage_status: unreported`). */
  usage?: Usage;
  finish: FinishReason;
}

/** A wire request read into the internal representation, with what was dropped on the way. */
export interface DecodedRequest {
  request: Request;
  warnings: Warning[];
}
