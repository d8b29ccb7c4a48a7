import type { UiNotification } from "@notify/contracts/ui";
import type { InboxItem } from "../api/inbox-store.js";

export interface InboxFilter {
  status: string;
  type: string;
  project: string;
  agent: string;
  unresolved: boolean;
  search: string;
}

export const NO_FILTER: InboxFilter = { status: "", type: "", project: "", agent: "", unresolved: false, search: "" };

/** The type shown for an item: questions are one type of their own. */
export const typeOf = (entry: InboxItem) => (entry.kind === "notification" ? entry.item.type : "question");

/**
 * `companion`: the notification half of a question (one-item.ts). The card stands for both: the Type filter finds
 * it under "question" and under the notification's type, and the search reads the notification's title too.
 */
export function matches(entry: InboxItem, filter: InboxFilter, search: string, companion?: UiNotification): boolean {
  const { item } = entry;
  if (filter.unresolved && item.status !== (entry.kind === "notification" ? "active" : "pending")) return false;
  if (filter.status && item.status !== filter.status) return false;
  if (filter.type && typeOf(entry) !== filter.type && companion?.type !== filter.type) return false;
  if (filter.project && item.project !== filter.project) return false;
  if (filter.agent && item.agent !== filter.agent) return false;
  if (search) {
    const text =
      entry.kind === "notification"
        ? `${entry.item.title}\n${entry.item.message}\n${entry.item.agent}\n${entry.item.project ?? ""}`
        : `${entry.item.prompt}\n${entry.item.agent}\n${entry.item.project ?? ""}\n${companion?.title ?? ""}`;
    if (!text.toLowerCase().includes(search)) return false;
  }
  return true;
}

/** The distinct values of a field, sorted, for a filter's options. */
export function distinct(items: InboxItem[], pick: (entry: InboxItem) => string | undefined): string[] {
  const values = new Set<string>();
  for (const entry of items) {
    const value = pick(entry);
    if (value) values.add(value);
  }
  return [...values].sort();
}
