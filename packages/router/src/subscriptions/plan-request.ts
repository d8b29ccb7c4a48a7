/**
 * docs/router.md, "`plan_signin_a`: the sign-in's own backend": the request adjustments for the `plan_signin_a` backend
 * (the ChatGPT backend's responses endpoint behind the Codex sign-in): `store` false, `instructions` "" when missing,
 * no
 * `max_output_tokens`, `max_tokens`, `temperature`, `top_p` or `previous_response_id`, and `stream` forced on (the
 * backend refuses `stream: false` with 400). A client that asked for one response gets the stream collected.
 */
const REMOVED = ["max_output_tokens", "max_tokens", "temperature", "top_p", "previous_response_id"] as const;

export function adjustPlanRequest(body: Record<string, unknown>): Record<string, unknown> {
  const adjusted: Record<string, unknown> = { ...body, store: false, stream: true };
  if (typeof adjusted.instructions !== "string") adjusted.instructions = "";
  for (const field of REMOVED) delete adjusted[field];
  return adjusted;
}
