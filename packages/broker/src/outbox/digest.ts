import { PRIORITIES, type Priority } from "../notifications/types.js";
import { readableText } from "./providers/readable-text.js";
import { truncate } from "./providers/text-limits.js";
import type { DeliveryResult, OutboundPayload } from "./types.js";

/**
 * Less noise (issue 37, item 4; docs/outbound.md, "Less noise"): a route with `digest_seconds` gathers the items of
 * a window into one message. This module is the window logic alone, on a clock it is given (the dispatcher does the
 * sending):
 *
 * - A provider that can edit a message (Telegram): the first item of a window posts the digest message at once,
 *   each later item of the window edits it to add its line, and each item that settles (its question answered or
 *   expired, the notification dismissed or resolved) edits its line. After the window an item opens a new message.
 * - A provider that cannot edit (webhook, ntfy, ...): the first item opens the window and waits for its end; at the
 *   end the window goes as one message, which every item of the window counts as its delivery.
 *
 * Windows live in memory: after a restart an item still waiting opens a new window, and a settle of an item posted
 * before the restart edits nothing.
 */

/** One item's line in a digest. `state` is `open` until it settles, then the settled status (`answered`, ...). */
export interface DigestEntry {
  notificationId: string;
  title: string;
  priority: Priority;
  /** The question the notification asks, when it asks one: its settle names the entry by it. */
  questionId?: string;
  state: string;
}

export interface DigestWindow {
  id: string;
  routeId: string;
  opensAt: number;
  closesAt: number;
  entries: DigestEntry[];
  /** Where the message is, once posted (an editable provider's handle). */
  handle?: string;
  /** Entries (notification ids) the message showed at its last post or edit, with their state. */
  shown: Map<string, string>;
  /** True once a non-editable window went as its one message. */
  sent: boolean;
  /** Operations on one window run one at a time (a post, then the edits), in order. */
  queue: Promise<unknown>;
  /** The last failed post or send: the window's other items, due at once, share it rather than try again. */
  failed?: { at: number; result: DeliveryResult };
}

/** What to do with an item that reaches a digest route. */
export type DigestPlan =
  /** Editable: the window's message is not posted yet: post it (with every entry so far). */
  | { action: "post"; window: DigestWindow }
  /** Editable: the message exists and does not show this entry yet: edit it. */
  | { action: "edit"; window: DigestWindow }
  /** Not editable: the window is still open: the item waits for its end. */
  | { action: "wait"; window: DigestWindow; until: number }
  /** Not editable: the window ended and has not gone yet: send it as one message. */
  | { action: "send"; window: DigestWindow }
  /** The item is already in a message that went (or was edited to show it): nothing to send. */
  | { action: "done"; window: DigestWindow };

/** Lines a digest message lists; the rest are counted. */
export const DIGEST_MAX_LINES = 40;
/** A line's title is cut to this many characters. */
const LINE_TITLE_MAX = 120;
/** Windows kept for settle edits after they close (the newest per route are kept first). */
const KEEP_CLOSED_WINDOWS = 50;
/** A closed window is kept this long for settle edits. */
const KEEP_CLOSED_MS = 24 * 60 * 60_000;

export class DigestWindows {
  /** The current (newest) window per route. */
  private readonly current = new Map<string, DigestWindow>();
  /** Every window kept, by `routeId \n notificationId` of its entries. */
  private readonly byItem = new Map<string, DigestWindow>();
  private readonly windows: DigestWindow[] = [];
  private nextId = 1;

  constructor(private readonly now: () => number) {}

  /**
   * Plans an item's delivery on a digest route of `windowSeconds`. The item's entry joins the route's open window
   * (or opens one); an item seen before (a retry, or its wait ended) finds its own window again.
   */
  plan(routeId: string, windowSeconds: number, entry: DigestEntry, editable: boolean): DigestPlan {
    const now = this.now();
    const itemKey = `${routeId}\n${entry.notificationId}`;
    let window = this.byItem.get(itemKey);
    if (window === undefined) {
      window = this.current.get(routeId);
      if (window === undefined || now >= window.closesAt || (!editable && window.sent)) {
        window = this.open(routeId, now, windowSeconds);
      }
      window.entries.push({ ...entry });
      this.byItem.set(itemKey, window);
    } else {
      const known = window.entries.find((line) => line.notificationId === entry.notificationId);
      if (known && known.state === "open" && entry.state !== "open") known.state = entry.state;
    }
    if (editable) {
      if (window.handle === undefined) return { action: "post", window };
      return window.shown.has(entry.notificationId) ? { action: "done", window } : { action: "edit", window };
    }
    if (window.sent) return { action: "done", window };
    if (now < window.closesAt) return { action: "wait", window, until: window.closesAt };
    return { action: "send", window };
  }

  private open(routeId: string, now: number, windowSeconds: number): DigestWindow {
    const window: DigestWindow = {
      id: `dgw_${now.toString(36)}_${this.nextId++}`,
      routeId,
      opensAt: now,
      closesAt: now + windowSeconds * 1000,
      entries: [],
      shown: new Map(),
      sent: false,
      queue: Promise.resolve(),
    };
    this.current.set(routeId, window);
    this.windows.push(window);
    this.prune(now);
    return window;
  }

  /** Drops closed windows past KEEP_CLOSED_MS, and the oldest beyond KEEP_CLOSED_WINDOWS. */
  private prune(now: number): void {
    while (
      this.windows.length > KEEP_CLOSED_WINDOWS ||
      (this.windows.length > 0 && (this.windows[0] as DigestWindow).closesAt + KEEP_CLOSED_MS < now)
    ) {
      const old = this.windows.shift() as DigestWindow;
      for (const entry of old.entries) {
        const key = `${old.routeId}\n${entry.notificationId}`;
        if (this.byItem.get(key) === old) this.byItem.delete(key);
      }
      if (this.current.get(old.routeId) === old) this.current.delete(old.routeId);
    }
  }

  /**
   * An item settled (`notificationId`, or the question it asks, `questionId`): its lines take `state`. Returns the
   * posted windows whose message now shows a line out of date (to edit).
   */
  settle(ids: { notificationId?: string; questionId?: string }, state: string): DigestWindow[] {
    const changed: DigestWindow[] = [];
    for (const window of this.windows) {
      let touched = false;
      for (const entry of window.entries) {
        const named =
          (ids.notificationId !== undefined && entry.notificationId === ids.notificationId) ||
          (ids.questionId !== undefined && entry.questionId === ids.questionId);
        if (named && entry.state === "open") {
          entry.state = state;
          touched = true;
        }
      }
      if (touched && window.handle !== undefined) changed.push(window);
    }
    return changed;
  }

  /** Records that the window's message now shows its entries as they are (after a post or an edit went). */
  shown(window: DigestWindow, handle?: string): void {
    if (handle !== undefined) window.handle = handle;
    window.shown = new Map(window.entries.map((entry) => [entry.notificationId, entry.state]));
  }

  /** True when the message shows every entry as it is now. */
  upToDate(window: DigestWindow): boolean {
    return window.entries.every((entry) => window.shown.get(entry.notificationId) === entry.state);
  }

  /** Open windows and the entries they hold (for tests and diagnostics). */
  list(): readonly DigestWindow[] {
    return this.windows;
  }
}

/** A window's message as plain text: a head line, then one line per entry (settled ones say how). */
export function digestText(window: DigestWindow): { title: string; lines: string } {
  const count = window.entries.length;
  const open = window.entries.filter((entry) => entry.state === "open").length;
  const title =
    open === count
      ? `Notify: ${count} ${count === 1 ? "item" : "items"}`
      : `Notify: ${count} ${count === 1 ? "item" : "items"}, ${open} open`;
  const lines = window.entries.slice(0, DIGEST_MAX_LINES).map((entry) => {
    const text = truncate(readableText(entry.title), LINE_TITLE_MAX);
    return entry.state === "open" ? `• ${text}` : `✓ ${text} (${entry.state})`;
  });
  if (count > DIGEST_MAX_LINES) lines.push(`… and ${count - DIGEST_MAX_LINES} more`);
  return { title, lines: lines.join("\n") };
}

/** The one payload a non-editable provider gets for a window (type `digest`, the highest priority of its items). */
export function digestPayload(window: DigestWindow): OutboundPayload {
  const { title, lines } = digestText(window);
  let priority: Priority = "low";
  for (const entry of window.entries) {
    // PRIORITIES is lowest first.
    if (PRIORITIES.indexOf(entry.priority) > PRIORITIES.indexOf(priority)) priority = entry.priority;
  }
  return {
    id: window.id,
    title,
    message: lines,
    type: "digest",
    priority,
    agent: "notify",
    createdAt: new Date(window.opensAt).toISOString(),
  };
}

/** The entry an item's payload makes, its state as known at send time. */
export function entryOf(payload: OutboundPayload, state = "open"): DigestEntry {
  return {
    notificationId: payload.id,
    title: payload.title,
    priority: payload.priority,
    ...(payload.interaction !== undefined ? { questionId: payload.interaction.id } : {}),
    state,
  };
}
