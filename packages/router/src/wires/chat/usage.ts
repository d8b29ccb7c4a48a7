import type { Usage } from "../../ir.js";
import { count, isObject } from "../../json.js";
import type { ChatUsage } from "./chat-api.js";

/** `prompt_tokens` already includes cached tokens and `completion_tokens` reasoning ones, as in the internal form. */
export function decodeChatUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const promptDetails = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    input: count(usage.prompt_tokens),
    // Some servers report cache hits at the top level (`prompt_cache_hit_tokens`) instead of in the details.
    cachedInput: count(promptDetails.cached_tokens) || count(usage.prompt_cache_hit_tokens),
    output: count(usage.completion_tokens),
    reasoning: count(completionDetails.reasoning_tokens),
  };
}

export function encodeChatUsage(usage: Usage): ChatUsage {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cachedInput },
    completion_tokens_details: { reasoning_tokens: usage.reasoning },
  };
}
