import type { Dispatcher } from "undici";
import type { Reply } from "../ir.js";
import type { AttemptRecord } from "../ledger/ledger.js";
import { NATIVE_FALLBACK_STATUSES, nativeReplyHeaders, nativeRequestHeaders } from "../native.js";
import { providerErrorCode } from "../upstream-error.js";
import { connectionFailureCode } from "../upstreams/client.js";
import { WIRE_CODECS } from "../wires/codecs.js";
import type { AttemptContext } from "./attempt.js";
import { parseJson, readBoundedBytes } from "./body-plumbing.js";
import type { Hop } from "./prepare-hop.js";
import {
  type AttemptResult,
  codeForStatus,
  type Failure,
  finishOk,
  type RequestContext,
  sendError,
} from "./request-context.js";
import { canceledAttempt, streamFromFirstChunk } from "./stream.js";

const MAX_VENDOR_ERROR_BODY = 1024 * 1024;
const MAX_REPLY_BODY = 256 * 1024 * 1024;

/**
 * One attempt at the agent's own vendor (docs/router.md, "The agent's own native models"): the client's body byte for
 * byte, its query string, its own credential and vendor, SDK, user-agent, app and session headers, to the vendor's
 * `/messages` or `/messages/count_tokens`. Never cooled down. A refusal moves on to the fallbacks when there are
 * any (`hasFallback`); otherwise, and for any other answer, the vendor's status, body and `retry-after` go back
 * unchanged. The credential goes to this one host, and nowhere else: not the ledger, not a log line.
 */
export async function tryNative(
  context: RequestContext,
  hop: Hop,
  attempt: AttemptRecord,
  hasFallback: boolean,
): Promise<AttemptResult> {
  const { call, record, deps, now } = context;
  const credential = call.credential;
  const startedMs = now();
  const fail = (failure: Failure): AttemptResult => {
    attempt.error_code = failure.code;
    attempt.duration_ms = now() - startedMs;
    return { kind: "failover", failure };
  };
  const canceled = (): AttemptResult => canceledAttempt(context, { attempt, startedMs });
  if (credential === undefined || call.rawBody === undefined) {
    // Selection offers the vendor only with a credential; this guards the invariant.
    return fail({ status: 502, code: "upstream_error", message: "no client credential for the native vendor" });
  }
  const secrets = [credential.value, credential.value.replace(/^bearer\s+/i, "")];
  const base = hop.target.upstream.base_url;
  const url = `${base}${call.countTokens ? "/messages/count_tokens" : "/messages"}${call.query ?? ""}`;
  const abort = new AbortController();
  const onGone = (): void => abort.abort();
  call.clientGone.addEventListener("abort", onGone, { once: true });
  const connectionFailure = (error: unknown): AttemptResult => {
    if (call.clientGone.aborted) return canceled();
    const code = connectionFailureCode(error);
    deps.log.warn(`router: native vendor for model ${hop.target.model} failed: ${code}`);
    return fail({ status: code === "timeout" ? 504 : 502, code, message: `the native vendor: ${code}` });
  };
  try {
    let response: Dispatcher.ResponseData;
    try {
      response = await deps.client.send(url, {
        method: "POST",
        headers: nativeRequestHeaders(call.headers, credential),
        body: call.rawBody,
        signal: abort.signal,
      });
    } catch (error) {
      return connectionFailure(error);
    }
    const status = response.statusCode;
    attempt.status = status;
    if (status >= 300) {
      let body: Buffer = Buffer.alloc(0);
      try {
        body = await readBoundedBytes(response.body, MAX_VENDOR_ERROR_BODY);
      } catch {
        if (call.clientGone.aborted) return canceled();
      }
      const providerCode = providerErrorCode(parseJson(body.toString("utf8")), secrets);
      const code = codeForStatus(status);
      deps.log.warn(
        `router: native vendor answered ${status}${providerCode ? ` (${providerCode})` : ""} for model ${hop.target.model}`,
      );
      const vendorAnswer = { status, headers: nativeReplyHeaders(response.headers), body };
      const failure: Failure = { status, code, message: `the native vendor answered HTTP ${status}`, vendorAnswer };
      if (hasFallback && NATIVE_FALLBACK_STATUSES.has(status)) return fail(failure);
      attempt.error_code = code;
      attempt.duration_ms = now() - startedMs;
      record.upstream_slug = hop.target.upstream.slug;
      record.upstream_model = hop.target.model;
      sendVendorAnswer(context, failure, status < 500 ? "client_error" : "upstream_error");
      return { kind: "final" };
    }
    record.upstream_slug = hop.target.upstream.slug;
    record.upstream_model = hop.target.model;
    const attemptContext: AttemptContext = {
      hop,
      attempt,
      startedMs,
      secrets,
      clientModel: hop.target.model,
    };
    if (!hop.translated.stream) {
      let bytes: Buffer;
      try {
        bytes = await readBoundedBytes(response.body, MAX_REPLY_BODY);
      } catch (error) {
        record.upstream_slug = null;
        record.upstream_model = null;
        return connectionFailure(error);
      }
      if (call.clientGone.aborted) return canceled();
      let reply: Reply | undefined;
      try {
        const json = parseJson(bytes.toString("utf8"));
        reply = call.countTokens || json === undefined ? undefined : WIRE_CODECS.messages.decodeResponse(json);
      } catch {
        reply = undefined;
      }
      call.response.writeHead(status, nativeReplyHeaders(response.headers));
      call.response.end(bytes);
      attempt.bytes_streamed = true;
      attempt.duration_ms = now() - startedMs;
      finishOk(record, status, reply?.usage);
      return { kind: "done" };
    }
    return await streamFromFirstChunk(context, attemptContext, response.body, connectionFailure);
  } finally {
    call.clientGone.removeEventListener("abort", onGone);
  }
}

/** The native vendor's own answer, unchanged: status, body and retry headers (docs/router.md, "Errors"). */
export function sendVendorAnswer(
  context: RequestContext,
  failure: Failure,
  outcome: "client_error" | "upstream_error" | "failed_over_exhausted",
): void {
  const answer = failure.vendorAnswer;
  if (!answer) {
    sendError(context, failure, outcome);
    return;
  }
  const { call, record } = context;
  record.status = answer.status;
  record.outcome = outcome;
  record.error_code = failure.code;
  if (call.response.headersSent || call.response.destroyed) return;
  call.response.writeHead(answer.status, answer.headers);
  call.response.end(answer.body);
}
