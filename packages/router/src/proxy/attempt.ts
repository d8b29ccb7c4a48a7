import type { Dispatcher } from "undici";
import { wireFor } from "../config/records.js";
import { cooldownMs, FAILOVER_STATUSES } from "../failover.js";
import type { Reply, Usage } from "../ir.js";
import type { AttemptRecord } from "../ledger/ledger.js";
import type { Target } from "../select.js";
import { collectedReply } from "../subscriptions/collected-reply.js";
import { translateResponse } from "../translate.js";
import { providerErrorCode } from "../upstream-error.js";
import { connectionFailureCode } from "../upstreams/client.js";
import { WIRE_CODECS } from "../wires/codecs.js";
import { parseJson, readBounded } from "./body-plumbing.js";
import { tryNative } from "./native-attempt.js";
import { type Hop, prepareHop } from "./prepare-hop.js";
import {
  type AttemptResult,
  codeForStatus,
  type Failure,
  finishOk,
  type RequestContext,
  sendError,
} from "./request-context.js";
import { canceledAttempt, streamFromFirstChunk } from "./stream.js";
import { attemptHeaders, upstreamPath } from "./upstream-request.js";

const MAX_ERROR_BODY = 64 * 1024;
const MAX_REPLY_BODY = 256 * 1024 * 1024;

/** One physical send as the stages after it see it. */
export interface AttemptContext {
  readonly hop: Hop;
  readonly attempt: AttemptRecord;
  readonly startedMs: number;
  /** Credentials sent on this attempt: never repeated in a message the client gets. */
  readonly secrets: readonly string[];
  /** The model name the client asked for, carried back in a translated reply. */
  readonly clientModel: string;
}

/**
 * One attempt at one target: prepare the hop, open the key, send, and either fail over (nothing reached the
 * client), answer a final error, or relay the reply (one-shot or streamed).
 */
export async function tryTarget(
  context: RequestContext,
  target: Target,
  options: { hasFallback: boolean; stale?: string } = { hasFallback: false },
): Promise<AttemptResult> {
  const { call, record, attempts, deps, now } = context;
  const { upstream, model } = target;
  const upstreamWire = wireFor(upstream, model);
  if (call.countTokens && upstreamWire !== "messages") {
    // There is no local tokenizer: only a messages-wire upstream can count (no upstream is asked).
    sendError(
      context,
      { status: 404, code: "not_supported", message: "count_tokens is forwarded only to a messages-wire upstream" },
      "client_error",
    );
    return { kind: "final" };
  }
  const startedMs = now();
  const attempt: AttemptRecord = {
    request_id: record.id,
    ordinal: attempts.length + 1,
    upstream_slug: upstream.slug,
    model,
    upstream_wire: upstreamWire,
    status: null,
    error_code: null,
    duration_ms: 0,
    bytes_streamed: false,
    started_at: new Date(startedMs).toISOString(),
  };
  attempts.push(attempt);
  const fail = (failure: Failure): AttemptResult => {
    attempt.error_code = failure.code;
    attempt.duration_ms = now() - startedMs;
    return { kind: "failover", failure };
  };

  const hop = prepareHop(context, target);
  if ("failure" in hop) return fail(hop.failure);
  if (hop.native) return tryNative(context, hop, attempt, options.hasFallback);
  const { translated } = hop;

  // The attempt's credential (subscriptions/upstream-credentials.ts): a typed or saved key, or a sign-in's token.
  const opened = await deps.credentials.open(upstream, options.stale);
  if (!opened.ok) return fail(opened.failure);
  const key = opened.credential.key;
  const headers = attemptHeaders(context, upstream, upstreamWire, translated.stream, opened.credential);

  const upstreamAbort = new AbortController();
  const onGone = (): void => upstreamAbort.abort();
  call.clientGone.addEventListener("abort", onGone, { once: true });
  const canceled = (): AttemptResult => canceledAttempt(context, { attempt, startedMs });
  // A connection error or timeout before any byte reached the client: cool down and try the next target.
  const connectionFailure = (error: unknown): AttemptResult => {
    if (call.clientGone.aborted) return canceled();
    const code = connectionFailureCode(error);
    deps.cooldowns.cool(upstream.slug, model, cooldownMs({ connectionError: true }, now()), false);
    deps.log.warn(`router: upstream ${upstream.slug} model ${model} failed: ${code}`);
    return fail({ status: code === "timeout" ? 504 : 502, code, message: `upstream ${upstream.slug}: ${code}` });
  };
  // A body that cannot be rendered (the ingress depth check should have caught it) is the client's error: it is
  // answered 400 before any upstream is contacted, and nothing cools down for it.
  let rendered: string;
  try {
    rendered = JSON.stringify(translated.body);
  } catch {
    call.clientGone.removeEventListener("abort", onGone);
    attempts.pop();
    sendError(
      context,
      { status: 400, code: "invalid_request", message: "the request body cannot be rendered for the upstream" },
      "client_error",
    );
    return { kind: "final" };
  }
  try {
    if (call.clientGone.aborted) return canceled();
    let response: Dispatcher.ResponseData;
    try {
      response = await deps.client.send(`${upstream.base_url}${upstreamPath(upstreamWire, call.countTokens)}`, {
        method: "POST",
        headers,
        body: rendered,
        signal: upstreamAbort.signal,
      });
    } catch (error) {
      return connectionFailure(error);
    }
    attempt.status = response.statusCode;

    if (response.statusCode >= 300) {
      let errorBody = "";
      try {
        errorBody = await readBounded(response.body, MAX_ERROR_BODY);
      } catch {
        if (call.clientGone.aborted) return canceled();
      }
      // A code that carries the credential sent on this attempt (an upstream echoing the key) is never repeated.
      const providerCode = providerErrorCode(parseJson(errorBody), key === undefined ? [] : [key]);
      const status = response.statusCode;
      const code = codeForStatus(status);
      const message = `upstream ${upstream.slug} answered HTTP ${status}${providerCode ? ` (${providerCode})` : ""}`;
      deps.log.warn(
        `router: upstream ${upstream.slug} model ${model} answered ${status}${providerCode ? ` (${providerCode})` : ""}`,
      );
      const retryAfter = response.headers["retry-after"];
      // A subscription backend's 401: the sign-in is read again (renewed if it still holds this token) and the
      // target tried once more, as a new attempt (docs/router.md, "`plan_signin_a`: the sign-in's own backend";
      // docs/router.md, "`plan_signin_b`: an exchanged subscription key").
      if (status === 401 && upstream.auth !== "api_key" && options.stale === undefined && key !== undefined) {
        attempt.error_code = code;
        attempt.duration_ms = now() - startedMs;
        return tryTarget(context, target, { ...options, stale: key });
      }
      if (FAILOVER_STATUSES.has(status)) {
        const duration = cooldownMs({ status, headers: response.headers }, now());
        deps.cooldowns.cool(upstream.slug, model, duration, status === 429 || status === 529);
        return fail({ status, code, message, ...(typeof retryAfter === "string" ? { retryAfter } : {}) });
      }
      // Any other 4xx goes back without trying another target and without cooldown (Failover rule 4). A redirect
      // is never followed (the key stays with its host) and reads as an upstream failure.
      attempt.error_code = code;
      attempt.duration_ms = now() - startedMs;
      record.upstream_slug = upstream.slug;
      record.upstream_model = model;
      const clientStatus = status < 400 ? 502 : status;
      sendError(context, { status: clientStatus, code, message }, status < 400 ? "upstream_error" : "client_error");
      return { kind: "final" };
    }

    record.upstream_slug = upstream.slug;
    record.upstream_model = model;
    const attemptContext: AttemptContext = {
      hop,
      attempt,
      startedMs,
      secrets: key === undefined ? [] : [key],
      clientModel: context.requestedModel ?? model,
    };
    if (hop.collect)
      return await collectedReply(context, attemptContext, response.body, { connectionFailure, canceled });
    if (!translated.stream) {
      let text: string;
      try {
        text = await readBounded(response.body, MAX_REPLY_BODY);
      } catch (error) {
        // Nothing reached the client yet, so a body cut short still fails over.
        record.upstream_slug = null;
        record.upstream_model = null;
        return connectionFailure(error);
      }
      return oneShotReply(context, attemptContext, text) ?? canceled();
    }
    // The attempt commits with the first byte the client gets, so nothing is written before the upstream has sent
    // one: a stream that fails or ends before its first byte still fails over like a connection error.
    return await streamFromFirstChunk(context, attemptContext, response.body, connectionFailure);
  } finally {
    call.clientGone.removeEventListener("abort", onGone);
  }
}

/**
 * A whole upstream reply: relayed as is on a same-wire hop, else decoded once and encoded for the client. Undefined
 * when the client left before it could be written.
 */
function oneShotReply(
  context: RequestContext,
  attemptContext: AttemptContext,
  text: string,
): AttemptResult | undefined {
  const { call, record, now } = context;
  const { hop, attempt, startedMs } = attemptContext;
  const { upstreamWire } = hop;
  const unreadable = (): AttemptResult => {
    attempt.error_code = "upstream_error";
    attempt.duration_ms = now() - startedMs;
    sendError(
      context,
      { status: 502, code: "upstream_error", message: `upstream ${hop.target.upstream.slug} sent an unreadable body` },
      "upstream_error",
    );
    return { kind: "final" };
  };
  const json = parseJson(text);
  if (json === undefined) return unreadable();
  // One decode serves the ledger's usage and, on a translated hop, the client's encoding.
  let reply: Reply | undefined;
  try {
    reply = call.countTokens ? undefined : WIRE_CODECS[upstreamWire].decodeResponse(json);
  } catch {
    reply = undefined;
  }
  const usage: Usage | undefined = reply?.usage;
  let out: string;
  try {
    const options = { model: attemptContext.clientModel, customToolNames: hop.translated.customToolNames };
    out =
      upstreamWire === call.inboundWire
        ? text
        : JSON.stringify(
            reply
              ? WIRE_CODECS[call.inboundWire].encodeResponse(reply, options)
              : translateResponse(upstreamWire, call.inboundWire, json, options),
          );
  } catch {
    return unreadable();
  }
  if (call.clientGone.aborted) return undefined;
  call.response.writeHead(200, { "content-type": "application/json" });
  call.response.end(out);
  attempt.bytes_streamed = true;
  attempt.duration_ms = now() - startedMs;
  finishOk(record, 200, usage);
  return { kind: "done" };
}
