import type { OutboundRoute } from "../outbox/types.js";

/**
 * The marker codec of the folded outbox (migration 5): a new notification's matching routes, as stored in its
 * own row (`notifications.outbound`), expanded into outbox items later (store/outbox-expansion.ts).
 */

/** What an outbox item takes from its route; a marker holds exactly this, for each route. */
export type RouteRef = Pick<OutboundRoute, "id" | "providerId" | "includeMessage">;

/** The broker's own ids: a kind prefix and 12 random bytes in hex (outbound-service.ts). */
const HEX_ID = /^[0-9a-f]{24}$/;

/** An id in a marker: `:` + its 12 bytes in base64url when it is `prefix` + 24 hex digits, else URI-escaped. */
function packId(id: string, prefix: string): string {
  const hex = id.slice(prefix.length);
  if (id.startsWith(prefix) && HEX_ID.test(hex)) return `:${Buffer.from(hex, "hex").toString("base64url")}`;
  return encodeURIComponent(id);
}

function unpackId(text: string, prefix: string): string {
  if (!text.startsWith(":")) return decodeURIComponent(text);
  const hex = Buffer.from(text.slice(1), "base64url").toString("hex");
  if (!HEX_ID.test(hex)) throw new Error("malformed outbound marker");
  return prefix + hex;
}

/**
 * The marker of a set of routes, as stored in `notifications.outbound` (migration 5): the routes in matching
 * order, separated by `;`. Each is its IncludeMessage flag (`1` or `0`), its route id, then `,` and its provider
 * id, which is left out when it is the previous route's. An id of the broker's own form (`rte_`/`prv_` + 24 hex
 * digits) is written `:` + its 12 bytes in base64url (17 characters instead of 28); any other id URI-escaped, so
 * `:`, `,` and `;` never occur in one. Three routes to one provider take 74 bytes. Self-contained: expanding it
 * needs no route table, so editing or deleting a route later does not change where a notification created
 * before goes (as when its items were written with it).
 */
export function encodeMarker(routes: readonly RouteRef[]): string {
  let previousProvider: string | undefined;
  return routes
    .map((route) => {
      const provider = route.providerId === previousProvider ? "" : `,${packId(route.providerId, "prv_")}`;
      previousProvider = route.providerId;
      return `${route.includeMessage ? 1 : 0}${packId(route.id, "rte_")}${provider}`;
    })
    .join(";");
}

export function decodeMarker(marker: string): RouteRef[] {
  let previousProvider: string | undefined;
  return marker.split(";").map((part) => {
    const [route = "", provider, extra] = part.slice(1).split(",");
    if ((part[0] !== "0" && part[0] !== "1") || route === "" || extra !== undefined) {
      throw new Error("malformed outbound marker");
    }
    const providerId = provider === undefined ? previousProvider : unpackId(provider, "prv_");
    if (providerId === undefined) throw new Error("malformed outbound marker");
    previousProvider = providerId;
    return { includeMessage: part[0] === "1", id: unpackId(route, "rte_"), providerId };
  });
}
