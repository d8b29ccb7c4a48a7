/**
 * What a question carries besides its prompt, for the person to judge it by (docs/api.md, "Item context"): for a
 * finished turn (a follow-up) how long the turn took and the last few messages of the session. Zod-free, so the
 * broker, the web page and the phone share the shape and its limits.
 *
 * A context is posted before its question (`POST /v1/contexts`) and named by the question's ARC event in the
 * `x-notify-context` extension; the broker binds the two in the question's transaction. The page reads it from
 * `GET /ui/api/items/:id/context`; the phone gets it sealed in the question's envelope (`interaction.context`).
 */

/** A stored context is at most this many bytes of JSON (UTF-8). */
export const ITEM_CONTEXT_MAX_BYTES = 256 * 1024;
/** A context's id, as `POST /v1/contexts` issues it. */
export const ITEM_CONTEXT_ID_PATTERN = /^ctx_[0-9a-f]{32}$/;
/** A turn context keeps at most this many messages (the newest). */
export const TURN_MAX_MESSAGES = 8;
/** Each message of a turn context is at most this many characters (cut with the visible marker before that). */
export const TURN_MESSAGE_MAX_CHARS = 4000;
/** A turn's duration is at most a week in milliseconds; anything longer is not a turn's. */
const TURN_MAX_DURATION_MS = 7 * 24 * 3600 * 1000;

/** Who said a message of a turn: the person (a prompt or a reply) or the agent. */
export const TURN_ROLES = ["user", "assistant"] as const;
export type TurnRole = (typeof TURN_ROLES)[number];

export interface TurnMessage {
  role: TurnRole;
  text: string;
}

/** A finished turn: its length and the session's last messages before the agent's final one, oldest first. */
export interface TurnContext {
  kind: "turn";
  /** From the prompt that started the turn to its end, when the agent's transcript says. */
  duration_ms?: number;
  messages: TurnMessage[];
  /** Something was left out: older messages, or the end of a long one. */
  truncated: boolean;
  /** The stored JSON's size in bytes (set by the broker). */
  bytes: number;
}

export type ItemContext = TurnContext;

/** What `POST /v1/contexts` takes: a context without the fields the broker sets. */
export type ItemContextInput = Omit<TurnContext, "bytes" | "truncated"> & { truncated?: boolean };

export type ContextCheck = { ok: true; value: ItemContext } | { ok: false; error: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function unknownField(record: Record<string, unknown>, allowed: readonly string[], where: string): string | undefined {
  const extra = Object.keys(record).find((name) => !allowed.includes(name));
  return extra === undefined ? undefined : `${where}.${extra}: unknown field`;
}

/** The UTF-8 size of a context's JSON. */
export function contextBytes(context: Omit<ItemContext, "bytes">): number {
  return new TextEncoder().encode(JSON.stringify({ ...context, bytes: 0 })).length;
}

/**
 * Checks a posted context: known kind, known fields, types and limits. A valid one comes back with `bytes` set; an
 * invalid one names the first problem as `$.field: what` (the API's 400 message).
 */
export function checkItemContext(raw: unknown): ContextCheck {
  if (!isRecord(raw)) return { ok: false, error: "$: expected an object" };
  if (raw.kind !== "turn") return { ok: false, error: '$.kind: expected "turn"' };
  const extra = unknownField(raw, ["kind", "duration_ms", "messages", "truncated"], "$");
  if (extra) return { ok: false, error: extra };
  const context: Omit<TurnContext, "bytes"> = { kind: "turn", messages: [], truncated: raw.truncated === true };
  if (raw.truncated !== undefined && typeof raw.truncated !== "boolean") {
    return { ok: false, error: "$.truncated: expected a boolean" };
  }
  if (raw.duration_ms !== undefined) {
    const ms = raw.duration_ms;
    if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0 || ms > TURN_MAX_DURATION_MS) {
      return { ok: false, error: `$.duration_ms: expected an integer from 0 to ${TURN_MAX_DURATION_MS}` };
    }
    context.duration_ms = ms;
  }
  if (!Array.isArray(raw.messages)) return { ok: false, error: "$.messages: expected an array" };
  if (raw.messages.length > TURN_MAX_MESSAGES) {
    return { ok: false, error: `$.messages: at most ${TURN_MAX_MESSAGES} messages` };
  }
  for (const [index, message] of raw.messages.entries()) {
    const where = `$.messages[${index}]`;
    if (!isRecord(message)) return { ok: false, error: `${where}: expected an object` };
    const extraField = unknownField(message, ["role", "text"], where);
    if (extraField) return { ok: false, error: extraField };
    if (!(TURN_ROLES as readonly unknown[]).includes(message.role)) {
      return { ok: false, error: `${where}.role: expected "user" or "assistant"` };
    }
    if (typeof message.text !== "string" || message.text === "") {
      return { ok: false, error: `${where}.text: expected a non-empty string` };
    }
    if (Array.from(message.text).length > TURN_MESSAGE_MAX_CHARS) {
      return { ok: false, error: `${where}.text: at most ${TURN_MESSAGE_MAX_CHARS} characters` };
    }
    context.messages.push({ role: message.role as TurnRole, text: message.text });
  }
  const bytes = contextBytes(context);
  if (bytes > ITEM_CONTEXT_MAX_BYTES) return { ok: false, error: `$: at most ${ITEM_CONTEXT_MAX_BYTES} bytes` };
  return { ok: true, value: { ...context, bytes } };
}

/**
 * The context cut to `maxBytes` of JSON for a smaller carrier (the phone's sealed envelope): the oldest messages go
 * first, and the result says it was cut. Undefined when even an empty context does not fit.
 */
export function fitItemContext(context: ItemContext, maxBytes: number): ItemContext | undefined {
  if (context.bytes <= maxBytes) return context;
  const messages = [...context.messages];
  while (messages.length > 0) {
    messages.shift();
    const cut: Omit<TurnContext, "bytes"> = { ...context, messages, truncated: true };
    const bytes = contextBytes(cut);
    if (bytes <= maxBytes) return { ...cut, bytes };
  }
  const empty: Omit<TurnContext, "bytes"> = { ...context, messages: [], truncated: true };
  const bytes = contextBytes(empty);
  return bytes <= maxBytes ? { ...empty, bytes } : undefined;
}
