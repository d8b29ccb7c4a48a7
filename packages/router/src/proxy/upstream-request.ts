import type { Upstream } from "../config/records.js";
import type { Wire } from "../ir.js";
import { isFlatPlanUrl } from "../smart-switching.js";
import { conversationId } from "../subscriptions/conversation-id.js";
import type { UpstreamCredential } from "../subscriptions/outcome.js";
import type { RequestContext } from "./request-context.js";

// The per-wire shape of an upstream request: the path appended to the upstream's base URL and the headers that
// carry its own key. The client's own credential is never among them.

const UPSTREAM_PATHS: Record<Wire, string> = {
  responses: "/responses",
  chat: "/chat/completions",
  messages: "/messages",
};

export function upstreamPath(wire: Wire, countTokens: boolean): string {
  return countTokens ? "/messages/count_tokens" : UPSTREAM_PATHS[wire];
}

/**
 * Headers for a routed upstream: JSON in, SSE or JSON out, the router's User-Agent, and the upstream's own key
 * (`x-api-key` plus `anthropic-version` on the messages wire, `Authorization: Bearer` otherwise). A messages-wire
 * client's `anthropic-version` and `anthropic-beta` go to a messages-wire upstream.
 */
export function upstreamHeaders(
  context: RequestContext,
  upstreamWire: Wire,
  stream: boolean,
  key: string | undefined,
): Record<string, string> {
  const { call } = context;
  // NOTE: every upstream request carries the router's own User-Agent (docs/router.md, "The flat-plan session header").
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
    "user-agent": `notify-router/${context.deps.version}`,
  };
  if (upstreamWire === "messages") {
    if (key !== undefined) headers["x-api-key"] = key;
    const version = call.headers["anthropic-version"];
    headers["anthropic-version"] = typeof version === "string" ? version : "2023-06-01";
    const beta = call.headers["anthropic-beta"];
    if (call.inboundWire === "messages" && typeof beta === "string") headers["anthropic-beta"] = beta;
  } else if (key !== undefined) {
    headers.authorization = `Bearer ${key}`;
  }
  return headers;
}

/** The session header of the flat-plan host (docs/router.md, "The flat-plan session header"). */
export const FLAT_PLAN_SESSION_HEADER = "x-opencode-session";

/**
 * The headers of one attempt at a routed upstream: the wire's own (above) with this attempt's credential, the
 * credential's account- and client-identifying headers (`plan_signin_a`), and the agent's own conversation id:
 * as `session_id` to the `plan_signin_a` backend (as the Codex CLI sends it) and as `x-opencode-session` to a flat-plan
 * place (FLAT_PLAN_HOSTS, host or host/path; the one flat-plan preset, OpenCode Go, refuses a request without it). A per-process id stands in when the agent sent none.
 */
export function attemptHeaders(
  context: RequestContext,
  upstream: Upstream,
  upstreamWire: Wire,
  stream: boolean,
  credential: UpstreamCredential,
): Record<string, string> {
  const headers = { ...upstreamHeaders(context, upstreamWire, stream, credential.key), ...credential.headers };
  if (upstream.auth === "plan_signin_a") headers.session_id = conversationId(context.call.headers, context.body);
  if (isFlatPlanUrl(upstream.base_url, context.deps.flatPlanHosts)) {
    headers[FLAT_PLAN_SESSION_HEADER] = conversationId(context.call.headers, context.body);
  }
  return headers;
}
