import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { useLayoutEffect, useRef, useState } from "react";
import type { InboxItem } from "../api/inbox-store.js";
import { NotificationRow } from "./notification-row.js";
import { QuestionCard } from "./question-card.js";

/**
 * The inbox as one window-scrolled list that renders only the rows near the viewport (10,000 rows stay fast).
 * Rows measure themselves: cards differ in height.
 */
export function InboxList({ items }: { items: InboxItem[] }) {
  const listRef = useRef<HTMLOListElement>(null);
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    setOffset(listRef.current?.offsetTop ?? 0);
  }, []);
  const virtualizer = useWindowVirtualizer({
    count: items.length,
    estimateSize: (index) => (items[index]?.kind === "interaction" ? 220 : 150),
    overscan: 6,
    scrollMargin: offset,
    getItemKey: (index) => items[index]?.key ?? index,
  });
  const rows = virtualizer.getVirtualItems();
  return (
    <ol
      ref={listRef}
      className="inbox-list"
      aria-label="Notifications and questions"
      style={{ height: virtualizer.getTotalSize() }}
    >
      {rows.map((row) => {
        const entry = items[row.index];
        if (!entry) return null;
        return (
          <li
            key={row.key}
            data-index={row.index}
            ref={virtualizer.measureElement}
            className="inbox-row"
            style={{ transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)` }}
          >
            {entry.kind === "notification" ? (
              <NotificationRow notification={entry.item} />
            ) : (
              <QuestionCard interaction={entry.item} />
            )}
          </li>
        );
      })}
    </ol>
  );
}
