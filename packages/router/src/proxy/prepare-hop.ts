import { type ConfigSnapshot, wireFor } from "../config/records.js";
import { familyOf } from "../effort/families.js";
import { automaticTable, type EffortTable, IDENTITY_TABLE, layered, mapEffort } from "../effort/mapping.js";
import { readEffort, writeEffort } from "../effort/wire-fields.js";
import type { Wire } from "../ir.js";
import type { Target } from "../select.js";
import { adjustPlanRequest } from "../subscriptions/plan-request.js";
import { type TranslatedRequest, translateRequest } from "../translate.js";
import { TranslationError } from "../translation-error.js";
import type { Failure, RequestContext } from "./request-context.js";

/** A request made ready for one concrete target: what is sent, over which wire. */
export interface Hop {
  target: Target;
  upstreamWire: Wire;
  translated: TranslatedRequest;
  /** The agent's own vendor: the client's bytes go as they are (`translated.body` is not used). */
  native?: true;
  /**
   * The upstream answers only as a stream but the client asked for one response: the stream is read whole and
   * collected into one reply (`plan_signin_a`, docs/router.md, "`plan_signin_a`: the sign-in's own backend").
   */
  collect?: true;
}

/**
 * The stage between "target resolved" and "request rendered": everything that depends on the concrete target
 * (its wire, its native model) happens here, once per attempt: a native target keeps the client's bytes; any other
 * gets its body translated (or passed through) and then its effort mapped (effort/); a `plan_signin_a` target then
 * gets the subscription backend's adjustments (subscriptions/plan-request.ts: stream forced on, `collect` set when
 * the client asked for one response). Returns a render failure when the target cannot express the request.
 */
export function prepareHop(context: RequestContext, target: Target): Hop | { failure: Failure } {
  const { call, body, decoded, record, deps } = context;
  if (target.native) {
    // Native requests stay byte for byte: no model rewrite, no effort mapping, nothing rendered.
    const translated = {
      body,
      warnings: [],
      replayedIdsStripped: 0,
      stream: body.stream === true,
      customToolNames: new Set<string>(),
    };
    return { target, upstreamWire: "messages", translated, native: true };
  }
  const upstreamWire = wireFor(target.upstream, target.model);
  let translated: TranslatedRequest;
  try {
    translated = translateRequest(call.inboundWire, upstreamWire, body, {
      model: target.model,
      ...(decoded ? { decoded } : {}),
    });
  } catch (error) {
    if (error instanceof TranslationError) {
      return { failure: { status: 400, code: error.code, message: error.message, render: true } };
    }
    throw error;
  }
  if (translated.replayedIdsStripped > 0) {
    deps.log.info(
      `router: ${translated.replayedIdsStripped} replayed item id(s) dropped for upstream ${target.upstream.slug}`,
    );
  }
  for (const warning of translated.warnings) if (!record.notes.includes(warning.code)) record.notes.push(warning.code);
  // Effort mapping: once per hop, for this concrete model, on the target wire's own field only.
  const decision = mapEffort(readEffort(call.inboundWire, body), targetEffortTable(context.snapshot, target));
  const mapped = writeEffort(upstreamWire, translated.body as Record<string, unknown>, decision);
  if (mapped !== translated.body) translated = { ...translated, body: mapped };
  // The subscription backend's request adjustments (subscriptions/plan-request.ts), last, after effort mapping.
  if (target.upstream.auth === "plan_signin_a" && upstreamWire === "responses") {
    const collect = !translated.stream;
    translated = { ...translated, body: adjustPlanRequest(translated.body as Record<string, unknown>), stream: true };
    if (collect) return { target, upstreamWire, translated, collect: true };
  }
  return { target, upstreamWire, translated };
}

/** The effort table of a target: its family's automatic table under the family and per-model override sets. */
export function targetEffortTable(snapshot: ConfigSnapshot | undefined, target: Target): EffortTable | undefined {
  const overrides = snapshot?.effort;
  const modelSet = overrides?.models[`${target.upstream.slug}/${target.model}`];
  const family = familyOf(target.model);
  // A model of no family omits effort, unless the owner gave it a per-model override set.
  if (!family) return modelSet ? layered(IDENTITY_TABLE, modelSet) : undefined;
  return layered(automaticTable(family), overrides?.families[family.id], modelSet);
}
