import type { Wire } from "../ir.js";

/** docs/router.md, "Errors": the codes the router answers with. */
export type RouterErrorCode =
  | "router_disabled"
  | "unauthorized"
  | "forbidden"
  | "host_not_loopback"
  | "payload_too_large"
  | "invalid_request"
  | "missing_model"
  | "unknown_model"
  | "ambiguous_model"
  | "no_enabled_target"
  | "unsupported_previous_response_id"
  | "not_supported"
  | "provider_key_unreadable"
  | "subscription_signed_out"
  | "rate_limited"
  | "payment_required"
  | "timeout"
  | "connection_error"
  | "client_error"
  | "upstream_error"
  | "all_targets_unavailable";

/** The inbound wire of a router path; GET /models and unknown paths answer in the responses/chat shape. */
export function wireOfPath(path: string): Wire | "models" {
  if (path.includes("/messages")) return "messages";
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  return "models";
}

const OPENAI_TYPES: Partial<Record<RouterErrorCode, string>> = {
  unauthorized: "authentication_error",
  forbidden: "permission_error",
  host_not_loopback: "permission_error",
  rate_limited: "rate_limit_error",
  router_disabled: "not_found_error",
  unknown_model: "not_found_error",
};

/**
 * An error in the inbound wire's own shape: `{error: {message, type, code}}` on the responses and chat wires (and
 * the model list), `{type: "error", error: {type, message}}` on the messages wire, where `type` carries the code.
 */
export function wireError(wire: Wire | "models", code: RouterErrorCode, message: string): object {
  if (wire === "messages") return { type: "error", error: { type: code, message } };
  const type =
    OPENAI_TYPES[code] ??
    (code === "upstream_error" || code === "connection_error" || code === "timeout"
      ? "api_error"
      : "invalid_request_error");
  return { error: { message, type, code } };
}

/** What the router saw of a relayed responses-wire stream, so the event that ends it fits in. */
export interface RelayedStreamState {
  responseId?: string;
  /** The last `sequence_number` the upstream sent. */
  lastSequence?: number;
}

/**
 * The event that ends a committed stream when the upstream fails after the first byte
 * (docs/router.md, "Failover and cooldowns", rule 4), for passthrough streams whose bytes the router does not
 * re-encode. On the responses wire an `error` event (what the vendor's clients raise on) comes first, then
 * `response.failed` for clients that wait for a terminal event; both continue the upstream's sequence numbers and name
 * its response.
 */
export function wireErrorEvent(
  wire: Wire,
  code: RouterErrorCode,
  message: string,
  relayed: RelayedStreamState = {},
): string {
  switch (wire) {
    case "responses": {
      const next = (relayed.lastSequence ?? -1) + 1;
      const error = { type: "error", code, message, param: null, sequence_number: next };
      const failed = {
        type: "response.failed",
        sequence_number: next + 1,
        response: {
          ...(relayed.responseId === undefined ? {} : { id: relayed.responseId }),
          object: "response",
          status: "failed",
          error: { code, message },
          incomplete_details: null,
        },
      };
      return `event: error\ndata: ${JSON.stringify(error)}\n\nevent: response.failed\ndata: ${JSON.stringify(failed)}\n\n`;
    }
    case "messages":
      return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: code, message } })}\n\n`;
    case "chat":
      return `data: ${JSON.stringify({ error: { message, type: "api_error", code } })}\n\n`;
    default: {
      const _exhaustive: never = wire;
      return _exhaustive;
    }
  }
}
