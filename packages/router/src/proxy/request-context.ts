import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { RouterConfig } from "../config/config-service.js";
import type { ConfigSnapshot } from "../config/records.js";
import type { CooldownBook } from "../failover.js";
import { type RouterErrorCode, wireError } from "../http/wire-errors.js";
import type { DecodedRequest, Usage, Wire } from "../ir.js";
import { type AttemptRecord, type Ledger, type Outcome, type RequestRecord, tokensOf } from "../ledger/ledger.js";
import type { ClientCredential } from "../native.js";
import type { UpstreamCredentials } from "../subscriptions/upstream-credentials.js";
import type { UpstreamClient } from "../upstreams/client.js";

export interface RouterLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface ProxyDependencies {
  config: RouterConfig;
  ledger: Ledger;
  client: UpstreamClient;
  cooldowns: CooldownBook;
  log: RouterLog;
  version: string;
  now?: () => number;
  /** The agent's own vendor (config key RouterNativeBaseUrl). */
  nativeBaseUrl?: () => string;
  /** Each attempt's credential: typed key, saved account, or subscription sign-in (subscriptions/). */
  credentials: UpstreamCredentials;
  /** Hosts of flat-plan services (smart-switching.ts FLAT_PLAN_HOSTS unless a test injects a set). */
  flatPlanHosts?: ReadonlySet<string>;
}

export interface ProxyCall {
  inboundWire: Wire;
  countTokens: boolean;
  body: unknown;
  /** The body's bytes as the client sent them: a native request forwards them unchanged. */
  rawBody?: Buffer;
  /** The inbound query string with its `?`, or "" (forwarded to the native vendor only). */
  query?: string;
  /** The client's own vendor credential (the router key came in x-notify-router-key); native requests only. */
  credential?: ClientCredential;
  headers: IncomingHttpHeaders;
  /** Hijacked from fastify: the proxy writes status, headers and bytes itself. */
  response: ServerResponse;
  /** Aborted when the client hangs up. */
  clientGone: AbortSignal;
}

export interface Failure {
  status: number;
  code: RouterErrorCode;
  message: string;
  retryAfter?: string;
  /** The native vendor's own answer: the client gets it unchanged when nothing after it serves the request. */
  vendorAnswer?: { status: number; headers: Record<string, string>; body: Buffer };
  /** The request could not be rendered for the target (e.g. previous_response_id on a translated hop). */
  render?: boolean;
}

export type AttemptResult = { kind: "done" } | { kind: "failover"; failure: Failure } | { kind: "final" };

/**
 * One logical request as every stage sees it: the client's call, the body read once (and decoded once when its wire
 * can read it), and the ledger rows being filled in. Stages take this one object instead of long argument lists.
 */
export interface RequestContext {
  readonly call: ProxyCall;
  readonly deps: ProxyDependencies;
  readonly now: () => number;
  readonly body: Record<string, unknown>;
  /** Undefined when the inbound wire could not decode it (a passthrough hop may still carry it). */
  decoded: DecodedRequest | undefined;
  readonly requestedModel: string | undefined;
  /** The configuration this request was selected with (set once selection starts). */
  snapshot?: ConfigSnapshot;
  readonly record: RequestRecord;
  readonly attempts: AttemptRecord[];
}

/** Answers a failure in the inbound wire's shape (unless something was written already) and fills the ledger row. */
export function sendError(context: RequestContext, failure: Failure, outcome: Outcome): void {
  const { call, record } = context;
  record.status = failure.status;
  record.outcome = outcome;
  record.error_code = failure.code;
  if (call.response.headersSent || call.response.destroyed) return;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (failure.retryAfter !== undefined) headers["retry-after"] = failure.retryAfter;
  call.response.writeHead(failure.status, headers);
  call.response.end(JSON.stringify(wireError(call.inboundWire, failure.code, failure.message)));
}

export function finishOk(record: RequestRecord, status: number, usage: Usage | undefined): void {
  record.status = status;
  record.outcome = "ok";
  if (usage) {
    record.tokens = tokensOf(usage);
    record.usage_status = "reported";
  }
}

/** The code a failed upstream status is reported with (the provider's own message is never passed on). */
export function codeForStatus(status: number): RouterErrorCode {
  if (status === 429 || status === 529) return "rate_limited";
  if (status === 402) return "payment_required";
  // 5xx, and a redirect the router does not follow.
  if (status >= 500 || status < 400) return "upstream_error";
  return "client_error";
}
