import type { InboxSnapshot, StreamPayload, UiInteraction, UiNotification } from "@notify/contracts/ui";
import { useSyncExternalStore } from "react";
import { api } from "./client.js";

export type InboxItem =
  | { kind: "notification"; key: string; createdAt: string; item: UiNotification }
  | { kind: "interaction"; key: string; createdAt: string; item: UiInteraction };

export type Connection = "loading" | "live" | "reconnecting" | "failed";

const keyOf = (payload: StreamPayload) => `${payload.kind}:${payload.item.id}`;
const updatedOf = (entry: InboxItem) => (entry.kind === "notification" ? entry.item.updatedAt : entry.item.updated_at);

function entryOf(payload: StreamPayload): InboxItem {
  return payload.kind === "notification"
    ? { kind: "notification", key: keyOf(payload), createdAt: payload.item.createdAt, item: payload.item }
    : { kind: "interaction", key: keyOf(payload), createdAt: payload.item.created_at, item: payload.item };
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
    let snapshot: InboxSnapshot;
    try {
      snapshot = await api.inbox();
    } catch {
      this.publish("failed");
      return;
    }
    this.items.clear();
    for (const item of snapshot.notifications) this.put({ kind: "notification", item });
    for (const item of snapshot.interactions) this.put({ kind: "interaction", item });
    this.resort();
    this.publish("live");
    this.connect(snapshot.cursor);
  }

  private connect(cursor: string): void {
    const source = new EventSource(`/ui/api/stream?since=${encodeURIComponent(cursor)}`);
    this.source = source;
    const onEvent = (event: MessageEvent<string>) => this.apply(JSON.parse(event.data) as StreamPayload);
    for (const name of ["created", "changed", "settled"]) source.addEventListener(name, onEvent);
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
      let changed = false;
      for (const payload of batch) changed = this.put(payload) || changed;
      if (!changed) return;
      this.resort();
      this.publish(this.state.connection);
    };
    // A hidden tab gets no animation frames; its data still has to be current when it is shown.
    this.frame = document.hidden ? window.setTimeout(flush, 50) : requestAnimationFrame(flush);
  }

  private resort(): void {
    this.sorted = [...this.items.values()].sort((a, b) =>
      a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.key < b.key ? 1 : -1,
    );
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
