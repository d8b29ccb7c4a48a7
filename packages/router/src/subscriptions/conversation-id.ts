import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/**
 * The agent's own conversation id, for the flat-plan host's session header
 * (docs/router.md, "The flat-plan session header"): from the inbound request's session or conversation headers (Codex
 * sends `session_id`; Claude Code
 * `x-claude-code-session-id`), else from its fields (`prompt_cache_key`, which Codex sets to its conversation id;
 * `session_id`, `conversation_id`, `metadata.session_id`), else one id for this process.
 */
const HEADERS = [
  "session_id",
  "session-id",
  "x-session-id",
  "conversation_id",
  "conversation-id",
  "x-conversation-id",
  "x-claude-code-session-id",
] as const;

/** Ids are passed on only when they look like ids: no header injection, nothing that could be prose. */
const ID_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;

export const PROCESS_SESSION_ID = randomUUID();

const idOf = (value: unknown): string | undefined =>
  typeof value === "string" && ID_PATTERN.test(value) ? value : undefined;

export function conversationId(headers: IncomingHttpHeaders, body: Record<string, unknown>): string {
  for (const name of HEADERS) {
    const id = idOf(headers[name]);
    if (id) return id;
  }
  const metadata = body.metadata !== null && typeof body.metadata === "object" ? body.metadata : {};
  for (const value of [
    body.session_id,
    body.conversation_id,
    body.prompt_cache_key,
    (metadata as Record<string, unknown>).session_id,
    (metadata as Record<string, unknown>).conversation_id,
  ]) {
    const id = idOf(value);
    if (id) return id;
  }
  return PROCESS_SESSION_ID;
}
