import type { ConfigSnapshot } from "../config/records.js";
import { allCoolingAnswer, cooldownMs } from "../failover.js";
import type { DecodedRequest } from "../ir.js";
import { type AttemptRecord, type Outcome, type RequestRecord, requestId, tokensOf } from "../ledger/ledger.js";
import { DEFAULT_NATIVE_BASE_URL } from "../native.js";
import { nativeGroup, SELECTION_STATUS, selectTargets, type Target } from "../select.js";
import { SwitchState, switchGroup } from "../smart-switching.js";
import { TranslationError } from "../translation-error.js";
import { WIRE_CODECS } from "../wires/codecs.js";
import { decodeResponsesRequest } from "../wires/responses/decode-request.js";
import { tryTarget } from "./attempt.js";
import { sendVendorAnswer } from "./native-attempt.js";
import {
  type Failure,
  type ProxyCall,
  type ProxyDependencies,
  type RequestContext,
  sendError,
} from "./request-context.js";

/**
 * One logical request through the router: select, try targets in order with failover and cooldowns, and write one
 * ledger request with one attempt per physical send. The stages, in order: `selectTargets` (select.ts), then per
 * target `tryTarget` (attempt.ts), whose `prepareHop` (prepare-hop.ts) is where everything that depends on the
 * concrete target happens before the request is rendered; `streamReply` (stream.ts) relays a stream.
 */
export class RouterProxy {
  private readonly now: () => number;
  /** Smart switching's memory (sticky targets, round-robin turns): in memory only. */
  readonly switching: SwitchState;

  constructor(private readonly deps: ProxyDependencies) {
    this.now = deps.now ?? Date.now;
    this.switching = new SwitchState(this.now);
  }

  async handle(call: ProxyCall): Promise<void> {
    const startedMs = this.now();
    const body = call.body as Record<string, unknown>;
    const requestedModel = typeof body?.model === "string" ? body.model : undefined;
    const record: RequestRecord = {
      id: requestId(startedMs),
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
    const context: RequestContext = {
      call,
      deps: this.deps,
      now: this.now,
      body,
      decoded: undefined,
      requestedModel,
      record,
      attempts,
    };
    try {
      await this.run(context);
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

  private async run(context: RequestContext): Promise<void> {
    const { call, body, requestedModel, record, attempts } = context;
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
        sendError(context, { status: 400, code: "invalid_request", message: error.message }, "client_error");
        return;
      }
      if (!(error instanceof TranslationError)) throw error;
    }
    context.decoded = decoded;

    const snapshot: ConfigSnapshot = this.deps.config.snapshot();
    context.snapshot = snapshot;
    // Selection rule 3 applies to a messages-wire client that kept its own vendor credential.
    const native =
      call.inboundWire === "messages" && call.credential !== undefined
        ? { baseUrl: this.deps.nativeBaseUrl?.() ?? DEFAULT_NATIVE_BASE_URL }
        : undefined;
    const selection = selectTargets(snapshot, requestedModel, native ? { native } : {});
    if (!selection.ok) {
      const messages: Record<typeof selection.error, string> = {
        missing_model: "the request names no model and no default route is set",
        unknown_model: `no upstream, alias or combo serves model ${JSON.stringify(requestedModel ?? "")}`,
        ambiguous_model: `more than one enabled upstream declares model ${JSON.stringify(requestedModel ?? "")}; use provider/model`,
        no_enabled_target: "every target of this route is disabled",
      };
      sendError(
        context,
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
      sendError(
        context,
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

    const strategy = snapshot.settings.switch_strategy;
    const isNative = selection.routeKind === "native";
    const group = isNative ? nativeGroup(requestedModel ?? "") : switchGroup(selection, requestedModel);
    const ordered = isNative
      ? this.switching.orderNative(strategy, group, selection.targets)
      : this.switching.order(strategy, group, selection.targets);
    const cooling = (target: Target): boolean =>
      target.native !== true && this.deps.cooldowns.cooling(target.upstream.slug, target.model) !== undefined;
    let last: Failure | undefined;
    for (const [index, target] of ordered.entries()) {
      if (call.clientGone.aborted) break;
      if (cooling(target)) continue;
      const hasFallback = ordered.slice(index + 1).some((next) => !cooling(next));
      const result = await tryTarget(context, target, { hasFallback });
      if (result.kind === "done") {
        // A committed stream that broke counts as a failure of its target (sticky lets go of it).
        if (record.outcome === "ok") this.switching.succeeded(strategy, group, target);
        else this.switching.failed(group, target);
        return;
      }
      if (result.kind === "final") return;
      this.switching.failed(group, target);
      if (target.native) {
        const answer = result.failure.vendorAnswer;
        this.switching.nativeRefused(
          group,
          cooldownMs(
            answer ? { status: answer.status, headers: answer.headers } : { connectionError: true },
            this.now(),
          ),
        );
      }
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
    // The native vendor's own answer goes back unchanged when it is the last failure (Errors 3).
    if (failure.vendorAnswer)
      sendVendorAnswer(context, failure, outcome === "client_error" ? "upstream_error" : outcome);
    else sendError(context, failure, outcome);
  }
}
