/** Cutting text to a service's documented limits without splitting a character. */

const ELLIPSIS = "…";

/**
 * At most `max` UTF-16 code units (what JavaScript, Slack, Discord and Telegram count), ending in "…" when cut.
 * A surrogate pair is never split.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - ELLIPSIS.length);
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return `${text.slice(0, end)}${ELLIPSIS}`;
}

/** At most `max` code points (Pushover counts characters, not bytes), ending in "…" when cut. */
export function truncateCodePoints(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join("")}${ELLIPSIS}`;
}

/** At most `max` bytes of UTF-8 (ntfy counts bytes), ending in "…" when cut. */
export function truncateUtf8(text: string, max: number): string {
  if (Buffer.byteLength(text, "utf8") <= max) return text;
  const budget = max - Buffer.byteLength(ELLIPSIS, "utf8");
  let used = 0;
  let kept = "";
  for (const point of text) {
    const size = Buffer.byteLength(point, "utf8");
    if (used + size > budget) break;
    used += size;
    kept += point;
  }
  return `${kept}${ELLIPSIS}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The message to send, or undefined when the route left it out (docs/outbound.md, "Delivery rules", rule 3) or it is
 * blank.
 */
export function messageOf(payload: { message?: string }): string | undefined {
  return payload.message === undefined || payload.message.trim() === "" ? undefined : payload.message;
}
