import type { ArcAnswerSpec, ArcRequestKind, RequestCreatedEvent, RequestUpdatedEvent } from "@notify/contracts";
import { invalid } from "../domain/errors.js";
import type { InteractionInput } from "../interactions/types.js";
import type { NotificationInput, Priority } from "../notifications/types.js";

/** docs/arc.md, "Kind to type and priority". */
export const KIND_MAPPING: Record<ArcRequestKind, { type: string; priority: Priority; title: string }> = {
  information: { type: "info", priority: "normal", title: "Information" },
  question: { type: "input_required", priority: "high", title: "Question" },
  permission: { type: "permission_required", priority: "high", title: "Permission needed" },
  blocked: { type: "blocked", priority: "high", title: "Blocked" },
  failure: { type: "error", priority: "high", title: "Failure" },
  completion: { type: "completed", priority: "normal", title: "Completed" },
};

type RequestEvent = RequestCreatedEvent | RequestUpdatedEvent;

/**
 * An event without a title gets "<kind label> from <sender name or id>" (docs/arc.md): the toast needs a title and
 * the kind plus the producer is what a person scans for.
 */
export function defaultTitle(event: RequestEvent): string {
  const from = event.sender.name ?? event.sender.id;
  // At most 200 characters, counted and cut by code point: a UTF-16 slice would cut a name of astral characters
  // short and could split a surrogate pair (at most 23 + 160 characters are possible, so nothing is cut today).
  return [...`${KIND_MAPPING[event.request.kind].title} from ${from}`].slice(0, 200).join("");
}

/**
 * `context.project`, trimmed like the native APIs trim it (a whitespace-only value is kept as sent), so the
 * notification and its question carry the same project and the `project` list filters find both.
 */
function projectOf(context: RequestEvent["context"]): string | undefined {
  if (!context?.project) return undefined;
  return context.project.trim() || context.project;
}

/**
 * Projects sender, context, kind, title, message, priority and key into a notification (docs/arc.md, "Fields"). Other
 * extensions are never copied; correlation hints go to `metadata.arc` for display only.
 */
export function toNotificationInput(event: RequestEvent): NotificationInput {
  const { request, sender, context } = event;
  const mapping = KIND_MAPPING[request.kind];
  const input: NotificationInput = {
    title: request.title ?? defaultTitle(event),
    message: request.message,
    type: event.extensions?.["x-notify"]?.notification_type ?? mapping.type,
    priority: request.priority ?? mapping.priority,
    agent: sender.id,
  };
  if (request.key !== undefined) input.key = request.key;
  if (sender.instance_id) input.agentInstance = sender.instance_id;
  const project = projectOf(context);
  if (project !== undefined) input.project = project;
  if (context?.cwd) input.cwd = context.cwd;
  if (context?.pid !== undefined) input.pid = context.pid;
  const arc: Record<string, unknown> = { event_id: event.event_id, kind: request.kind };
  if (sender.name !== undefined) arc.sender_name = sender.name;
  if (sender.version) arc.sender_version = sender.version;
  for (const field of ["session_id", "correlation_id", "turn_id", "native_request_id"] as const) {
    const value = context?.[field];
    if (value) arc[field] = value;
  }
  // docs/api.md, "Limits", bounds metadata at 8192 serialized bytes; odd inputs (escaped control characters) could pass
  // it, so the correlation hints are dropped before the limit is crossed rather than failing the event.
  const metadata = { arc };
  if (Buffer.byteLength(JSON.stringify(metadata)) > 8192) {
    for (const field of [
      "correlation_id",
      "native_request_id",
      "turn_id",
      "session_id",
      "sender_version",
      "sender_name",
    ]) {
      delete arc[field];
      if (Buffer.byteLength(JSON.stringify(metadata)) <= 8192) break;
    }
  }
  if (Buffer.byteLength(JSON.stringify(metadata)) <= 8192) input.metadata = metadata;
  return input;
}

/**
 * Characters as the ARC validator and the JSON Schemas count them (zod 4, JSON Schema `maxLength`): Unicode code
 * points, so a surrogate pair is one character. `string.length` would count it twice and refuse a prompt the
 * contract allows.
 */
function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/**
 * The durable question of an answerable event. Invalid questions are rejected before anything is stored
 * (docs/api.md, "POST /v1/events"): the prompt is the message and must fit 2000 characters, and `expires_at` must lie
 * in the future.
 */
export function toInteractionInput(event: RequestEvent, spec: ArcAnswerSpec, nowMs: number): InteractionInput {
  const { request, sender, context } = event;
  if (codePoints(request.message) > 2000) {
    throw invalid("$.request.message: an answerable request's message is its prompt and must be 1-2000 characters");
  }
  const expiresMs = Date.parse(spec.expires_at);
  if (!(expiresMs > nowMs)) throw invalid("$.request.response.expires_at: must be in the future");
  const input: InteractionInput = {
    agent: sender.id,
    kind: spec.kind,
    prompt: request.message,
    choices:
      spec.kind === "text"
        ? []
        : spec.choices.map((choice) =>
            choice.detail === undefined
              ? { id: choice.id, label: choice.label }
              : { id: choice.id, label: choice.label, detail: choice.detail },
          ),
    text_max_length: spec.kind === "text" ? (spec.text_max_length ?? 500) : 500,
    ttl_seconds: Math.ceil((expiresMs - nowMs) / 1000),
    expires_at_ms: expiresMs,
  };
  if (request.key !== undefined) input.key = request.key;
  if (sender.instance_id) input.agent_instance = sender.instance_id;
  const project = projectOf(context);
  if (project !== undefined) input.project = project;
  if (context?.session_id) input.session_id = context.session_id;
  if (context?.turn_id) input.turn_id = context.turn_id;
  if (context?.native_request_id) input.native_request_id = context.native_request_id;
  return input;
}
