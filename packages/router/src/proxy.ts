import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { randomHex } from "@notify/contracts/ids";
import type { RouterConfig } from "./config/config-service.js";
import type { ConfigSnapshot } from "./config/records.js";
import { wireFor } from "./config/records.js";
import { allCoolingAnswer, CooldownBook, cooldownMs, FAILOVER_STATUSES } from "./failover.js";
import { type RouterErrorCode, wireError, wireErrorEvent } from "./http/wire-errors.js";
import type { DecodedRequest, Reply, StreamPart, Usage, Wire } from "./ir.js";
import { type AttemptRecord, type Ledger, type Outcome, type RequestRecord, tokensOf } from "./ledger/ledger.js";
import { PassthroughTap } from "./passthrough-tap.js";
import { SELECTION_STATUS, selectTargets, type Target } from "./select.js";
import { StreamTranslator } from "./stream-translator.js";
import { clientWantsUsage, translateRequest, translateResponse } from "./translate.js";
import { TranslationError } from "./translation-error.js";
import { CONNECTION_FAILED_MESSAGE, providerErrorCode, TRUNCATED_STREAM_MESSAGE } from "./upstream-error.js";
import { connectionFailureCode, type UpstreamClient } from "./upstreams/client.js";
import { WIRE_CODECS } from "./wires/codecs.js";
import { decodeResponsesRequest } from "./wires/responses/decode-request.js";

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
}

export interface ProxyCall {
  inboundWire: Wire;
  countTokens: boolean;
  body: unknown;
  headers: IncomingHttpHeaders;
  /** Hijacked from fastify: the proxy writes status, headers and bytes itself. */
  response: ServerResponse;
  /** Aborted when the client hangs up. */
  clientGone: AbortSignal;
}

interface Failure {
  status: number;
  code: RouterErrorCode;
  message: string;
  retryAfter?: string;
  /** The request could not be rendered for the target (e.g. previous_response_id on a translated hop). */
  render?: boolean;
}

type AttemptResult = { kind: "done" } | { kind: "failover"; failure: Failure } | { kind: "final" };

const UPSTREAM_PATHS: Record<Wire, string> = {
  responses: "/responses",
  chat: "/chat/completions",
  messages: "/messages",
};
const MAX_ERROR_BODY = 64 * 1024;
const MAX_REPLY_BODY = 256 * 1024 * 1024;

/** Resolves when the response can take more bytes, or will never need to (closed, or the client is gone). */
function drained(response: ServerResponse, gone: AbortSignal): Promise<void> {
  if (response.destroyed || gone.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      response.off("drain", done);
      response.off("close", done);
      gone.removeEventListener("abort", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
    gone.addEventListener("abort", done);
  });
}

/** An upstream body destroyed without 'end' and without an error: cut short (read as a socket failure). */
function closedEarly(): Error {
  return Object.assign(new Error("upstream body closed before its end"), { code: "UND_ERR_SOCKET" });
}

interface BodyListeners {
  data(chunk: Buffer): void;
  end(): void;
  close(): void;
  error(error: unknown): void;
}

/** Listens to an upstream body's data, end, close and error; returns what takes all four listeners off again. */
function watchBody(body: Readable, on: BodyListeners): () => void {
  body.on("data", on.data);
  body.on("end", on.end);
  body.on("close", on.close);
  body.on("error", on.error);
  return () => {
    body.off("data", on.data);
    body.off("end", on.end);
    body.off("close", on.close);
    body.off("error", on.error);
  };
}

/**
 * Waits for the first chunk of an upstream body (undefined when it ended with no byte) and leaves the body paused
 * after it. Throws when the body fails before its first byte.
 */
function firstChunk(body: Readable): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const ended = (): void => {
      unwatch();
      resolve(undefined);
    };
    const unwatch = watchBody(body, {
      data: (chunk) => {
        unwatch();
        body.pause();
        resolve(chunk);
      },
      end: ended,
      close: ended,
      error: (error) => {
        unwatch();
        reject(error);
      },
    });
  });
}

/**
 * Relays a paused upstream body chunk by chunk to `onChunk` from its own 'data' events (no async iterator, web
 * stream or promise per chunk). `onChunk` returns false when the client cannot take more: the body pauses until
 * the response drains. Resolves with "end" when the body ended, "gone" when the client left, or rejects with the
 * body's error.
 */
function relay(
  body: Readable,
  response: ServerResponse,
  gone: AbortSignal,
  onChunk: (chunk: Buffer) => boolean,
): Promise<"end" | "gone"> {
  return new Promise((resolve, reject) => {
    if (gone.aborted || response.destroyed) {
      resolve("gone");
      return;
    }
    let settled = false;
    const settle = (): void => {
      settled = true;
      unwatch();
      response.off("drain", onDrain);
      response.off("close", onGone);
      gone.removeEventListener("abort", onGone);
    };
    const onGone = (): void => {
      if (settled) return;
      settle();
      resolve("gone");
    };
    const onDrain = (): void => {
      if (!settled) body.resume();
    };
    const unwatch = watchBody(body, {
      data: (chunk) => {
        if (gone.aborted || response.destroyed) {
          onGone();
          return;
        }
        if (!onChunk(chunk)) body.pause();
      },
      end: () => {
        if (settled) return;
        settle();
        resolve("end");
      },
      close: () => {
        if (settled) return;
        settle();
        reject(closedEarly());
      },
      error: (error) => {
        if (settled) return;
        settle();
        reject(error);
      },
    });
    response.on("drain", onDrain);
    response.on("close", onGone);
    gone.addEventListener("abort", onGone);
    body.resume();
  });
}

/** The code a failed upstream status is reported with (the provider's own message is never passed on). */
function codeForStatus(status: number): RouterErrorCode {
  if (status === 429 || status === 529) return "rate_limited";
  if (status === 402) return "payment_required";
  // 5xx, and a redirect the router does not follow.
  if (status >= 500 || status < 400) return "upstream_error";
  return "client_error";
}

/**
 * Reads a whole upstream body, keeping at most `limit` bytes, from its own 'data' events (one promise, no async
 * iterator). Rejects with the body's error, or when it closes before its end.
 */
function readBounded(body: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const unwatch = watchBody(body, {
      data: (chunk) => {
        if (size < limit) chunks.push(size + chunk.length <= limit ? chunk : chunk.subarray(0, limit - size));
        size += chunk.length;
      },
      end: () => {
        unwatch();
        resolve((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8"));
      },
      close: () => {
        unwatch();
        reject(closedEarly());
      },
      error: (error) => {
        unwatch();
        reject(error);
      },
    });
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One logical request through the router: select, try targets in order with failover and cooldowns, translate or
 * pass through, stream with a usage tap, and write one ledger request with one attempt per physical send.
 */
export class RouterProxy {
  private readonly now: () => number;

  constructor(private readonly deps: ProxyDependencies) {
    this.now = deps.now ?? Date.now;
  }

  async handle(call: ProxyCall): Promise<void> {
    const startedMs = this.now();
    const body = call.body as Record<string, unknown>;
    const requestedModel = typeof body?.model === "string" ? body.model : undefined;
    const record: RequestRecord = {
      id: `req_${randomHex(12)}`,
      started_at: new Date(startedMs).toISOString(),
      finished_at: null,
      inbound_wire: call.inboundWire,
      requested_model: requestedModel ?? null,
      route_kind: null,
      route_name: null,
      upstream_slug: null,
      upstream_model: null,
      stream: body?.stream === true,
      status: null,
      outcome: null,
      tokens: tokensOf(undefined),
      usage_status: "unreported",
      error_code: null,
      notes: [],
    };
    const attempts: AttemptRecord[] = [];
    try {
      await this.run(call, body, requestedModel, record, attempts);
    } catch (error) {
      // The plugin answers 500; the ledger still gets a finished row.
      if (record.outcome === null) {
        record.outcome = "upstream_error";
        record.status = 500;
        record.error_code = "upstream_error";
      }
      throw error;
    } finally {
      record.finished_at = new Date(this.now()).toISOString();
      try {
        this.deps.ledger.record(record, attempts);
      } catch {
        this.deps.log.warn(`router ledger write failed for ${record.id}`);
      }
    }
  }

  private sendError(call: ProxyCall, record: RequestRecord, failure: Failure, outcome: Outcome): void {
    record.status = failure.status;
    record.outcome = outcome;
    record.error_code = failure.code;
    if (call.response.headersSent || call.response.destroyed) return;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (failure.retryAfter !== undefined) headers["retry-after"] = failure.retryAfter;
    call.response.writeHead(failure.status, headers);
    call.response.end(JSON.stringify(wireError(call.inboundWire, failure.code, failure.message)));
  }

  private async run(
    call: ProxyCall,
    body: Record<string, unknown>,
    requestedModel: string | undefined,
    record: RequestRecord,
    attempts: AttemptRecord[],
  ): Promise<void> {
    // A request the router cannot read at all is rejected before any target is tried (Failover rule 3).
    // The decoded request is kept: a translated hop encodes it instead of decoding the body again.
    let decoded: DecodedRequest | undefined;
    try {
      decoded =
        call.inboundWire === "responses"
          ? decodeResponsesRequest(body, { translatedHop: false })
          : WIRE_CODECS[call.inboundWire].decodeRequest(body);
    } catch (error) {
      if (error instanceof TranslationError && error.code === "invalid_request") {
        this.sendError(call, record, { status: 400, code: "invalid_request", message: error.message }, "client_error");
        return;
      }
      if (!(error instanceof TranslationError)) throw error;
    }

    const snapshot: ConfigSnapshot = this.deps.config.snapshot();
    const selection = selectTargets(snapshot, requestedModel);
    if (!selection.ok) {
      const messages: Record<typeof selection.error, string> = {
        missing_model: "the request names no model and no default route is set",
        unknown_model: `no upstream, alias or combo serves model ${JSON.stringify(requestedModel ?? "")}`,
        ambiguous_model: `more than one enabled upstream declares model ${JSON.stringify(requestedModel ?? "")}; use provider/model`,
        no_enabled_target: "every target of this route is disabled",
      };
      this.sendError(
        call,
        record,
        { status: SELECTION_STATUS[selection.error], code: selection.error, message: messages[selection.error] },
        "client_error",
      );
      return;
    }
    record.route_kind = selection.routeKind;
    record.route_name = selection.routeName;

    const nowMs = this.now();
    const coolings = selection.targets.map((target) => this.deps.cooldowns.cooling(target.upstream.slug, target.model));
    if (coolings.every((cooling) => cooling !== undefined)) {
      const answer = allCoolingAnswer(coolings as { untilMs: number; rateLimited: boolean }[], nowMs);
      this.sendError(
        call,
        record,
        {
          status: answer.status,
          code: answer.code,
          message: "every target is cooling down after recent failures",
          retryAfter: String(answer.retryAfterSeconds),
        },
        "failed_over_exhausted",
      );
      return;
    }

    let last: Failure | undefined;
    for (const target of selection.targets) {
      if (call.clientGone.aborted) break;
      if (this.deps.cooldowns.cooling(target.upstream.slug, target.model)) continue;
      const result = await this.attempt(call, body, decoded, requestedModel, target, record, attempts);
      if (result.kind === "done" || result.kind === "final") return;
      last = result.failure;
    }
    if (call.clientGone.aborted) {
      record.outcome = "canceled";
      record.status = null;
      return;
    }
    const failure = last ?? {
      status: 503,
      code: "all_targets_unavailable" as const,
      message: "no target could be tried",
    };
    const outcome: Outcome =
      attempts.length > 1 ? "failed_over_exhausted" : failure.render ? "client_error" : "upstream_error";
    this.sendError(call, record, failure, outcome);
  }

  private async attempt(
    call: ProxyCall,
    body: Record<string, unknown>,
    decoded: DecodedRequest | undefined,
    requestedModel: string | undefined,
    target: Target,
    record: RequestRecord,
    attempts: AttemptRecord[],
  ): Promise<AttemptResult> {
    const { upstream, model } = target;
    const upstreamWire = wireFor(upstream, model);
    if (call.countTokens && upstreamWire !== "messages") {
      // There is no local tokenizer: only a messages-wire upstream can count (no upstream is asked).
      this.sendError(
        call,
        record,
        { status: 404, code: "not_supported", message: "count_tokens is forwarded only to a messages-wire upstream" },
        "client_error",
      );
      return { kind: "final" };
    }
    const startedMs = this.now();
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
      attempt.duration_ms = this.now() - startedMs;
      return { kind: "failover", failure };
    };

    let translated: ReturnType<typeof translateRequest>;
    try {
      translated = translateRequest(call.inboundWire, upstreamWire, body, {
        model,
        ...(decoded ? { decoded } : {}),
      });
    } catch (error) {
      if (error instanceof TranslationError) {
        return fail({ status: 400, code: error.code, message: error.message, render: true });
      }
      throw error;
    }
    if (translated.replayedIdsStripped > 0) {
      this.deps.log.info(
        `router: ${translated.replayedIdsStripped} replayed item id(s) dropped for upstream ${upstream.slug}`,
      );
    }
    for (const warning of translated.warnings)
      if (!record.notes.includes(warning.code)) record.notes.push(warning.code);

    let key: string | undefined;
    try {
      key = this.deps.config.openKey(upstream);
    } catch {
      return fail({
        status: 503,
        code: "provider_key_unreadable",
        message: `the key of upstream ${upstream.slug} cannot be read`,
      });
    }
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: translated.stream ? "text/event-stream" : "application/json",
      "user-agent": `notify-router/${this.deps.version}`,
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

    const upstreamAbort = new AbortController();
    const onGone = (): void => upstreamAbort.abort();
    call.clientGone.addEventListener("abort", onGone, { once: true });
    const canceled = (): AttemptResult => {
      attempt.error_code = "canceled";
      attempt.duration_ms = this.now() - startedMs;
      record.outcome = "canceled";
      record.status = null;
      return { kind: "final" };
    };
    // A connection error or timeout before any byte reached the client: cool down and try the next target.
    const connectionFailure = (error: unknown): AttemptResult => {
      if (call.clientGone.aborted) return canceled();
      const code = connectionFailureCode(error);
      this.deps.cooldowns.cool(upstream.slug, model, cooldownMs({ connectionError: true }, this.now()), false);
      this.deps.log.warn(`router: upstream ${upstream.slug} model ${model} failed: ${code}`);
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
      this.sendError(
        call,
        record,
        { status: 400, code: "invalid_request", message: "the request body cannot be rendered for the upstream" },
        "client_error",
      );
      return { kind: "final" };
    }
    try {
      if (call.clientGone.aborted) return canceled();
      const path = call.countTokens ? "/messages/count_tokens" : UPSTREAM_PATHS[upstreamWire];
      let response: Awaited<ReturnType<UpstreamClient["send"]>>;
      try {
        response = await this.deps.client.send(`${upstream.base_url}${path}`, {
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
        this.deps.log.warn(
          `router: upstream ${upstream.slug} model ${model} answered ${status}${providerCode ? ` (${providerCode})` : ""}`,
        );
        const retryAfter = response.headers["retry-after"];
        if (FAILOVER_STATUSES.has(status)) {
          const duration = cooldownMs({ status, headers: response.headers }, this.now());
          this.deps.cooldowns.cool(upstream.slug, model, duration, status === 429 || status === 529);
          return fail({ status, code, message, ...(typeof retryAfter === "string" ? { retryAfter } : {}) });
        }
        // Any other 4xx goes back without trying another target and without cooldown (Failover rule 4). A redirect
        // is never followed (the key stays with its host) and reads as an upstream failure.
        attempt.error_code = code;
        attempt.duration_ms = this.now() - startedMs;
        record.upstream_slug = upstream.slug;
        record.upstream_model = model;
        const clientStatus = status < 400 ? 502 : status;
        this.sendError(
          call,
          record,
          { status: clientStatus, code, message },
          status < 400 ? "upstream_error" : "client_error",
        );
        return { kind: "final" };
      }

      record.upstream_slug = upstream.slug;
      record.upstream_model = model;
      const clientModel = requestedModel ?? model;
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
        const unreadable = (): AttemptResult => {
          attempt.error_code = "upstream_error";
          attempt.duration_ms = this.now() - startedMs;
          this.sendError(
            call,
            record,
            { status: 502, code: "upstream_error", message: `upstream ${upstream.slug} sent an unreadable body` },
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
          const options = { model: clientModel, customToolNames: translated.customToolNames };
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
        if (call.clientGone.aborted) return canceled();
        call.response.writeHead(200, { "content-type": "application/json" });
        call.response.end(out);
        attempt.bytes_streamed = true;
        attempt.duration_ms = this.now() - startedMs;
        this.finishOk(record, 200, usage);
        return { kind: "done" };
      }
      // The attempt commits with the first byte the client gets, so nothing is written before the upstream has sent
      // one: a stream that fails or ends before its first byte still fails over like a connection error.
      let opened: Buffer | undefined;
      try {
        opened = await firstChunk(response.body);
      } catch (error) {
        opened = undefined;
        if (call.clientGone.aborted) return canceled();
        record.upstream_slug = null;
        record.upstream_model = null;
        return connectionFailure(error);
      }
      if (opened === undefined) {
        record.upstream_slug = null;
        record.upstream_model = null;
        return connectionFailure(Object.assign(new Error("empty stream"), { code: "UND_ERR_SOCKET" }));
      }
      return await this.stream(
        call,
        body,
        upstreamWire,
        response.body,
        opened,
        clientModel,
        translated.customToolNames,
        record,
        attempt,
        startedMs,
        key === undefined ? [] : [key],
      );
    } finally {
      call.clientGone.removeEventListener("abort", onGone);
    }
  }

  private finishOk(record: RequestRecord, status: number, usage: Usage | undefined): void {
    record.status = status;
    record.outcome = "ok";
    if (usage) {
      record.tokens = tokensOf(usage);
      record.usage_status = "reported";
    }
  }

  /** Once the first byte is written the attempt is committed: a later failure ends the stream, never a retry. */
  private async stream(
    call: ProxyCall,
    body: Record<string, unknown>,
    upstreamWire: Wire,
    upstreamBody: Readable,
    first: Buffer,
    clientModel: string,
    customToolNames: ReadonlySet<string>,
    record: RequestRecord,
    attempt: AttemptRecord,
    startedMs: number,
    secrets: readonly string[],
  ): Promise<AttemptResult> {
    let usage: Usage | undefined;
    let failure: Extract<StreamPart, { type: "error" }> | undefined;
    const observe = (part: StreamPart): void => {
      if (part.type === "usage") usage = part.usage;
      if (part.type === "error") failure ??= part;
    };
    // Why the upstream body failed, if it did (an inter-chunk timeout is recorded as `timeout`).
    let bodyError: unknown;
    upstreamBody.on("error", (error) => {
      bodyError ??= error;
    });
    const passthrough = upstreamWire === call.inboundWire;
    // Passthrough: the bytes go to the client unchanged and a synchronous tap reads usage, the terminal event and
    // (responses wire) the id and sequence numbers for the ledger. Translated: the full decode/encode pipeline.
    const tap = passthrough ? new PassthroughTap(upstreamWire) : undefined;
    const translator = passthrough
      ? undefined
      : new StreamTranslator(
          upstreamWire,
          call.inboundWire,
          { model: clientModel, includeUsage: clientWantsUsage(call.inboundWire, body), customToolNames },
          observe,
          secrets,
        );
    const response = call.response;
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const gone = (): boolean => call.clientGone.aborted || response.destroyed;
    // Writes one upstream chunk (relayed as is, or translated); false when the client cannot take more now.
    const onChunk = (value: Buffer): boolean => {
      if (tap) {
        const writable = response.write(value);
        tap.push(value);
        attempt.bytes_streamed = true;
        return writable;
      }
      const text = (translator as StreamTranslator).push(value);
      if (text === "") return true;
      attempt.bytes_streamed = true;
      return response.write(text);
    };
    try {
      const writable = onChunk(first);
      if (!writable) await drained(response, call.clientGone);
      if ((await relay(upstreamBody, response, call.clientGone, onChunk)) === "end" && !gone()) {
        tap?.end();
        const rest = translator?.end() ?? "";
        if (rest !== "") response.write(rest);
      }
    } catch (error) {
      bodyError ??= error;
      failure ??= { type: "error", code: "upstream_error", message: CONNECTION_FAILED_MESSAGE };
      // A translated stream ends with its wire's own error event (a relayed one gets it below).
      if (translator && !gone()) response.write(translator.fail());
    }
    if (gone()) {
      // The upstream request is already aborted (clientGone); the tap ends with it.
      upstreamBody.destroy();
    }
    if (tap) {
      usage = tap.usage;
      failure ??= tap.failure;
    }
    const relayed = tap?.relayed ?? {};
    attempt.duration_ms = this.now() - startedMs;
    if (usage) {
      record.tokens = tokensOf(usage);
      record.usage_status = "reported";
    }
    if (gone()) {
      record.outcome = "canceled";
      record.status = null;
      attempt.error_code = "canceled";
      response.destroy();
      return { kind: "final" };
    }
    const truncated =
      failure !== undefined &&
      (failure.message === TRUNCATED_STREAM_MESSAGE || failure.message === CONNECTION_FAILED_MESSAGE);
    if (passthrough && truncated) {
      response.write(
        wireErrorEvent(call.inboundWire, "upstream_error", "upstream stream ended before completion", relayed),
      );
    }
    response.end();
    if (failure) {
      const code =
        bodyError !== undefined && connectionFailureCode(bodyError) === "timeout" ? "timeout" : "upstream_error";
      record.status = 200;
      record.outcome = "upstream_error";
      record.error_code = code;
      attempt.error_code = code;
    } else {
      this.finishOk(record, 200, usage);
    }
    return { kind: "done" };
  }
}

export { CooldownBook };
