import type { Usage } from "../../ir.js";
import { count, isObject } from "../../json.js";
import type { MessagesUsage } from "./messages-api.js";

/**
 * `input_tokens` counts only uncached input: cache reads and cache writes are reported beside it, so all three add
 * up to the internal `input`. The wire does not break reasoning out of `output_tokens`.
 */
export function decodeMessagesUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const cacheRead = count(usage.cache_read_input_tokens);
  return {
    input: count(usage.input_tokens) + cacheRead + count(usage.cache_creation_input_tokens),
    cachedInput: cacheRead,
    output: count(usage.output_tokens),
    reasoning: 0,
  };
}

export function encodeMessagesUsage(usage: Usage): MessagesUsage {
  return {
    input_tokens: Math.max(0, usage.input - usage.cachedInput),
    output_tokens: usage.output,
    cache_read_input_tokens: usage.cachedInput,
    cache_creation_input_tokens: 0,
  };
}
