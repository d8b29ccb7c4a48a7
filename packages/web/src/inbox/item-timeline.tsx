import type { ItemTimeline, TimelineEntry } from "@notify/contracts/ui";
import type { ItemKind } from "@notify/contracts/ui-constants";
import { timelineLine } from "@notify/contracts/ui-timeline-words";
import { useEffect, useState } from "react";
import { agentString } from "../agent-text.js";
import { ApiError, api } from "../api/client.js";
import { fullTime } from "../format.js";

const clockFormat = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});
const dayFormat = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });

/** Local hh:mm:ss, with the day in front when it is not today ("Nov 21 12:01:05"). */
export function clockTime(iso: string): string {
  const date = new Date(iso);
  const time = clockFormat.format(date);
  return date.toDateString() === new Date().toDateString() ? time : `${dayFormat.format(date)} ${time}`;
}

/** The longest the page waits before it looks again while a delivery is still under way. */
const RECHECK_MS = 3_000;
/** How long after an item reached the relay the page keeps looking for the phone's receipts. */
const RECEIPT_WATCH_MS = 5 * 60_000;

/**
 * When to read the timeline again without a stream event: a delivery only changes the outbox, which the stream
 * does not carry. Shortly after a held entry's due time, after a retry's next try, and every few seconds while an
 * item is being sent. Undefined when nothing is under way.
 */
export function nextLook(entries: readonly TimelineEntry[], now: number): number | undefined {
  let next: number | undefined;
  const consider = (at: number) => {
    const wait = Math.min(Math.max(at - now, 0) + 500, 60_000);
    next = next === undefined ? wait : Math.min(next, wait);
  };
  const sent = new Set(entries.filter((entry) => entry.event !== "held" && "route" in entry).map((e) => routeKey(e)));
  // Receipts (docs/relay.md): a phone's hops come after the relay took the item, for a few minutes after it was sent.
  const opened = new Set(entries.filter((e) => e.event === "receipt" && e.state === "opened").map((e) => routeKey(e)));
  for (const entry of entries) {
    if (
      entry.event === "delivery" &&
      entry.outcome === "sent" &&
      entry.route.provider_kind === "relay" &&
      !opened.has(routeKey(entry)) &&
      now - Date.parse(entry.at) < RECEIPT_WATCH_MS
    ) {
      consider(now + RECHECK_MS - 500);
    }
    if (entry.event === "held" && entry.until !== null && !sent.has(routeKey(entry))) consider(Date.parse(entry.until));
    if (entry.event === "delivery" && entry.outcome === "sending") consider(now + RECHECK_MS - 500);
    if (entry.event === "delivery" && entry.outcome === "retrying" && entry.next_attempt_at) {
      consider(Date.parse(entry.next_attempt_at));
    }
  }
  return next;
}

const routeKey = (entry: TimelineEntry) => ("route" in entry ? entry.route.id : "");

/**
 * The item's delivery timeline (issue 24 item 5; docs/routing.md, "The delivery timeline"): an ordered list, oldest
 * first, each line a local time and a plain sentence. Read again when `version` changes (the item or its other half
 * changed on the stream) and while a delivery is under way.
 */
export function ItemTimelineView({ kind, id, version }: { kind: ItemKind; id: string; version: string }) {
  const [timeline, setTimeline] = useState<ItemTimeline>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` and `tick` are when to read it again
  useEffect(() => {
    let current = true;
    api.timeline(kind, id).then(
      (read) => {
        if (!current) return;
        setTimeline(read);
        setError(undefined);
      },
      (failure: unknown) => {
        if (current) setError(failure instanceof ApiError ? failure.message : "Could not reach the broker.");
      },
    );
    return () => {
      current = false;
    };
  }, [kind, id, version, tick]);

  useEffect(() => {
    if (!timeline) return;
    const wait = nextLook(timeline.entries, Date.now());
    if (wait === undefined) return;
    const timer = setTimeout(() => setTick((value) => value + 1), wait);
    return () => clearTimeout(timer);
  }, [timeline]);

  return (
    <section className="card timeline" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!timeline && !error && <p className="state">Loading…</p>}
      {timeline && (
        <ol className="timeline-list" aria-labelledby="timeline-title">
          {timeline.entries.map((entry, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: entries are read whole each time, in a stable order
            <li key={index} className={`timeline-${entry.event}`}>
              <time dateTime={entry.at} title={fullTime(entry.at)}>
                {clockTime(entry.at)}
              </time>{" "}
              <span>{lineOf(entry)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The contract's sentence, with the agent's choice label shown safely (bidi controls made visible). */
function lineOf(entry: TimelineEntry): string {
  if (entry.event === "settled" && entry.choice_label !== undefined) {
    return timelineLine({ ...entry, choice_label: agentString(entry.choice_label) }, clockTime);
  }
  return timelineLine(entry, clockTime);
}
