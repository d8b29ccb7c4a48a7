import type { UiNotification } from "@notify/contracts/ui";
import { useState } from "react";
import { AgentText, agentString } from "../agent-text.js";
import { ApiError, api } from "../api/client.js";
import { inboxStore } from "../api/inbox-store.js";
import { shortTime, typeLabel } from "../format.js";
import { Link } from "../navigation.js";

/** One notification: what it says, who sent it, and the person's three actions. */
export function NotificationRow({
  notification: n,
  detailLink = true,
}: {
  notification: UiNotification;
  detailLink?: boolean;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const titleId = `n-${n.id}`;
  const change = async (status: UiNotification["status"]) => {
    setBusy(true);
    setError(undefined);
    try {
      const updated = await api.setStatus(n.id, { status });
      inboxStore.apply({ kind: "notification", item: updated });
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : "Could not reach the broker.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <article
      className={`card notification status-${n.status} priority-${n.priority}`}
      aria-labelledby={titleId}
      data-item-id={n.id}
    >
      <div className="meta">
        <span className="badge">{typeLabel(n.type)}</span>
        {n.priority !== "normal" && <span className={`badge priority`}>{n.priority}</span>}
        <span className="who">
          <AgentText text={n.agent} />
        </span>
        {n.project && (
          <span className="who">
            <AgentText text={n.project} />
          </span>
        )}
        <time dateTime={n.createdAt} title={`Created ${new Date(n.createdAt).toLocaleString()}`}>
          {shortTime(n.createdAt)}
        </time>
        {n.updatedAt !== n.createdAt && <span className="muted">updated {shortTime(n.updatedAt)}</span>}
      </div>
      <h2 id={titleId} className="title">
        <AgentText text={n.title} />
      </h2>
      <p className="message">
        <AgentText text={n.message} />
      </p>
      <div className="actions">
        {n.status === "active" ? (
          <>
            <button type="button" disabled={busy} onClick={() => change("dismissed")}>
              Dismiss
            </button>
            <button type="button" disabled={busy} onClick={() => change("resolved")}>
              Resolve
            </button>
          </>
        ) : (
          <>
            <span className="state">{n.status === "resolved" ? "Resolved" : "Dismissed"}</span>
            <button type="button" disabled={busy} onClick={() => change("active")}>
              Reopen
            </button>
          </>
        )}
        {detailLink && (
          <Link
            className="details"
            href={`/ui/notifications/${encodeURIComponent(n.id)}`}
            aria-label={`Details of ${agentString(n.title)}`}
          >
            Details
          </Link>
        )}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}
