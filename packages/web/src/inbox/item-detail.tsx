import type { UiInteraction, UiNotification } from "@notify/contracts/ui";
import type { ItemKind } from "@notify/contracts/ui-constants";
import { useEffect, useMemo, useState } from "react";
import { AgentText } from "../agent-text.js";
import { ApiError, api } from "../api/client.js";
import { type InboxItem, inboxStore, useInbox } from "../api/inbox-store.js";
import { fullTime } from "../format.js";
import { Link } from "../navigation.js";
import { ItemTimelineView } from "./item-timeline.js";
import { NotificationRow } from "./notification-row.js";
import { QuestionCard } from "./question-card.js";

/** /ui/notifications/{id} and /ui/questions/{id}: the whole item with its metadata (a toast's default action). */
export function ItemDetail({ kind, id }: { kind: ItemKind; id: string }) {
  const { items } = useInbox(); // live: the card and the timeline below follow the stream
  const live = inboxStore.find(`${kind}:${id}`);
  const [fetched, setFetched] = useState<UiNotification | UiInteraction>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (live) return;
    (kind === "notification" ? api.notification(id) : api.interaction(id)).then(setFetched, (failure: unknown) =>
      setError(failure instanceof ApiError ? failure.message : "Could not reach the broker."),
    );
  }, [kind, id, live]);
  const item = live?.item ?? fetched;
  const version = useMemo(() => itemVersion(items, kind, id, item), [items, kind, id, item]);
  return (
    <section aria-labelledby="detail-title">
      <p>
        <Link href="/ui">← Inbox</Link>
      </p>
      <h1 id="detail-title">{kind === "notification" ? "Notification" : "Question"}</h1>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {item && kind === "notification" && <NotificationRow notification={item as UiNotification} detailLink={false} />}
      {item && kind === "interaction" && <QuestionCard interaction={item as UiInteraction} detailLink={false} />}
      {item && <ItemTimelineView kind={kind} id={id} version={version} />}
      {item && <Fields item={item} />}
    </section>
  );
}

/**
 * What the timeline is read again on: the item and its other half (a question's notification, a notification's
 * question) as the stream last delivered them. Their status and last change are enough.
 */
function itemVersion(
  items: readonly InboxItem[],
  kind: ItemKind,
  id: string,
  item: UiNotification | UiInteraction | undefined,
): string {
  const other = kind === "interaction" ? (item as UiInteraction | undefined)?.notification_id : undefined;
  const parts: string[] = [];
  for (const entry of items) {
    const related =
      entry.item.id === id ||
      entry.item.id === other ||
      (kind === "notification" && entry.kind === "interaction" && entry.item.notification_id === id);
    if (!related) continue;
    const changed = entry.kind === "notification" ? entry.item.updatedAt : entry.item.updated_at;
    parts.push(`${entry.item.id}:${entry.item.status}:${changed}`);
  }
  return parts.join("|");
}

const HIDDEN = new Set(["nonce", "request_digest", "metadata", "choices", "response", "prompt", "message", "title"]);

function Fields({ item }: { item: UiNotification | UiInteraction }) {
  const entries = Object.entries(item).filter(
    ([key, value]) => !HIDDEN.has(key) && value !== undefined && value !== null,
  );
  const metadata = "metadata" in item ? item.metadata : undefined;
  const response = "response" in item ? item.response : undefined;
  return (
    <div className="card fields">
      <h2>Fields</h2>
      <dl>
        {entries.map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>
              {/_at$|At$/.test(key) && typeof value === "string" ? fullTime(value) : <AgentText text={String(value)} />}
            </dd>
          </div>
        ))}
      </dl>
      {response && (
        <>
          <h2>Response</h2>
          <pre>
            <AgentText text={JSON.stringify(response, null, 2)} />
          </pre>
        </>
      )}
      {metadata && (
        <>
          <h2>Metadata</h2>
          <pre>
            <AgentText text={JSON.stringify(metadata, null, 2)} />
          </pre>
        </>
      )}
    </div>
  );
}
