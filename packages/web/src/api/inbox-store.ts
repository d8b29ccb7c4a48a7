import type { InboxSnapshot, StreamPayload, UiInteraction, UiNotification } from "@notify/contracts/ui";
import { STREAM_EVENTS } from "@notify/contracts/ui-constants";
import { useSyncExternalStore } from "react";
import { api } from "./client.js";

export type InboxItem =
  | { kind: "notification"; key: string; createdAt: string; item: UiNotification }
  | { kind: "interaction"; key: string; createdAt: string; item: UiInteraction };

export type Connection = "loading" | "live" | "reconnecting" | "failed";

/**
 * Shortest time between two applications of stream events on a large list (about 30 per second at most): a flush
 * is a pass over every row, so a small list flushes every frame and a large one every other frame.
 */
const MIN_FLUSH_MS = 33;
const LARGE_LIST = 2_000;

/** Rows of each kind in the first, small snapshot read. */
const FIRST_PAGE = 200;

const keyOf = (payload: StreamPayload) => `${payload.kind}:${payload.item.id}`;
const updatedOf = (entry: InboxItem) => (entry.kind === "notification" ? entry.item.updatedAt : entry.item.updated_at);

function entryOf(payload: StreamPayload): InboxItem {
  return payload.kind === "notification"
    ? { kind: "notification", key: keyOf(payload), createdAt: payload.item.createdAt, item: payload.item }
    : { kind: "interaction", key: keyOf(payload), createdAt: payload.item.created_at, item: payload.item };
}

const newestFirst = (a: InboxItem, b: InboxItem) =>
  a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.key < b.key ? 1 : a.key > b.key ? -1 : 0;

/** Where `entry` goes in a newest-first list. */
function insertionIndex(list: InboxItem[], entry: InboxItem): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const other = list[middle];
    if (other && newestFirst(other, entry) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The one place live data enters the page: the snapshot from GET /ui/api/inbox, then the SSE stream from the
 * snapshot's cursor. An item is replaced only by a copy at least as new, so a replayed event or the page's own
 * answer arriving twice changes nothing. Changes are applied once per animation frame, not once per event.
 */
class InboxStore {
  private readonly items = new Map<string, InboxItem>();
  private sorted: InboxItem[] = [];
  private pending: StreamPayload[] = [];
  private frame: number | undefined;
  private lastFlush = 0;
  private source: EventSource | undefined;
  private listeners = new Set<() => void>();
  private state: { items: InboxItem[]; connection: Connection } = { items: [], connection: "loading" };
  private started = false;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (!this.started) {
      this.started = true;
      void this.load();
    }
    return () => this.listeners.delete(listener);
  };

  snapshot = () => this.state;

  /** Applies a result the page got back itself (an answer, a status change) without waiting for the stream. */
  apply(payload: StreamPayload): void {
    this.pending.push(payload);
    this.schedule();
  }

  find(key: string): InboxItem | undefined {
    return this.items.get(key);
  }

  private async load(): Promise<void> {
    this.source?.close();
    let first: InboxSnapshot;
    try {
      // The newest rows first, so the page shows something at once; the rest follows from the same cursor.
      first = await api.inbox(FIRST_PAGE);
    } catch {
      this.publish("failed");
      return;
    }
    this.items.clear();
    this.putSnapshot(first);
    this.publish("live");
    this.connect(first.cursor);
    if (first.notifications.length < FIRST_PAGE && first.interactions.length < FIRST_PAGE) return;
    try {
      // Rows newer than this read are merged by the newer-wins rule, so the order of the two reads does not matter.
      this.putSnapshot(await api.inbox());
      this.publish(this.state.connection);
    } catch {
      // The first page and the live stream still work; a reload tries again.
    }
  }

  private putSnapshot(snapshot: InboxSnapshot): void {
    for (const item of snapshot.notifications) this.put({ kind: "notification", item });
    for (const item of snapshot.interactions) this.put({ kind: "interaction", item });
    this.resort();
  }

  private connect(cursor: string): void {
    const source = new EventSource(`/ui/api/stream?since=${encodeURIComponent(cursor)}`);
    this.source = source;
    const onEvent = (event: MessageEvent<string>) => this.apply(JSON.parse(event.data) as StreamPayload);
    for (const name of STREAM_EVENTS) source.addEventListener(name, onEvent);
    // The broker cannot replay what this page missed (it restarted, or the gap is too long): start over.
    source.addEventListener("reset", () => void this.load());
    source.addEventListener("open", () => this.publish("live"));
    source.addEventListener("error", () => {
      // EventSource retries by itself with Last-Event-ID; a 401 closes it for good.
      this.publish(source.readyState === EventSource.CLOSED ? "failed" : "reconnecting");
    });
  }

  private put(payload: StreamPayload): boolean {
    const entry = entryOf(payload);
    const current = this.items.get(entry.key);
    if (current && updatedOf(current) > updatedOf(entry)) return false;
    this.items.set(entry.key, entry);
    return true;
  }

  private schedule(): void {
    if (this.frame !== undefined) return;
    const flush = () => {
      this.frame = undefined;
      const batch = this.pending;
      this.pending = [];
      const replaced = new Map<string, InboxItem>();
      // Keys new to the page in this batch; a later event for one of them (created, then settled in the same
      // frame) only updates the entry that gets inserted.
      const added = new Set<string>();
      for (const payload of batch) {
        const key = keyOf(payload);
        const known = this.items.has(key);
        if (!this.put(payload)) continue;
        const entry = this.items.get(key);
        if (!entry) continue;
        if (!known) added.add(key);
        else if (!added.has(key)) replaced.set(key, entry);
      }
      if (replaced.size === 0 && added.size === 0) return;
      // One pass instead of a full sort per event: changed rows keep their place (createdAt does not change),
      // new ones are nearly always the newest and go in by binary search.
      let next = replaced.size > 0 ? this.sorted.map((entry) => replaced.get(entry.key) ?? entry) : [...this.sorted];
      for (const key of added) {
        const entry = this.items.get(key);
        if (entry) next.splice(insertionIndex(next, entry), 0, entry);
      }
      if (added.size > 64) next = next.sort(newestFirst);
      this.sorted = next;
      this.publish(this.state.connection);
    };
    // A hidden tab gets no animation frames; its data still has to be current when it is shown.
    const spacing = this.sorted.length > LARGE_LIST ? MIN_FLUSH_MS : 0;
    const wait = Math.max(0, this.lastFlush + spacing - performance.now());
    const run = () => {
      this.lastFlush = performance.now();
      flush();
    };
    if (document.hidden) this.frame = window.setTimeout(run, 50);
    else if (wait > 0) this.frame = window.setTimeout(() => requestAnimationFrame(run), wait);
    else this.frame = requestAnimationFrame(run);
  }

  private resort(): void {
    this.sorted = [...this.items.values()].sort(newestFirst);
  }

  private publish(connection: Connection): void {
    this.state = { items: this.sorted, connection };
    for (const listener of this.listeners) listener();
  }
}

export const inboxStore = new InboxStore();

/** The inbox, live: every notification and question the page knows, newest first. */
export function useInbox(): { items: InboxItem[]; connection: Connection } {
  return useSyncExternalStore(inboxStore.subscribe, inboxStore.snapshot);
}
