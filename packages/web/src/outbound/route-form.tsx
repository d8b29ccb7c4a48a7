import type { OutboundProvider, OutboundRoute, Priority } from "@notify/contracts/ui";
import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf } from "../use-load.js";

const PRIORITIES: Priority[] = ["low", "normal", "high", "critical"];
const EMPTY = {
  name: "",
  provider: "",
  minimumPriority: "low",
  typeId: "",
  project: "",
  agent: "",
  includeMessage: true,
};

const draftOf = (route: OutboundRoute | undefined, providers: OutboundProvider[]) =>
  route
    ? {
        name: route.name,
        provider: providers.find((provider) => provider.id === route.providerId)?.name ?? "",
        minimumPriority: route.minimumPriority,
        typeId: route.typeId ?? "",
        project: route.project ?? "",
        agent: route.agent ?? "",
        includeMessage: route.includeMessage,
      }
    : EMPTY;

/**
 * A new outbound route with its gates (spec 1, Outbound delivery rule 2; new routes start disabled), or an edit of
 * one: an emptied gate is cleared (`null`).
 */
export function RouteForm({
  providers,
  route,
  onSaved,
}: {
  providers: OutboundProvider[];
  route?: OutboundRoute;
  onSaved: (name: string) => void;
}) {
  const [draft, setDraft] = useState(() => draftOf(route, providers));
  const [open, setOpen] = useState(false);
  const [error, setError] = useState("");
  const set = (change: Partial<typeof EMPTY>) => setDraft({ ...draft, ...change });
  return (
    <details
      className={route ? "edit-form" : "add-form"}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        {route ? (
          <>
            Edit <span className="visually-hidden">route {route.name}</span>
          </>
        ) : (
          "Add a route"
        )}
      </summary>
      <form
        className="stacked-form"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            const gate = (value: string) => (value ? value : route ? null : undefined);
            const body = {
              name: draft.name,
              provider: draft.provider || providers[0]?.name || "",
              minimumPriority: draft.minimumPriority as Priority,
              includeMessage: draft.includeMessage,
              typeId: gate(draft.typeId),
              project: gate(draft.project),
              agent: gate(draft.agent),
            };
            // Absent gates are left out of a new route; an edit sends null to clear one.
            await api.outbound.saveRoute(
              Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)),
              route?.id,
            );
            setError("");
            if (route) setOpen(false);
            else setDraft(EMPTY);
            onSaved(draft.name);
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        <label>
          <span>Route name</span>
          <input required value={draft.name} onChange={(e) => set({ name: e.target.value })} />
        </label>
        <label>
          <span>Provider</span>
          <select value={draft.provider} onChange={(e) => set({ provider: e.target.value })}>
            {providers.map((provider) => (
              <option key={provider.id} value={provider.name}>
                {provider.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Minimum priority</span>
          <select value={draft.minimumPriority} onChange={(e) => set({ minimumPriority: e.target.value })}>
            {PRIORITIES.map((priority) => (
              <option key={priority}>{priority}</option>
            ))}
          </select>
        </label>
        <label>
          <span>Only type (optional)</span>
          <input value={draft.typeId} onChange={(e) => set({ typeId: e.target.value })} />
        </label>
        <label>
          <span>Only project (optional)</span>
          <input value={draft.project} onChange={(e) => set({ project: e.target.value })} />
        </label>
        <label>
          <span>Only agent (optional)</span>
          <input value={draft.agent} onChange={(e) => set({ agent: e.target.value })} />
        </label>
        <label className="check-row">
          <input
            type="checkbox"
            checked={draft.includeMessage}
            onChange={(e) => set({ includeMessage: e.target.checked })}
          />
          <span>Include the message (off: only the title leaves the machine)</span>
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={providers.length === 0}>
          {route ? "Save route" : "Add route"}
        </button>
      </form>
    </details>
  );
}
