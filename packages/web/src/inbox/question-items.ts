import type { InboxItem } from "../api/inbox-store.js";

/**
 * A native question (POST /v1/interactions/request, the agents' hooks) comes with its notification half ("Permission
 * needed from X", `metadata.interaction_id` naming the question) so toasts and outbound routes reach the person. On
 * this page the two are one item: the question's card, which shows the outcome once settled (issue 21, item 22).
 * A notification whose question is not in the list (older than the snapshot) still shows on its own.
 */
export function withoutQuestionHalves(items: InboxItem[]): InboxItem[] {
  const questions = new Set<string>();
  for (const entry of items) if (entry.kind === "interaction") questions.add(entry.item.id);
  if (questions.size === 0) return items;
  return items.filter((entry) => {
    if (entry.kind !== "notification") return true;
    const question = entry.item.metadata?.interaction_id;
    return typeof question !== "string" || !questions.has(question);
  });
}

const ANSWERED_HERE_KEY = "notify.answeredHere";
const ANSWERED_HERE_MAX = 200;

/** Questions this browser answered, so their cards say "from this web page" after a reload too. */
export function answeredHere(): Set<string> {
  try {
    const stored = JSON.parse(localStorage.getItem(ANSWERED_HERE_KEY) ?? "[]") as unknown;
    return new Set(Array.isArray(stored) ? stored.filter((id): id is string => typeof id === "string") : []);
  } catch {
    return new Set();
  }
}

export function rememberAnsweredHere(questionId: string): void {
  try {
    const ids = [...answeredHere(), questionId].slice(-ANSWERED_HERE_MAX);
    localStorage.setItem(ANSWERED_HERE_KEY, JSON.stringify(ids));
  } catch {
    // storage full or off: the card then says "this computer"
  }
}

/**
 * Where an answer came from, as a person reads it. The contract's `source` is `desktop` for both a toast's button and
 * this page (DESIGN.md), so the page tells them apart by what this browser sent itself.
 */
export function answerSource(source: string | undefined, questionId: string): string {
  if (source === undefined) return "";
  if (source === "desktop") {
    return answeredHere().has(questionId) ? "this web page" : "this computer (a toast or the web page)";
  }
  const named: Record<string, string> = {
    cli: "the command line",
    relay: "the phone",
    phone: "the phone",
    telegram: "Telegram",
    slack: "Slack",
  };
  return named[source] ?? source;
}
