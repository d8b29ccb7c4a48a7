import { wireFor } from "../config/records.js";
import type { Wire } from "../ir.js";
import type { Target } from "../select.js";
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
}

/**
 * The stage between "target resolved" and "request rendered": everything that depends on the concrete target
 * (its wire, its native model) happens here, once per attempt. Translation or passthrough of the body, then the
 * per-target adjustments. Returns a render failure when the target cannot express the request.
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
  return { target, upstreamWire, translated };
}
