import { randomBytes } from "node:crypto";
import type { StreamEventName, StreamPayload, UiInteraction, UiNotification } from "@notify/contracts/ui";
import type { DomainBus } from "../../domain/bus.js";

export interface LoggedEvent {
  /** `<epoch>.<seq>`: the SSE `id`. */
  id: string;
  seq: number;
  name: Exclude<StreamEventName, "reset">;
  /** The JSON `data` line, serialized once for every page. */
  data: string;
}

export type Since = { kind: "from"; seq: number } | { kind: "reset" };

/**
 * The web page's live feed (GET /ui/api/stream): every domain event numbered in order and kept in a bounded
 * window, so a page that reconnects with `Last-Event-ID` gets exactly what it missed, once. An id from another
 * broker run (the epoch differs) or older than the window cannot be caught up: the page is told to reload.
 */
export class UiEventLog {
  readonly epoch = randomBytes(4).toString("hex");
  private seq = 0;
  private readonly window: LoggedEvent[] = [];
  private readonly listeners = new Set<(event: LoggedEvent) => void>();
  private readonly detach: () => void;

  constructor(
    bus: DomainBus,
    private readonly capacity = 10_000,
    /** Adds the page's display-only facts to a question (ui-inbox.ts); the event carries them as the snapshot does. */
    decorate: (item: UiInteraction) => UiInteraction = (item) => item,
  ) {
    const onNotificationCreated = (item: UiNotification) => this.append("created", { kind: "notification", item });
    const onNotificationChanged = (item: UiNotification) => this.append("changed", { kind: "notification", item });
    const onInteractionCreated = (item: UiInteraction) =>
      this.append("created", { kind: "interaction", item: decorate(item) });
    const onInteractionChanged = (item: UiInteraction) =>
      this.append(item.status === "pending" ? "changed" : "settled", { kind: "interaction", item: decorate(item) });
    bus.on("notification.created", onNotificationCreated);
    bus.on("notification.changed", onNotificationChanged);
    bus.on("interaction.created", onInteractionCreated);
    bus.on("interaction.changed", onInteractionChanged);
    this.detach = () => {
      bus.off("notification.created", onNotificationCreated);
      bus.off("notification.changed", onNotificationChanged);
      bus.off("interaction.created", onInteractionCreated);
      bus.off("interaction.changed", onInteractionChanged);
    };
  }

  /** The position right now: a snapshot read after this holds everything up to it. */
  cursor(): string {
    return `${this.epoch}.${this.seq}`;
  }

  /** Where a reconnecting page stands. Undefined or garbage starts from now. */
  since(lastEventId: string | undefined): Since {
    if (lastEventId === undefined || lastEventId === "") return { kind: "from", seq: this.seq };
    const [epoch, raw] = lastEventId.split(".");
    const seq = Number(raw);
    if (epoch !== this.epoch || !Number.isSafeInteger(seq) || seq < 0 || seq > this.seq) return { kind: "reset" };
    const oldest = this.window[0]?.seq ?? this.seq + 1;
    // Everything after `seq` must still be in the window.
    if (seq + 1 < oldest && seq < this.seq) return { kind: "reset" };
    return { kind: "from", seq };
  }

  /** The kept events after `seq`, oldest first. */
  after(seq: number): LoggedEvent[] {
    const first = this.window[0]?.seq;
    if (first === undefined || seq >= this.seq) return [];
    return this.window.slice(Math.max(0, seq + 1 - first));
  }

  subscribe(listener: (event: LoggedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  close(): void {
    this.detach();
    this.listeners.clear();
  }

  private append(name: LoggedEvent["name"], payload: StreamPayload): void {
    this.seq++;
    const event: LoggedEvent = { id: `${this.epoch}.${this.seq}`, seq: this.seq, name, data: JSON.stringify(payload) };
    this.window.push(event);
    // Trimmed in batches, not one shift per event.
    if (this.window.length > this.capacity + 1024) this.window.splice(0, this.window.length - this.capacity);
    for (const listener of this.listeners) listener(event);
  }
}
