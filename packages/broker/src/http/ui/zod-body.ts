import type { z } from "zod";
import { invalid } from "../../domain/errors.js";

/**
 * The /ui/api request schemas, and zod with them (about 95 modules), imported on the first request that needs one
 * rather than at start (issue 22, part 6).
 */
export const uiSchemas = (): Promise<typeof import("@notify/contracts/ui")> => import("@notify/contracts/ui");

/**
 * Validates a /ui/api body with its shared schema; the first problem becomes the 400 `{error}` text, and its path
 * the `field` (docs/api.md, "Errors").
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (body === null || body === undefined) throw invalid("request body must be a JSON object");
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join(".") : undefined;
  throw invalid(`${field !== undefined ? `${field}: ` : ""}${issue?.message ?? "invalid body"}`, field);
}
