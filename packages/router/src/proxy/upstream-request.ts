import type { Wire } from "../ir.js";
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
