import { useDeferredValue, useMemo, useState } from "react";
import { useInbox } from "../api/inbox-store.js";
import { distinct, matches, NO_FILTER, typeOf } from "./filters.js";
import { InboxFilters } from "./inbox-filters.js";
import { InboxList } from "./inbox-list.js";
import { oneItemPerQuestion } from "./one-item.js";
import { SessionsLine } from "./sessions-line.js";

const CONNECTION_TEXT = {
  loading: "Loading…",
  live: "Live",
  reconnecting: "Reconnecting…",
  failed: "Not connected: reload the page",
};

export function InboxPage() {
  const { items: all, connection } = useInbox();
  // A question and its notification half are one item: the list, the filters and the counts see the card only.
  const { items, companions } = useMemo(() => oneItemPerQuestion(all), [all]);
  const [filter, setFilter] = useState(NO_FILTER);
  const deferredFilter = useDeferredValue(filter);
  const search = deferredFilter.search.trim().toLowerCase();
  const unfiltered = !search && Object.entries(deferredFilter).every(([key, value]) => key === "search" || !value);
  const shown = useMemo(
    () =>
      unfiltered
        ? items
        : items.filter((entry) => matches(entry, deferredFilter, search, companions.get(entry.item.id))),
    [items, companions, deferredFilter, search, unfiltered],
  );
  // The filter options and the count may lag a frame behind a burst of events; the rows may not.
  const settled = useDeferredValue(items);
  const settledCompanions = useDeferredValue(companions);
  const options = useMemo(
    () => ({
      types: [
        ...new Set([...distinct(settled, typeOf), ...[...settledCompanions.values()].map((entry) => entry.type)]),
      ].sort(),
      projects: distinct(settled, (entry) => entry.item.project),
      agents: distinct(settled, (entry) => entry.item.agent),
    }),
    [settled, settledCompanions],
  );
  const open = useMemo(
    () => settled.filter((entry) => entry.kind === "interaction" && entry.item.status === "pending").length,
    [settled],
  );

  return (
    <section aria-labelledby="inbox-title">
      <div className="page-head">
        <h1 id="inbox-title">Inbox</h1>
        <p className="muted">
          {open > 0 ? `${open} open ${open === 1 ? "question" : "questions"} · ` : ""}
          <span className={`connection connection-${connection}`} role="status">
            {CONNECTION_TEXT[connection]}
          </span>
        </p>
      </div>
      <SessionsLine version={`${all.length}:${open}`} />
      <InboxFilters filter={filter} onChange={setFilter} {...options} shown={shown.length} total={items.length} />
      {connection !== "loading" && shown.length === 0 && (
        <p className="empty">
          {items.length === 0
            ? "Nothing yet. Agents' notifications and questions show up here."
            : "Nothing matches these filters."}
        </p>
      )}
      <InboxList items={shown} />
    </section>
  );
}
