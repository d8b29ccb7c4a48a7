import { parseObject } from "../json.js";

/**
 * A responses-wire custom tool takes free text. Other wires only know JSON-object arguments, so it travels as a
 * function with one required string parameter `input` (docs/router.md, "Request mappings", responses row).
 */
export const CUSTOM_TOOL_PARAMETERS: Record<string, unknown> = {
  type: "object",
  properties: { input: { type: "string", description: "The free-form input of the tool." } },
  required: ["input"],
  additionalProperties: false,
};

export function customInputToArguments(input: string): string {
  return JSON.stringify({ input });
}

/** The free text back out of `{"input": ...}`; arguments of any other shape are passed on as they are. */
export function argumentsToCustomInput(argumentsJson: string): string {
  const parsed = parseObject(argumentsJson);
  return typeof parsed?.input === "string" ? parsed.input : argumentsJson;
}
