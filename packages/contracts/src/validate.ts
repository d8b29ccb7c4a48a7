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
  collect(error.issues, [], problems);
  return problems;
}

/**
 * Flattens zod issues into problems. A union's branch issues are relative to the union, so they are collected
 * recursively under its path with the same rules (an unknown key inside a branch is `<path>.<key>: unknown field`
 * like everywhere else).
 */
function collect(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[], problems: Problem[]): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) problems.push({ path: jsonPath([...path, key]), message: "unknown field" });
      continue;
    }
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // Report the branch that came closest (fewest problems), so "both choice_id and text" reads clearly.
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      collect(best, path, problems);
      continue;
    }
    problems.push({ path: jsonPath(path), message: issue.message });
  }
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
