import type { Wire } from "../ir.js";
import type { EffortDecision } from "./mapping.js";

/**
 * Where each wire carries effort (Effort mapping 1-2): `output_config.effort` on the messages wire,
 * `reasoning.effort` on the responses wire, `reasoning_effort` on the chat wire.
 */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The client's effort as its wire carries it, or undefined. */
export function readEffort(wire: Wire, body: Record<string, unknown>): string | undefined {
  let value: unknown;
  if (wire === "messages") value = isObject(body.output_config) ? body.output_config.effort : undefined;
  else if (wire === "responses") value = isObject(body.reasoning) ? body.reasoning.effort : undefined;
  else value = body.reasoning_effort;
  return typeof value === "string" ? value : undefined;
}

/**
 * The body with the decision applied to the target wire's effort field only: every other field stays, nested
 * objects are copied before a change (the client's own body is never mutated). Returns the same object when
 * nothing changes: a decision equal to what the body already says is no rewrite.
 */
export function writeEffort(
  wire: Wire,
  body: Record<string, unknown>,
  decision: EffortDecision,
): Record<string, unknown> {
  const current = readEffort(wire, body);
  if (decision.kind === "set" && current === decision.value) return body;
  if (decision.kind === "omit" && current === undefined) return body;
  const out = { ...body };
  const nested = (field: "output_config" | "reasoning"): void => {
    const inner = isObject(out[field]) ? { ...(out[field] as Record<string, unknown>) } : {};
    if (decision.kind === "set") inner.effort = decision.value;
    else delete inner.effort;
    // An object left empty by the omission goes too, so the target sees no effort setting at all.
    if (Object.keys(inner).length === 0) delete out[field];
    else out[field] = inner;
  };
  if (wire === "messages") nested("output_config");
  else if (wire === "responses") nested("reasoning");
  else if (decision.kind === "set") out.reasoning_effort = decision.value;
  else delete out.reasoning_effort;
  return out;
}
