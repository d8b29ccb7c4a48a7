import type { UiNotification } from "@notify/contracts/ui";
import type { InboxItem } from "../api/inbox-store.js";

/**
 * A question and the notification the broker raises with it ("Permission needed from codex") are one item on the
 * page: the question's card. The broker names the notification half as the question's `notification_id` (ARC and
 * native questions alike; docs/api.md, /ui/api). A notification whose question the page has not loaded stays a
 * row of its own, so nothing disappears.
 *
 * An MCP form is one item too: its decision question's card shows every field (form-card.tsx), so the field
 * questions of a form whose decision is loaded (`UiInteraction.form`, docs/api.md /ui/api) are no cards of their own.
 */
export interface PageItems {
  items: InboxItem[];
  /** The notification half of each question shown, by question id: the filters treat the two as one item. */
  companions: Map<string, UiNotification>;
}

export function oneItemPerQuestion(items: InboxItem[]): PageItems {
  const questionOf = new Map<string, string>();
  // The forms whose decision question is loaded.
  const forms = new Set<string>();
  for (const entry of items) {
    if (entry.kind !== "interaction") continue;
    if (entry.item.notification_id) questionOf.set(entry.item.notification_id, entry.item.id);
    if (entry.item.form !== undefined && entry.item.form.field === undefined) forms.add(entry.item.form.id);
  }
  const companions = new Map<string, UiNotification>();
  if (questionOf.size === 0 && forms.size === 0) return { items, companions };
  const kept: InboxItem[] = [];
  for (const entry of items) {
    if (entry.kind === "interaction") {
      const form = entry.item.form;
      if (form?.field === undefined || !forms.has(form.id)) kept.push(entry);
      continue;
    }
    const question = questionOf.get(entry.item.id);
    if (question !== undefined) companions.set(question, entry.item);
    else kept.push(entry);
  }
  return { items: kept, companions };
}
