import { DAY } from "./clock.js";

/**
 * The opaque cursor of GET /v1/interaction-responses and GET /v1/envelopes: the store position of the last row
 * served, and the time floor set by the first poll (an empty `since` covers the last 24 hours,
 * docs/relay.md, "Cursors"). Clients pass it back verbatim; it is base64url so it survives a query string untouched.
 */
export interface CursorState {
  /** Null before the first row was served. */
  position: string | null;
  floor: number;
}

export const FIRST_POLL_WINDOW = DAY;
const PREFIX = "c1.";

export function encodeCursor(state: CursorState): string {
  return PREFIX + Buffer.from(JSON.stringify([state.position, state.floor]), "utf8").toString("base64url");
}

/** Undefined when `cursor` is not one this relay made (the position check is the store's). */
export function decodeCursor(cursor: string, isPosition: (position: string) => boolean): CursorState | undefined {
  if (!cursor.startsWith(PREFIX) || cursor.length > 200) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor.slice(PREFIX.length), "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) return undefined;
  const [position, floor] = decoded as unknown[];
  if (!Number.isSafeInteger(floor) || (floor as number) < 0) return undefined;
  if (position !== null && (typeof position !== "string" || !isPosition(position))) return undefined;
  return { position: position as string | null, floor: floor as number };
}
