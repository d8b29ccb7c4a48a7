import type { IdGenerator } from "../ids.js";

/** What a reply encoder (streamed or one-shot) needs beyond the reply itself. */
export interface EncodeOptions {
  /** The model name the client asked for; replies carry it back. */
  model: string;
  /** Chat wire: the client set `stream_options.include_usage`, so a usage chunk goes before `[DONE]`. */
  includeUsage?: boolean;
  /** Responses wire: tools the client declared as `custom`; calls to them go back as `custom_tool_call` items. */
  customToolNames?: ReadonlySet<string>;
  newId?: IdGenerator;
  /** Milliseconds since the epoch. */
  now?: () => number;
}
