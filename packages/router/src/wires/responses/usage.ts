import type { Usage } from "../../ir.js";
import { count, isObject } from "../../json.js";
import type { ResponsesUsage } from "./responses-api.js";

/** `input_tokens` already includes cached tokens and `output_tokens` reasoning ones, as in the internal form. */
export function decodeResponsesUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const inputDetails = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outputDetails = isObject(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return {
    input: count(usage.input_tokens),
    cachedInput: count(inputDetails.cached_tokens),
    output: count(usage.output_tokens),
    reasoning: count(outputDetails.reasoning_tokens),
  };
}

export function encodeResponsesUsage(usage: Usage): ResponsesUsage {
  return {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cachedInput },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: usage.input + usage.output,
  };
}
