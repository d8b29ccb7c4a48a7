import { normalizeTypeId } from "../notifications/type-ids.js";
import { type NotificationDto, priorityRank } from "../notifications/types.js";
import type { OutboundRoute, ProviderProfile } from "./types.js";

const sameText = (a: string, b: string | undefined): boolean =>
  b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * docs/outbound.md, "Delivery rules", rule 2: the route and its provider are enabled, priority >= MinimumPriority,
 * TypeId (when set) equals the normalized type, Project and Agent (when set) equal the notification's, trimmed and
 * case-insensitive.
 */
export function routeMatches(
  route: OutboundRoute,
  provider: ProviderProfile | undefined,
  notification: Pick<NotificationDto, "type" | "priority" | "agent" | "project">,
): boolean {
  if (!route.enabled || !provider?.enabled) return false;
  if (priorityRank(notification.priority) < priorityRank(route.minimumPriority)) return false;
  if (route.typeId !== undefined && normalizeTypeId(route.typeId) !== normalizeTypeId(notification.type)) return false;
  if (route.project !== undefined && !sameText(route.project, notification.project)) return false;
  if (route.agent !== undefined && !sameText(route.agent, notification.agent)) return false;
  return true;
}
