import type * as z from "zod";
import { ArcEvent } from "./arc/schemas.js";
import { RelayAnswer, RelayInteractionRequest } from "./relay/schemas.js";

/** One problem, located by a JSON path such as `$.request.response.choices[1].id`. */
export interface Problem {
  path: string;
  message: string;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "$";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

function problemsOf(error: z.ZodError): Problem[] {
  const problems: Problem[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) problems.push({ path: jsonPath([...issue.path, key]), message: "unknown field" });
      continue;
    }
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // Report the branch that came closest (fewest problems), so "both choice_id and text" reads clearly.
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      for (const inner of best) {
        problems.push({ path: jsonPath([...issue.path, ...inner.path]), message: inner.message });
      }
      continue;
    }
    problems.push({ path: jsonPath(issue.path), message: issue.message });
  }
  return problems;
}

function validator<T>(schema: z.ZodType<T>) {
  return (input: unknown): Validation<T> => {
    const result = schema.safeParse(input);
    return result.success ? { ok: true, value: result.data } : { ok: false, problems: problemsOf(result.error) };
  };
}

/** Validates one ARC 0.2 event and reports every problem with its JSON path. */
export const validateArcEvent = validator(ArcEvent);
export const validateRelayAnswer = validator(RelayAnswer);
export const validateRelayInteractionRequest = validator(RelayInteractionRequest);

export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((problem) => `${problem.path}: ${problem.message}`).join("; ");
}
