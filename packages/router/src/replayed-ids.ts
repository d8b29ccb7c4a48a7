import { isObject, type JsonObject } from "./json.js";

/** The only identifiers the responses wire accepts (docs/router.md, "Passthrough"). */
const ACCEPTED_ID = /^[A-Za-z0-9_-]+$/;

export interface StrippedIds {
  body: JsonObject;
  /** Items whose identifier was removed, plus reasoning items dropped whole; the broker logs it when non-zero. */
  count: number;
}

/**
 * On a responses-wire hop, removes item identifiers the wire contract cannot accept, which agents replay from other
 * upstreams. A reasoning item with such an identifier is dropped whole: its content is bound to that identifier.
 * An acceptable identifier is never touched, and the body is not changed in place.
 */
export function stripReplayedIds(body: JsonObject): StrippedIds {
  if (!Array.isArray(body.input)) return { body, count: 0 };
  let count = 0;
  const input: unknown[] = [];
  for (const item of body.input) {
    if (!isObject(item) || !("id" in item) || (typeof item.id === "string" && ACCEPTED_ID.test(item.id))) {
      input.push(item);
      continue;
    }
    count += 1;
    if (item.type === "reasoning") continue;
    const { id: _dropped, ...rest } = item;
    input.push(rest);
  }
  return count === 0 ? { body, count } : { body: { ...body, input }, count };
}
